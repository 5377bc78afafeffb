"""A stored record's neighbours, why two records are one item or not, removing
records, and serving the index: similar, explain, remove, serve."""

from __future__ import annotations

import argparse
from pathlib import Path

from kbsearch.cli.output import EXIT_OK, emit, open_kb, print_notes, say_waiting
from kbsearch.cli.read_commands import search_filter
from kbsearch.cli.remote import ask_server, config_fields, filter_fields, print_answer, require_k
from kbsearch.errors import KbError


def cmd_similar(args: argparse.Namespace) -> int:
    from kbsearch import render

    require_k(args)
    flt = search_filter(args)  # refused here, before any server is asked
    body = {"id": args.id, "k": args.k, **filter_fields(args), **config_fields(args)}
    answer = ask_server(args, "similar", body)
    if answer is not None:
        from kbsearch.dedupe.results import Neighbours

        print_answer(args, answer, Neighbours.model_validate_json(answer), render.neighbours_text)
        return EXIT_OK
    kb = open_kb(args)
    emit(
        args,
        kb.similar(args.id, args.k, flt, config=kb.dedupe_config(args.config, claims=False)),
        render.neighbours_text,
    )
    return EXIT_OK


def cmd_explain(args: argparse.Namespace) -> int:
    from kbsearch import render

    a, item = _input_item(args.a)
    if item is not None:  # a local file's item: read and checked here, as 'check FILE' would
        kb = open_kb(args)
        config = kb.dedupe_config(args.config, claims=args.claim is not None)
        explained = kb.explain(a, args.b, config, as_of=args.as_of, claim=args.claim, file_item=item)
        emit(args, explained, render.explanation_text)
        return EXIT_OK
    body = {"a": args.a, "b": args.b, **config_fields(args)}
    if args.as_of is not None:  # a server from before --as-of refuses a field it does not know
        body["as_of"] = args.as_of
    if args.claim is not None:  # the same, before --claim
        body["claim"] = args.claim
    answer = ask_server(args, "explain", body)
    if answer is not None:
        from kbsearch.dedupe.results import Explanation

        print_answer(args, answer, Explanation.model_validate_json(answer), render.explanation_text)
        return EXIT_OK
    kb = open_kb(args)
    emit(
        args,
        kb.explain(
            args.a,
            args.b,
            kb.dedupe_config(args.config, claims=args.claim is not None),
            as_of=args.as_of,
            claim=args.claim,
        ),
        render.explanation_text,
    )
    return EXIT_OK


def _input_item(a: str) -> tuple[str, int | None]:
    """A as FILE#N (an existing file: its item N, from 1) or FILE (0: its only item), else a stored id."""
    path, sep, number = a.rpartition("#")
    if sep and Path(path).is_file():
        if not number.isdigit():
            raise KbError(f"{a}: after '#' give the item's number (FILE#N, from 1)")
        return path, int(number)
    return (a, 0) if Path(a).is_file() else (a, None)


def cmd_remove(args: argparse.Namespace) -> int:
    from kbsearch import render

    kb = open_kb(args)
    result = kb.remove(args.ids, on_wait=say_waiting)
    print_notes(kb)
    emit(args, result, render.removal_text)
    return EXIT_OK


def cmd_serve(args: argparse.Namespace) -> int:
    from kbsearch.serve import ServeOptions, serve

    if min(args.readers, args.checkers, args.queue, args.max_body) < 1 or args.lock_timeout < 0 or args.budget <= 0:
        raise KbError(
            "--readers, --checkers, --queue, --max-body and --budget must be positive, --lock-timeout at least 0"
        )
    if args.workers < 1:
        raise KbError("--workers must be at least 1")
    if args.warm_records < 0:
        raise KbError("--warm-records must be at least 0")
    if args.workers > 1 and args.stdio:
        raise KbError("--workers applies to --http only: an MCP client on stdin/stdout talks to one process")
    options = ServeOptions(
        index=args.index,
        model=args.model,
        stdio=args.stdio,
        http=args.http,
        allow_remote=args.allow_remote,
        readers=args.readers,
        lock_timeout=args.lock_timeout,
        max_body=args.max_body,
        checkers=args.checkers,
        queue=args.queue,
        budget=args.budget,
        workers=args.workers,
        warm_records=args.warm_records,
        verbose=args.verbose,
    )
    return serve(options)
