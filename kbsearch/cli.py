"""The ``kbsearch`` command line.

Every command prints text, or one JSON document with ``--json``, built from
the same pydantic result objects. Errors are one line on stderr and exit 2.
Heavy modules (the store, faiss, the encoder) are imported inside the
commands so that ``--help`` stays instant.
"""

from __future__ import annotations

import argparse
import atexit
import datetime as dt
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from kbsearch import timings
from kbsearch.errors import KbError
from kbsearch.terminal import clean, inert_json

if TYPE_CHECKING:
    from pydantic import BaseModel
    from rich.text import Text

    from kbsearch.kb import KnowledgeBase
    from kbsearch.store import SearchFilter

EXIT_OK, EXIT_PARTIAL, EXIT_ERROR = 0, 1, 2


def main(argv: Sequence[str] | None = None) -> int:
    started = time.perf_counter()
    timings.reset()  # one report per run, also when a caller runs several in one process
    parser = build_parser()
    args = parser.parse_args(argv)
    args.opened = []
    try:
        return int(args.handler(args))
    except KbError as err:
        # Messages quote file names and file contents: strip what a terminal would obey.
        print(f"kbsearch: {clean(err.one_line(), one_line=True)}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("kbsearch: interrupted; the index is unchanged by the unfinished write", file=sys.stderr)
        return 130
    finally:
        # Closing checkpoints the WAL and removes its side files when no one else has the index open.
        for kb in args.opened:
            kb.close()
        timings.report(time.perf_counter() - started)


def run() -> NoReturn:
    """The console script: ``main()``, then an exit that skips the interpreter's teardown.

    Once sentence-transformers is loaded, tearing the interpreter down (freeing
    some 400,000 objects and torch's state, module by module) takes one to two
    seconds after the output is already printed: a third of a cold ``check``
    beyond the model's load. Nothing kbsearch needs happens in that teardown:
    the index is closed and committed in ``main``, and atexit handlers and the
    flush of stdout and stderr are done here. Only for the command line:
    ``main`` itself returns normally, for the tests and for callers.
    """
    code = main()
    exit_now(code)


def exit_now(code: int) -> NoReturn:
    """Run the atexit handlers, flush stdout and stderr, and end the process."""
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError:  # a closed pipe (kbsearch list | head): let Python report it as usual
        sys.exit(code)
    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        sys.exit(code)  # Python would wait for these; so do we
    os._exit(code)


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--index", metavar="DIR", help="index folder (default: $KBSEARCH_INDEX or ./index)")
    common.add_argument("--model", metavar="NAME", help="model from models.txt (default: its first entry)")
    common.add_argument("--json", action="store_true", help="print one JSON document")
    parser = argparse.ArgumentParser(
        prog="kbsearch",
        description="Multilingual search and duplicate detection for E1 briefings, paper cards and living documents.",
        epilog="exit codes: 0 ok, 1 partial (see the command), 2 error",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_ingest(commands, common)
    _add_search(commands, common)
    show = commands.add_parser("show", parents=[common], help="print one record")
    show.add_argument("id")
    show.set_defaults(handler=cmd_show)
    _add_check(commands, common)
    tui = commands.add_parser("tui", help="the terminal UI: search as you type, check and audit")
    tui.add_argument("--index", metavar="DIR", help="index folder (default: $KBSEARCH_INDEX or ./index)")
    tui.add_argument("--model", metavar="NAME", help="model from models.txt (default: its first entry)")
    tui.set_defaults(handler=cmd_tui)
    stats = commands.add_parser("stats", parents=[common], help="what the index holds")
    stats.set_defaults(handler=cmd_stats)
    models = commands.add_parser("models", parents=[common], help="list the models in models.txt")
    models.set_defaults(handler=cmd_models)
    reindex = commands.add_parser(
        "reindex",
        parents=[common],
        help="rebuild the vectors from the text in SQLite, with --model or the "
        "default model (after a model change, or a lost or corrupt vector file)",
    )
    reindex.set_defaults(handler=cmd_reindex)
    doctor = commands.add_parser(
        "doctor",
        parents=[common],
        help="check the index and name the fix for each problem",
        description="Check SQLite's integrity, that every record's passages are whole and have vectors, "
        "and that the vector cache matches the database. Exit 0 when healthy, 2 when a problem is found.",
    )
    doctor.set_defaults(handler=cmd_doctor)
    return parser


def _add_ingest(commands: Any, common: argparse.ArgumentParser) -> None:
    ingest = commands.add_parser(
        "ingest",
        parents=[common],
        help="add or update files and folders",
        description="Parse briefings, paper cards, living docs and JSONL (folders recursively) and "
        "index them. Exit 0 when every file was ingested, 1 when some were refused, 2 when none was.",
    )
    ingest.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    ingest.add_argument("--prune", action="store_true", help="remove records that their source file no longer yields")
    ingest.set_defaults(handler=cmd_ingest)


def _add_check(commands: Any, common: argparse.ArgumentParser) -> None:
    check = commands.add_parser(
        "check",
        parents=[common],
        help="NEW / UPDATE / DUPLICATE for each item of a file, with evidence",
        description="Check a briefing, paper card or JSONL file (or - for text on stdin) against the index. "
        "Exit 0 when every item is NEW or UPDATE, 1 when any item is a DUPLICATE, 2 on error.",
    )
    check.add_argument("input", metavar="INPUT", help="a file, or - to read stdin")
    check.add_argument(
        "--as-of", type=_date, metavar="YYYY-MM-DD", help="compare only with records dated on or before this day"
    )
    check.add_argument("--accept", action="store_true", help="ingest the NEW and UPDATE items afterwards")
    check.add_argument("--config", metavar="FILE", help="dedupe thresholds (JSON, from 'calibrate --out')")
    check.set_defaults(handler=cmd_check)
    audit = commands.add_parser("audit", parents=[common], help="clusters of the same item across instances and days")
    audit.add_argument("--since", type=_date, metavar="YYYY-MM-DD")
    audit.add_argument("--until", type=_date, metavar="YYYY-MM-DD")
    audit.add_argument("--instance", help="only records by this instance")
    audit.add_argument("--config", metavar="FILE", help="dedupe thresholds (JSON, from 'calibrate --out')")
    audit.set_defaults(handler=cmd_audit)
    calibrate = commands.add_parser(
        "calibrate",
        parents=[common],
        help="fit the same-item threshold on labelled pairs",
        description="Fit the dedupe threshold on a TSV of labelled pairs (columns a, b, label[, lang]) and "
        "print precision, recall and F1 at the default and at the fitted threshold.",
    )
    calibrate.add_argument("pairs", type=Path, metavar="PAIRS.tsv")
    calibrate.add_argument("--out", metavar="FILE", help="write the fitted thresholds here (for --config)")
    calibrate.set_defaults(handler=cmd_calibrate)


def _add_search(commands: Any, common: argparse.ArgumentParser) -> None:
    filters = argparse.ArgumentParser(add_help=False)
    filters.add_argument(
        "--kind",
        action="append",
        choices=["increment", "paper_card", "doc_section"],
        help="only this kind (repeatable)",
    )
    filters.add_argument("--instance", help="only records by this instance")
    filters.add_argument("--topic", help="only this topic")
    filters.add_argument("--section", help="only records whose section contains this text")
    filters.add_argument("--since", type=_date, metavar="YYYY-MM-DD")
    filters.add_argument("--until", type=_date, metavar="YYYY-MM-DD")
    search = commands.add_parser("search", parents=[common, filters], help="search by meaning and by words (zh and en)")
    search.add_argument("query")
    search.add_argument("-k", type=int, default=10, help="number of results (default 10)")
    search.add_argument(
        "--mode",
        choices=["dense", "lexical", "hybrid"],
        default="hybrid",
        help="dense: by meaning (finds the other language); lexical: by exact words, "
        "names and numbers; hybrid (default): both, fused",
    )
    search.set_defaults(handler=cmd_search)
    listing = commands.add_parser("list", parents=[common, filters], help="list records, oldest first")
    listing.add_argument("--limit", type=int, help="at most this many records")
    listing.set_defaults(handler=cmd_list)


def _date(value: str) -> dt.date:
    try:
        return dt.date.fromisoformat(value)
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"{value!r} is not a date like 2026-09-19") from err


def _open(args: argparse.Namespace, *, create: bool = False, check_model: bool = True) -> KnowledgeBase:
    with timings.phase("imports"):  # the store, faiss, numpy and pydantic: most of a cold run's own imports
        from kbsearch.kb import KnowledgeBase

    kb = KnowledgeBase.open(args.index, args.model, create=create, check_model=check_model)
    args.opened.append(kb)
    return kb


def _emit(args: argparse.Namespace, result: BaseModel, as_text: Callable[[Any], str]) -> None:
    if args.json:
        print(inert_json(result.model_dump_json(indent=2)))
    else:
        print(as_text(result))


def cmd_ingest(args: argparse.Namespace) -> int:
    from kbsearch import render

    kb = _open(args, create=True)
    with _progress("embedding") as progress:
        report = kb.ingest(args.paths, prune=args.prune, progress=progress, on_wait=_say_waiting)
    _notes(kb)
    _emit(args, report, render.ingest_text)
    if report.refused:
        print(render.refused_text(report), file=sys.stderr)
        return EXIT_PARTIAL
    return EXIT_OK


def cmd_search(args: argparse.Namespace) -> int:
    from kbsearch import render

    if args.k < 1:
        raise KbError(f"-k must be at least 1, not {args.k}")
    from kbsearch.search import SearchMode

    kb = _open(args)
    flt = _filter(args)
    response = kb.search(args.query, args.k, flt, SearchMode(args.mode))
    _notes(kb)
    if args.json:
        print(inert_json(response.model_dump_json(indent=2)))
    else:
        _print_styled(render.search_text(response))
    return EXIT_OK


def _print_styled(text: Text) -> None:
    """Print a rich ``Text``: styled on a terminal, plain otherwise. A Text is
    never parsed as markup, so brackets in record text print as they are."""
    from rich.console import Console

    Console(highlight=False, soft_wrap=True).print(text)


def _filter(args: argparse.Namespace) -> SearchFilter:
    from kbsearch.store import SearchFilter

    return SearchFilter(
        kinds=args.kind or [],
        instance=args.instance,
        topic=args.topic,
        section=args.section,
        since=args.since,
        until=args.until,
    )


def cmd_list(args: argparse.Namespace) -> int:
    from kbsearch import render

    _emit(args, _open(args, check_model=False).listing(_filter(args), args.limit), render.listing_text)
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    from kbsearch import render

    stdin_text = sys.stdin.read() if args.input == "-" else None
    kb = _open(args)
    config = kb.dedupe_config(args.config)
    result = kb.check(
        args.input, as_of=args.as_of, accept=args.accept, stdin_text=stdin_text, config=config, on_wait=_say_waiting
    )
    _notes(kb)
    _emit(args, result, render.check_text)
    return result.exit_code


def cmd_audit(args: argparse.Namespace) -> int:
    from kbsearch import render
    from kbsearch.store import SearchFilter

    flt = SearchFilter(since=args.since, until=args.until, instance=args.instance)
    kb = _open(args)
    _emit(args, kb.audit(flt, kb.dedupe_config(args.config)), render.audit_text)
    return EXIT_OK


def cmd_calibrate(args: argparse.Namespace) -> int:
    from kbsearch import render
    from kbsearch.dedupe.calibrate import calibrate
    from kbsearch.dedupe.config import load_config
    from kbsearch.embed import load_encoder
    from kbsearch.models import resolve_model

    spec = resolve_model(args.model)
    result = calibrate(args.pairs, load_encoder(spec), load_config(None, spec.dedupe))
    if args.out:
        from kbsearch.vector_index import write_atomic

        write_atomic(Path(args.out), result.config.model_dump_json(indent=2).encode())
    _emit(args, result, render.calibration_text)
    return EXIT_OK


def cmd_tui(args: argparse.Namespace) -> int:
    # Imported here: textual must stay out of every other command.
    from kbsearch.tui import run

    return run(args.index, args.model)


def cmd_show(args: argparse.Namespace) -> int:
    from kbsearch import render

    _emit(args, _open(args).show(args.id), render.record_text)
    return EXIT_OK


def cmd_stats(args: argparse.Namespace) -> int:
    from kbsearch import render

    _emit(args, _open(args, check_model=False).stats(), render.stats_text)
    return EXIT_OK


def cmd_models(args: argparse.Namespace) -> int:
    from kbsearch import render
    from kbsearch.models import load_models

    specs = load_models()
    active = _index_model(args)
    if args.json:
        print(json.dumps({"models": [s.model_dump() for s in specs], "index_model": active}, indent=2))
    else:
        print(render.models_text(specs, active))
    return EXIT_OK


def _index_model(args: argparse.Namespace) -> str | None:
    from kbsearch.kb import index_dir
    from kbsearch.store import DB_NAME, Store

    root = index_dir(args.index)
    if not (root / DB_NAME).exists():
        return None
    store = Store.open(root)
    try:
        return store.model
    finally:
        store.close()


def cmd_reindex(args: argparse.Namespace) -> int:
    from kbsearch import render

    kb = _open(args, check_model=False)
    with _progress("re-embedding") as progress:
        report = kb.reindex(progress=progress, on_wait=_say_waiting)
    _notes(kb)
    _emit(args, report, render.reindex_text)
    return EXIT_OK


def cmd_doctor(args: argparse.Namespace) -> int:
    from kbsearch import render
    from kbsearch.doctor import examine
    from kbsearch.kb import index_dir

    report = examine(index_dir(args.index))
    _emit(args, report, render.doctor_text)
    return EXIT_OK if report.healthy else EXIT_ERROR


def _notes(kb: KnowledgeBase) -> None:
    for note in kb.notes:
        print(f"kbsearch: note: {clean(note, one_line=True)}", file=sys.stderr)


def _say_waiting() -> None:
    print("kbsearch: another kbsearch run is writing to this index; waiting for it to finish…", file=sys.stderr)


class _progress:
    """A progress bar on stderr when it is a terminal; silent otherwise."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.bar: Any = None
        self.task: Any = None

    def __enter__(self) -> Callable[[int, int], None] | None:
        if not sys.stderr.isatty():
            return None
        from rich.console import Console
        from rich.progress import Progress

        self.bar = Progress(console=Console(stderr=True), transient=True)
        self.bar.start()
        self.task = self.bar.add_task(self.label, total=None)
        return self.update

    def update(self, done: int, total: int) -> None:
        self.bar.update(self.task, completed=done, total=total)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()


if __name__ == "__main__":
    run()
