%! type: inverse error
%! description: A one-way conditional "if A then C" is used backwards: from not A the
%!   speaker concludes not C (denying the antecedent), or from C concludes A (affirming the
%!   consequent).
%! fact: conditional(Speaker, A, C) -- Speaker accepts "if A then C"
%! fact: states(Speaker, Claim, Truth) -- Speaker states that Claim is Truth (true or false)
%! fact: concludes(Speaker, Claim, Truth) -- Speaker concludes that Claim is Truth (true or false)
%! query: inverse_error(Speaker, Antecedent, Consequent)

inverse_error(Speaker, Antecedent, Consequent) :-
    one_way(Speaker, Antecedent, Consequent),
    states(Speaker, Antecedent, false),
    concludes(Speaker, Consequent, false).
inverse_error(Speaker, Antecedent, Consequent) :-
    one_way(Speaker, Antecedent, Consequent),
    states(Speaker, Consequent, true),
    concludes(Speaker, Antecedent, true).

one_way(Speaker, Antecedent, Consequent) :-
    conditional(Speaker, Antecedent, Consequent),
    \+ conditional(Speaker, Consequent, Antecedent).

% Examples: no rain does not mean a dry street; the teacher argues by modus ponens.
conditional(neighbour, it_rains, street_is_wet).
conditional(teacher, student_revises, student_passes).
states(neighbour, it_rains, false).
states(teacher, student_revises, true).
concludes(neighbour, street_is_wet, false).
concludes(teacher, student_passes, true).
