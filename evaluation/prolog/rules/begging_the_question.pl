%! type: begging the question
%! description: The conclusion, word for word or in other words, is one of the premises
%!   offered for it.
%! fact: concludes(Argument, Claim) -- the conclusion of Argument is Claim
%! fact: premise(Argument, Claim) -- Claim is one of the premises of Argument
%! fact: restates(Claim, Other) -- Claim says the same as Other in other words
%! query: begging_the_question(Argument, Claim)

begging_the_question(Argument, Claim) :-
    concludes(Argument, Claim),
    premise(Argument, Premise),
    same_claim(Premise, Claim).

same_claim(Claim, Claim).
same_claim(Claim, Other) :-
    restates(Claim, Other).
same_claim(Claim, Other) :-
    restates(Other, Claim).

% Examples: "she never lies" restates "she is honest"; rain is a reason for wet roads.
concludes(honesty_argument, ann_is_honest).
concludes(weather_argument, roads_are_wet).
premise(honesty_argument, ann_never_lies).
premise(weather_argument, it_rained_all_night).
restates(ann_never_lies, ann_is_honest).
