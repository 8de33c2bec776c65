%! type: appeal to authority
%! description: A claim is held true because someone endorses it, although the claim lies
%!   in a field where that person has no expertise.
%! fact: cites(Speaker, Authority, Claim) -- Speaker holds Claim true because Authority endorses it
%! fact: field_of(Claim, Field) -- Claim belongs to the field Field
%! fact: expert_in(Authority, Field) -- Authority has recognised expertise in Field
%! query: appeal_to_authority(Speaker, Authority, Claim)

appeal_to_authority(Speaker, Authority, Claim) :-
    cites(Speaker, Authority, Claim),
    field_of(Claim, Field),
    \+ expert_in(Authority, Field).

% Examples: an actor on medicine; a climatologist on ice sheets.
cites(advert, famous_actor, vitamin_x_cures_colds).
cites(student, climatologist, ice_sheets_are_shrinking).
field_of(vitamin_x_cures_colds, medicine).
field_of(ice_sheets_are_shrinking, climate_science).
expert_in(famous_actor, acting).
expert_in(climatologist, climate_science).
