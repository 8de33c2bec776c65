%! type: false analogy
%! description: A property is carried from one thing to another because they are alike,
%!   although the property rests on a feature that only the first thing has.
%! fact: compares(Speaker, Source, Target, Property) -- Speaker concludes that Target has Property because Source, which it resembles, has it
%! fact: property_depends_on(Property, Feature) -- Property holds only for things with Feature
%! fact: has_feature(Thing, Feature) -- Thing has Feature
%! query: false_analogy(Speaker, Source, Target, Property)

false_analogy(Speaker, Source, Target, Property) :-
    compares(Speaker, Source, Target, Property),
    property_depends_on(Property, Feature),
    has_feature(Source, Feature),
    \+ has_feature(Target, Feature).

% Examples: people are not nails; mice and people share the organ that matters.
compares(manager, nails, employees, work_better_when_hit).
compares(toxicologist, lab_mice, humans, harmed_by_the_solvent).
property_depends_on(work_better_when_hit, inanimate_fastener).
property_depends_on(harmed_by_the_solvent, mammalian_liver).
has_feature(nails, inanimate_fastener).
has_feature(lab_mice, mammalian_liver).
has_feature(humans, mammalian_liver).
