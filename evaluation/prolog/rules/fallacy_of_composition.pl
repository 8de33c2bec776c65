%! type: fallacy of composition
%! description: A whole is said to have a property because one of its parts has it, for a
%!   property that does not carry over from parts to wholes.
%! fact: infers_whole(Speaker, Whole, Property) -- Speaker concludes from its parts that Whole has Property
%! fact: part_of(Part, Whole) -- Part is a part or member of Whole
%! fact: part_has(Part, Property) -- Part has Property
%! fact: carries_over(Property) -- a whole made of parts with Property has it too
%! query: composition(Speaker, Whole, Property)

composition(Speaker, Whole, Property) :-
    infers_whole(Speaker, Whole, Property),
    part_of(Part, Whole),
    part_has(Part, Property),
    \+ carries_over(Property).

% Examples: great players need not make a great team; heavy girders do make a heavy bridge.
infers_whole(fan, national_team, excellent).
infers_whole(engineer, bridge, heavy).
part_of(star_striker, national_team).
part_of(steel_girder, bridge).
part_has(star_striker, excellent).
part_has(steel_girder, heavy).
carries_over(heavy).
