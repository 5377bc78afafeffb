"""The duplicate-detection commands: check, audit and calibrate."""

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

    named = stdin_name(args)  # refused here, before stdin is read or a server asked
    stdin_text = sys.stdin.read() if args.input == "-" else None
    if named is not None and not (stdin_text or "").strip():
        raise KbError("stdin is empty", hint=f"pipe the text of {args.path} into 'kbsearch check - --path {args.path}'")
    remote = check_remotely(args, stdin_text, named)
    if remote is not None:
        return remote
    from kbsearch.embed.preload import start_loading_judge

    start_loading_judge(args.model)  # on another core, while the rest of kbsearch is imported
    kb = open_kb(args)
    with timings.phase("config"):  # read and validated, with the imports that takes
        config = kb.dedupe_config(args.config)
    limits = active_limits()
    options = {"as_of": args.as_of, "accept": args.accept, "replace": args.replace, "config": config}
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


def cmd_audit(args: argparse.Namespace) -> int:
    with timings.phase("imports"):
        from kbsearch import render
        from kbsearch.kb import SearchFilter

    flt = SearchFilter(since=args.since, until=args.until, instance=args.instance)
    kb = open_kb(args)
    with timings.phase("config"):
        config = kb.dedupe_config(args.config, claims=False)
    emit(args, kb.audit(flt, config), render.audit_text)
    return EXIT_OK


def cmd_calibrate(args: argparse.Namespace) -> int:
    from kbsearch import render
    from kbsearch.kb.calibration import calibrate

    result = calibrate(args.inputs, args.model, tests=args.test, until=args.until, config=args.config, out=args.out)
    emit(args, result, render.calibration_text)
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
