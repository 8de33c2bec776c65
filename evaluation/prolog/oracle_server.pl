/*  Helper loaded into the oracle's own swipl process (evaluation/prolog/oracle.py).

    Never loaded into the web process. Untrusted text reaches this process only as the
    source of a rule file or of checked ground facts, and is loaded with
    load_files(..., [sandboxed(true)]): directives that touch files, the shell, the network,
    flags or other modules are refused by library(sandbox), and every goal that is queried
    passes safe_goal/1 first.
*/
:- module(fallacy_oracle, [oracle_load/5, oracle_query/7]).

:- use_module(library(sandbox)).
:- use_module(library(time)).
:- use_module(library(solution_sequences)).
:- use_module(library(apply)).
:- use_module(library(lists)).

:- thread_local collecting/1, collected/3, printed/1.

:- multifile user:message_hook/3.
:- dynamic user:message_hook/3.

%   While a source is loading (collecting(MaxBytes)), keep its errors and warnings (with
%   their lines) instead of printing them; everything else is dropped. Once their text
%   passes MaxBytes, every further message throws oracle_message_limit (the load stops).
%   A resource error (a Prolog stack overflowed) is kept with the kind memory.
user:message_hook(Term, Kind, Lines) :-
    collecting(MaxBytes),
    printed(Used0),
    (   Used0 > MaxBytes
    ->  throw(oracle_message_limit)
    ;   memberchk(Kind, [error, warning])
    ->  message_line(Term, Line),
        with_output_to(string(Text),
                       print_message_lines(current_output, '', Lines)),
        string_length(Text, Length),
        Used is Used0 + Length + 16,
        retractall(printed(_)),
        assertz(printed(Used)),
        (   Used > MaxBytes
        ->  throw(oracle_message_limit)
        ;   message_kind(Term, Kind, Kept),
            assertz(collected(Kept, Line, Text))
        )
    ;   true
    ).

message_kind(error(resource_error(_), _), _, memory) :- !.
message_kind(_, Kind, Kind).

message_line(error(_, file(_, Line, _, _)), Line) :- integer(Line), !.
message_line(error(_, stream(_, Line, _, _)), Line) :- integer(Line), !.
message_line(_, Line) :- source_location(_, Line), !.
message_line(_, 0).

%!  oracle_load(+Module, +Source, +TimeLimit, +MaxBytes, -Messages) is det.
%
%   Load Source (a string) into Module, sandboxed; Messages is a list of
%   [Kind, Line, Text] for every error and warning (Kind memory: a stack overflowed; time:
%   TimeLimit passed); [limit, 0, ""] first when their text passed MaxBytes (the load was
%   stopped there).
oracle_load(Module, Source, TimeLimit, MaxBytes, Messages) :-
    retractall(collected(_, _, _)),
    retractall(printed(_)),
    assertz(printed(0)),
    setup_call_cleanup(
        ( assertz(collecting(MaxBytes)), open_string(Source, Stream) ),
        catch(call_with_time_limit(
                  TimeLimit,
                  with_output_to(string(_),
                                 load_files(Module:Module,
                                            [stream(Stream), sandboxed(true),
                                             silent(true)]))),
              Error,
              load_error(Error)),
        ( close(Stream), retractall(collecting(_)) )),
    findall([Kind, Line, Text], retract(collected(Kind, Line, Text)), Collected),
    (   printed(Used), Used > MaxBytes
    ->  Messages = [[limit, 0, ""]|Collected]
    ;   Messages = Collected
    ).

load_error(oracle_message_limit) :- !.
load_error(time_limit_exceeded) :- !, assertz(collected(time, 0, "time limit exceeded")).
load_error(Error) :- catch(print_message(error, Error), oracle_message_limit, true).

%!  oracle_query(+Module, +QueryText, +Max, +TimeLimit, +InferenceLimit,
%!               -Names, -Result) is det.
%
%   Result is rows(Rows, Truncated) with at most Max distinct rows (each a list of
%   strings, writeq of the bindings in the order of Names), or error(Kind, Text).
oracle_query(Module, QueryText, Max, TimeLimit, InferenceLimit, Names, Result) :-
    catch(term_string(Query, QueryText, [variable_names(Bindings)]), E0, true),
    (   nonvar(E0)
    ->  Names = [], error_result(syntax, E0, Result)
    ;   pairs_keys_values_eq(Bindings, Names, Vars),
        Template =.. [row|Vars],
        catch(safe_goal(Module:Query), E1, true),
        (   nonvar(E1)
        ->  error_result(sandbox, E1, Result)
        ;   Max1 is Max + 1,
            catch(call_with_time_limit(
                      TimeLimit,
                      call_with_inference_limit(
                          findall(Template,
                                  limit(Max1, distinct(Template, Module:Query)),
                                  Found),
                          InferenceLimit, Why)),
                  E2, true),
            (   nonvar(E2)
            ->  error_result(limit, E2, Result)
            ;   Why == inference_limit_exceeded
            ->  format(string(Text), "more than ~D inferences", [InferenceLimit]),
                Result = error(inferences, Text)
            ;   length(Found, Count),
                (   Count > Max
                ->  Truncated = true, length(Kept, Max), append(Kept, _, Found)
                ;   Truncated = false, Kept = Found
                ),
                maplist(row_strings, Kept, Rows),
                Result = rows(Rows, Truncated)
            )
        )
    ).

pairs_keys_values_eq([], [], []).
pairs_keys_values_eq([Name=Var|T], [Name|Names], [Var|Vars]) :-
    pairs_keys_values_eq(T, Names, Vars).

row_strings(Row, Strings) :-
    Row =.. [row|Values],
    maplist([Value, String]>>format(string(String), "~q", [Value]), Values, Strings).

error_result(_, time_limit_exceeded, error(time, "time limit exceeded")) :- !.
error_result(_, error(resource_error(What), _), error(memory, Text)) :- !,
    format(string(Text), "resource limit exceeded: ~w", [What]).
error_result(Kind, Error, error(Kind, Text)) :-
    message_to_codes(Error, Text).

message_to_codes(Error, Text) :-
    catch(( message_to_lines(Error, Lines),
            with_output_to(string(Text),
                           print_message_lines(current_output, '', Lines)) ),
          _, format(string(Text), "~q", [Error])).

message_to_lines(Error, Lines) :-
    '$messages':translate_message(Error, Lines, []).
