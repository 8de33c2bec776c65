%! type: equivocation
%! description: One term is used in one sense in a premise and in another sense in the
%!   conclusion, so the argument only seems to connect through the shared word.
%! fact: premise_uses(Argument, Term, Sense) -- a premise of Argument uses Term meaning Sense
%! fact: conclusion_uses(Argument, Term, Sense) -- the conclusion of Argument uses Term meaning Sense
%! query: equivocation(Argument, Term, PremiseSense, ConclusionSense)

equivocation(Argument, Term, PremiseSense, ConclusionSense) :-
    premise_uses(Argument, Term, PremiseSense),
    conclusion_uses(Argument, Term, ConclusionSense),
    PremiseSense \== ConclusionSense.

% Examples: "light" shifts from weight to colour; "wet" keeps its one sense.
premise_uses(feather_argument, light, not_heavy).
premise_uses(rain_argument, wet, covered_in_water).
conclusion_uses(feather_argument, light, not_dark).
conclusion_uses(rain_argument, wet, covered_in_water).
