%! type: hasty generalization
%! description: A claim about every member of a group rests on fewer observed members than
%!   this file's threshold of three.
%! fact: generalises(Speaker, Group, Property) -- Speaker claims that every member of Group has Property
%! fact: observed(Speaker, Member, Group, Property) -- Speaker saw Member, one of Group, with Property
%! query: hasty_generalization(Speaker, Group, Property)

hasty_generalization(Speaker, Group, Property) :-
    generalises(Speaker, Group, Property),
    findall(Member, observed(Speaker, Member, Group, Property), Members),
    sort(Members, Distinct),
    length(Distinct, Count),
    Count < 3.

% Examples: one taxi ride is too little; the survey saw four households.
generalises(tourist, city_drivers, reckless).
generalises(survey_team, district_households, recycle_glass).
observed(tourist, taxi_driver, city_drivers, reckless).
observed(survey_team, household_1, district_households, recycle_glass).
observed(survey_team, household_2, district_households, recycle_glass).
observed(survey_team, household_3, district_households, recycle_glass).
observed(survey_team, household_4, district_households, recycle_glass).
