/*  One request in a swipl process of its own (evaluation/prolog/oneshot.py).

    Reads one JSON request from standard input, answers it with oracle_server.pl's
    predicates and writes the request's nonce on a line of its own, then the JSON answer.
    The caller sets the process's limits (address space, wall clock, output size) and kills
    its process group when one is passed.

    {"op": "check", "source": S, "time_limit": T, "max_bytes": B, "nonce": N}
        -> {"messages": [[Kind, Line, Text], ...]}
    {"op": "query", "source": S, "query": Q, "max_solutions": M, "time_limit": T,
     "inference_limit": I, "max_bytes": B, "nonce": N}
        -> {"messages": [...]} when loading gave an error or a limit, otherwise
           {"messages": [...], "names": [...], "result": {"rows": [[...], ...],
            "truncated": Bool} or {"error": Kind, "text": Text}}
*/
:- use_module(oracle_server).
:- use_module(library(http/json)).

main :-
    set_stream(user_input, encoding(utf8)),
    set_stream(user_output, encoding(utf8)),
    json_read_dict(user_input, Request, [value_string_as(string)]),
    answer(Request.op, Request, Answer),
    format(user_output, "~n~w~n", [Request.nonce]),
    json_write_dict(user_output, Answer, [width(0)]),
    nl(user_output),
    flush_output(user_output).

answer("check", Request, _{messages: Messages}) :-
    oracle_load(rules, Request.source, Request.time_limit, Request.max_bytes, Messages).
answer("query", Request, Answer) :-
    oracle_load(rules, Request.source, Request.time_limit, Request.max_bytes, Messages),
    (   member([Kind, _, _], Messages), memberchk(Kind, [error, memory, limit])
    ->  Answer = _{messages: Messages}
    ;   oracle_query(rules, Request.query, Request.max_solutions, Request.time_limit,
                     Request.inference_limit, Names, Result),
        result_dict(Result, Dict),
        Answer = _{messages: Messages, names: Names, result: Dict}
    ).

result_dict(rows(Rows, Truncated), _{rows: Rows, truncated: Truncated}).
result_dict(error(Kind, Text), _{error: Kind, text: Text}).
