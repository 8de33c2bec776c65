%! type: wrong direction
%! description: Cause and effect are swapped: the speaker names as the cause what is known
%!   to be the effect, and the link does not also run the other way.
%! fact: claims_causes(Speaker, A, B) -- Speaker claims that A causes B
%! fact: causes(A, B) -- A is known to cause B
%! query: wrong_direction(Speaker, ClaimedCause, ClaimedEffect)

wrong_direction(Speaker, ClaimedCause, ClaimedEffect) :-
    claims_causes(Speaker, ClaimedCause, ClaimedEffect),
    causes(ClaimedEffect, ClaimedCause),
    \+ causes(ClaimedCause, ClaimedEffect).

% Examples: big fires bring many firefighters, not the reverse; heat does boil water.
claims_causes(reporter, many_firefighters, big_fire).
claims_causes(cook, heat, boiling_water).
causes(big_fire, many_firefighters).
causes(heat, boiling_water).
