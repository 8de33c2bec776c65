%! type: false cause
%! description: One thing is said to cause another only because the two were seen
%!   together or one after the other, with no independent evidence of a causal link.
%! fact: claims_causes(Speaker, A, B) -- Speaker claims that A causes B
%! fact: observed_together(A, B) -- A and B were seen together, or B was seen after A
%! fact: causal_link(A, B) -- there is independent evidence that A causes B
%! query: false_cause(Speaker, A, B)

false_cause(Speaker, A, B) :-
    claims_causes(Speaker, A, B),
    observed_together(A, B),
    \+ causal_link(A, B).

% Examples: the socks are a coincidence; smoking and lung disease are linked by studies.
claims_causes(fan, lucky_socks, team_wins).
claims_causes(doctor, smoking, lung_disease).
observed_together(lucky_socks, team_wins).
observed_together(smoking, lung_disease).
causal_link(smoking, lung_disease).
