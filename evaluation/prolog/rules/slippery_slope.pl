%! type: slippery slope
%! description: A first step is said to end in an extreme outcome through a chain of two or
%!   more steps, at least one of which is only asserted, not supported.
%! fact: predicts(Speaker, First, Last) -- Speaker says that First will end in Last
%! fact: leads_to(Step, Next, Support) -- Step is said to lead to Next; Support is supported or asserted
%! fact: extreme(Outcome) -- Outcome is an extreme, alarming result
%! query: slippery_slope(Speaker, First, Last)

slippery_slope(Speaker, First, Last) :-
    predicts(Speaker, First, Last),
    extreme(Last),
    chain(First, Last, [First], Supports),
    Supports = [_, _|_],
    memberchk(asserted, Supports).

% chain(From, To, Seen, Supports): a path of leads_to links that never revisits a step.
chain(From, To, _, [Support]) :-
    leads_to(From, To, Support).
chain(From, To, Seen, [Support|Supports]) :-
    leads_to(From, Next, Support),
    Next \== To,
    \+ memberchk(Next, Seen),
    chain(Next, To, [Next|Seen], Supports).

% Examples: one game is said to end in failure step by unsupported step; the nurse's
% chain is supported throughout.
predicts(parent, one_video_game, failing_school).
predicts(nurse, skipped_vaccinations, measles_outbreak).
leads_to(one_video_game, daily_gaming, asserted).
leads_to(daily_gaming, skipped_homework, asserted).
leads_to(skipped_homework, failing_school, asserted).
leads_to(skipped_vaccinations, low_herd_immunity, supported).
leads_to(low_herd_immunity, measles_outbreak, supported).
extreme(failing_school).
extreme(measles_outbreak).
