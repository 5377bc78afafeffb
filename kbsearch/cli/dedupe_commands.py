"""The duplicate-detection commands: check, audit, calibrate and export (calibrate's input)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

import kbsearch.runtime.timings as timings
from kbsearch.cli.output import (
    EXIT_OK,
    emit,
    open_kb,
    print_check_warnings,
    print_notes,
    say_waiting,
    stdin_name,
    warn_unnamed_stdin,
)
from kbsearch.cli.remote import check_remotely
from kbsearch.errors import KbError

if TYPE_CHECKING:
    from kbsearch.dedupe.results import CheckResult
    from kbsearch.kb import KnowledgeBase


def cmd_check(args: argparse.Namespace) -> int:
    with timings.phase("imports"):
        from kbsearch import render
        from kbsearch.limits import active_limits, using

    if args.skip_duplicates and not args.accept:  # a check alone stores nothing, so there is nothing to skip
        raise KbError("--skip-duplicates needs --accept", hint="add --accept, or drop --skip-duplicates")
    named = stdin_name(args)  # refused here, before stdin is read or a server asked
    stdin_text = sys.stdin.read() if args.input == "-" else None
    if named is not None and not (stdin_text or "").strip():
        raise KbError("stdin is empty", hint=f"pipe the text of {args.path} into 'kbsearch check - --path {args.path}'")
    remote = check_remotely(args, stdin_text, named)
    if remote is not None:
        return remote
    preload_judge(args)  # on another core, while the rest of kbsearch is imported
    kb = open_kb(args)
    with timings.phase("config"):  # read and validated, with the imports that takes
        config = kb.dedupe_config(args.config)
    limits = active_limits()
    options = {"as_of": args.as_of, "accept": args.accept, "replace": args.replace, "config": config}
    options["skip_duplicates"] = args.skip_duplicates
    with using(limits.bulk() if args.bulk else limits):
        if named is None:
            result = kb.check(args.input, stdin_text=stdin_text, on_wait=say_waiting, **options)
        else:  # stdin read as the file it names: its format, ids, date and writer
            result = check_named(kb, stdin_text or "", named, args.path, on_wait=say_waiting, **options)
    warn_unnamed_stdin(args, result)
    print_notes(kb)
    emit(args, result, render.check_text)
    print_check_warnings(args, result)
    return result.exit_code


def preload_judge(args: argparse.Namespace) -> None:
    """Start loading the judge of the model the check will use: ``--model``, else
    $KBSEARCH_MODEL, else the index's own (as ``spec_for_index`` picks it; models.txt's
    first line's judge is no concern of an index built by another model). The index's
    model is read from its database with sqlite3 alone: the store's imports are what
    the preload overlaps. An index that cannot be read preloads nothing (the check says why)."""
    import sqlite3
    from contextlib import closing
    from pathlib import Path

    from kbsearch.embed.preload import start_loading_judge
    from kbsearch.settings import settings

    model = args.model or settings().model
    if model is None:
        database = (Path(args.index) if args.index else settings().index or Path("index")) / "kb.sqlite"
        try:  # no index yet (or one a first ingest is still building): the default model, as spec_for_index
            if database.is_file() and database.stat().st_size:
                with closing(sqlite3.connect(f"{database.resolve().as_uri()}?mode=ro", uri=True)) as db:
                    row = db.execute("SELECT value FROM meta WHERE key = 'model'").fetchone()
                    model = row[0] if row else None
        except (OSError, sqlite3.Error):
            return
    start_loading_judge(model)  # a model models.txt lacks: none (the check refuses the index)


def cmd_audit(args: argparse.Namespace) -> int:
    with timings.phase("imports"):
        from kbsearch import render
        from kbsearch.dedupe.audit_summary import across
        from kbsearch.kb import SearchFilter

    flt = SearchFilter(since=args.since, until=args.until, instance=args.instance)
    kb = open_kb(args)
    with timings.phase("config"):
        config = kb.dedupe_config(args.config, claims=False)
    result = kb.audit(flt, config)
    emit(args, across(result) if args.across else result, render.audit_text)
    return EXIT_OK


class Once(argparse.Action):
    """An option that takes one value: given twice, refused (probe 26: ``audit --instance tom
    --instance jay`` silently audited jay alone), not the last one kept."""

    def __call__(
        self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object, _: object = None
    ) -> None:
        before = getattr(namespace, self.dest, None)
        if before is not None and before != values:
            raise argparse.ArgumentError(
                self,
                f"given twice ({before!r}, then {values!r}); it takes one value: run the command once per value, "
                "or leave it out (audit's per-instance table counts every instance)",
            )
        setattr(namespace, self.dest, values)


def cmd_calibrate(args: argparse.Namespace) -> int:
    from kbsearch import render
    from kbsearch.kb.calibration import calibrate

    result = calibrate(args.inputs, args.model, tests=args.test, until=args.until, config=args.config, out=args.out)
    emit(args, result, render.calibration_text)
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    from kbsearch.cli.read_commands import search_filter
    from kbsearch.kb.export import ROLE, export_stream
    from kbsearch.text.terminal import inert_json

    flt = search_filter(args)
    done = export_stream(
        open_kb(args, check_model=False), lambda line: sys.stdout.write(inert_json(line)), flt, args.limit
    )
    undated = f"; {done.undated} undated record(s) left out (calibrate replays day by day)" if done.undated else ""
    print(
        f"kbsearch: exported {done.rows} record(s) as calibrate stream rows (role {ROLE!r}, item null){undated}; "
        "fill in each row's 'item' (a repeat takes the item of the record it repeats), "
        "then 'kbsearch calibrate FILE --until half'",
        file=sys.stderr,
    )
    return EXIT_OK


def check_named(kb: KnowledgeBase, text: str, named: str, given: str, **options: Any) -> CheckResult:
    """``check - --path FILE``: stdin's text checked as FILE's; a problem with it names stdin, not the
    file, which is never opened."""
    try:
        return kb.check_text(text, name=named, input_name=given, **options)
    except KbError as err:
        if err.path == named:
            err.path = f"<stdin> read as {given}"
        raise
