"""The commands that change the index or take its writer lock: ingest, reindex, backup."""

from __future__ import annotations

import argparse
import sys

from kbsearch.cli.output import EXIT_OK, EXIT_PARTIAL, ProgressBar, emit, open_kb, print_notes, say_waiting


def cmd_ingest(args: argparse.Namespace) -> int:
    from kbsearch import render

    kb = open_kb(args, create=True)
    with ProgressBar("ingesting") as on_progress:
        report = kb.ingest(
            args.paths,
            prune=args.prune,
            progress=on_progress,
            on_wait=say_waiting,
            vectors=args.vectors,
            include_skipped=args.include_skipped,
        )
    print_notes(kb)
    emit(args, report, render.ingest_text)
    if not args.json:
        sys.stdout.flush()  # on a terminal, after the summary they qualify
        for line in render.ingest_warnings(report):
            print(f"kbsearch: {line}", file=sys.stderr)
    if report.refused:
        print(render.refused_text(report), file=sys.stderr)
        return EXIT_PARTIAL
    return EXIT_OK


def cmd_reindex(args: argparse.Namespace) -> int:
    from kbsearch import render

    kb = open_kb(args, check_model=False)
    with ProgressBar("re-embedding") as on_progress:
        report = kb.reindex(progress=on_progress, on_wait=say_waiting, force=args.force)
    print_notes(kb)
    emit(args, report, render.reindex_text)
    return EXIT_OK


def cmd_backup(args: argparse.Namespace) -> int:
    from kbsearch.kb.backup import backup

    report = backup(args.index, args.dest, on_wait=say_waiting)
    if args.json:
        print(report.model_dump_json(indent=2))
    else:
        print(f"backed up {report.index} to {report.destination}: {', '.join(report.files)} ({report.records} records)")
    return EXIT_OK
