"""The duplicate-detection commands: check, audit and calibrate."""

from __future__ import annotations

import argparse
import sys

import kbsearch.runtime.timings as timings
from kbsearch.cli.output import EXIT_OK, emit, open_kb, print_check_warnings, print_notes, say_waiting
from kbsearch.cli.remote import check_remotely


def cmd_check(args: argparse.Namespace) -> int:
    with timings.phase("imports"):
        from kbsearch import render
        from kbsearch.limits import active_limits, using

    stdin_text = sys.stdin.read() if args.input == "-" else None
    remote = check_remotely(args, stdin_text)
    if remote is not None:
        return remote
    from kbsearch.embed.preload import start_loading_judge

    start_loading_judge(args.model)  # on another core, while the rest of kbsearch is imported
    kb = open_kb(args)
    with timings.phase("config"):  # read and validated, with the imports that takes
        config = kb.dedupe_config(args.config)
    limits = active_limits()
    with using(limits.bulk() if args.bulk else limits):
        result = kb.check(
            args.input,
            as_of=args.as_of,
            accept=args.accept,
            replace=args.replace,
            stdin_text=stdin_text,
            config=config,
            on_wait=say_waiting,
        )
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
        config = kb.dedupe_config(args.config)
    emit(args, kb.audit(flt, config), render.audit_text)
    return EXIT_OK


def cmd_calibrate(args: argparse.Namespace) -> int:
    from kbsearch import render
    from kbsearch.kb.calibration import calibrate

    result = calibrate(args.inputs, args.model, tests=args.test, until=args.until, config=args.config, out=args.out)
    emit(args, result, render.calibration_text)
    return EXIT_OK
