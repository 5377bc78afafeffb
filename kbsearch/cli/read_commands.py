"""The commands that only read the index: search, list, show, stats, models, doctor, tui.

search, list, show and stats ask a server instead when one is named (``--server``)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

import kbsearch.runtime.timings as timings
from kbsearch.cli.output import EXIT_ERROR, EXIT_OK, emit, open_kb, print_notes, print_styled
from kbsearch.cli.remote import ask_server, filter_fields, print_answer, require_k
from kbsearch.text.terminal import inert_json

if TYPE_CHECKING:
    from kbsearch.filters import SearchFilter


def cmd_search(args: argparse.Namespace) -> int:
    with timings.phase("imports"):
        from kbsearch import render
        from kbsearch.responses import SearchMode, SearchResponse

    require_k(args)
    flt = search_filter(args)  # refused here, before any server is asked
    answer = ask_server(args, "search", {"query": args.query, "k": args.k, "mode": args.mode, **filter_fields(args)})
    if answer is not None:
        print_answer(args, answer, SearchResponse.model_validate_json(answer), render.search_text)
        return EXIT_OK
    kb = open_kb(args, check_model=args.mode != SearchMode.lexical)  # a lexical search reads no vector
    response = kb.search(args.query, args.k, flt, SearchMode(args.mode))
    print_notes(kb)
    if args.json:
        print(inert_json(response.model_dump_json(indent=2)))
    else:
        print_styled(render.search_text(response))
    return EXIT_OK


def search_filter(args: argparse.Namespace) -> SearchFilter:
    from kbsearch.filters import SearchFilter

    return SearchFilter(
        kinds=args.kind or [],
        instance=args.instance,
        topic=args.topic,
        category=args.category,
        section=args.section,
        since=args.since,
        until=args.until,
    )


def cmd_list(args: argparse.Namespace) -> int:
    from kbsearch import render
    from kbsearch.filters import require_limit

    require_limit(args.limit)  # refused here, before any server is asked
    flt = search_filter(args)
    answer = ask_server(args, "list", {**filter_fields(args), "limit": args.limit})
    if answer is not None:
        from kbsearch.responses import Listing

        listing = Listing.model_validate_json(answer)
        if args.json:
            print_answer(args, answer, listing, render.listing_text)
            return EXIT_OK
    else:
        listing = open_kb(args, check_model=False).listing(flt, args.limit)
    if args.json:
        emit(args, listing, render.listing_text)
    elif args.format in ("ids", "tsv"):
        rows = render.listing_ids(listing) if args.format == "ids" else render.listing_tsv(listing)
        if rows:  # no id, no line: an empty line is an empty id to 'while read id'
            print(rows)
        if listing.unknown_filters:  # on stderr: stdout stays ids or rows for the next program
            print(render.unknown_filters_text(listing.unknown_filters), file=sys.stderr)
    else:
        print(render.listing_text(listing, full_ids=not sys.stdout.isatty()))
    return EXIT_OK


def cmd_show(args: argparse.Namespace) -> int:
    from kbsearch import render

    answer = ask_server(args, "show", {"id": args.id})
    if answer is not None:
        from kbsearch.records import Record

        print_answer(args, answer, Record.from_document(answer), render.record_text)
        return EXIT_OK
    emit(args, open_kb(args).show(args.id), render.record_text)
    return EXIT_OK


def cmd_stats(args: argparse.Namespace) -> int:
    from kbsearch import render

    answer = ask_server(args, "stats", {})
    if answer is not None:
        from kbsearch.responses import Stats

        print_answer(args, answer, Stats.model_validate_json(answer), render.stats_text)
        return EXIT_OK
    emit(args, open_kb(args, check_model=False).stats(), render.stats_text)
    return EXIT_OK


def cmd_models(args: argparse.Namespace) -> int:
    from kbsearch import render
    from kbsearch.kb import available_models, index_model

    specs = available_models()
    active = index_model(args.index)
    if args.json:
        print(json.dumps({"models": [s.model_dump() for s in specs], "index_model": active}, indent=2))
    else:
        print(render.models_text(specs, active))
    return EXIT_OK


def cmd_doctor(args: argparse.Namespace) -> int:
    from kbsearch import render
    from kbsearch.kb import examine

    report = examine(args.index, args.model)
    emit(args, report, render.doctor_text)
    return EXIT_OK if report.healthy else EXIT_ERROR


def cmd_tui(args: argparse.Namespace) -> int:
    # Imported here: textual must stay out of every other command.
    from kbsearch.tui import run

    return run(args.index, args.model)
