%! type: false dilemma
%! description: Two options are put forward as the only ones, while the issue is known
%!   to allow a further option that the speaker leaves out.
%! fact: presents_options(Speaker, Issue, A, B) -- Speaker says that on Issue one must choose A or B
%! fact: possible_option(Issue, Option) -- Option is a real way to settle Issue
%! query: false_dilemma(Speaker, Issue, A, B)

false_dilemma(Speaker, Issue, A, B) :-
    presents_options(Speaker, Issue, A, B),
    A \== B,
    possible_option(Issue, Other),
    Other \== A,
    Other \== B.

% Examples: the mayor leaves out a third way; the referee's choice really has two sides.
presents_options(mayor, city_budget, raise_taxes, close_libraries).
presents_options(referee, coin_toss, heads, tails).
possible_option(city_budget, raise_taxes).
possible_option(city_budget, close_libraries).
possible_option(city_budget, cut_administration).
possible_option(coin_toss, heads).
possible_option(coin_toss, tails).
