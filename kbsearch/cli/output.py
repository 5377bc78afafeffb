"""What every command shares: opening the knowledge base, printing a result
as text or JSON, notes and waits on stderr, and a progress bar."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import kbsearch.runtime.timings as timings
from kbsearch.text.terminal import clean, inert_json

if TYPE_CHECKING:
    from pydantic import BaseModel
    from rich.text import Text

    from kbsearch.dedupe.results import CheckResult
    from kbsearch.kb import KnowledgeBase

EXIT_OK, EXIT_PARTIAL, EXIT_ERROR = 0, 1, 2


def open_kb(args: argparse.Namespace, *, create: bool = False, check_model: bool = True) -> KnowledgeBase:
    with timings.phase("imports"):  # the store, faiss, numpy and pydantic: most of a cold run's own imports
        from kbsearch.kb import KnowledgeBase

    kb = KnowledgeBase.open(args.index, args.model, create=create, check_model=check_model)
    args.opened.append(kb)
    return kb


def emit(args: argparse.Namespace, result: BaseModel, as_text: Callable[[Any], str]) -> None:
    with timings.phase("output"):
        if args.json:
            print(inert_json(result.model_dump_json(indent=2)))
        else:
            print(as_text(result))


def print_notes(kb: KnowledgeBase) -> None:
    for note in kb.notes:
        print(f"kbsearch: note: {clean(note, one_line=True)}", file=sys.stderr)


def stdin_name(args: argparse.Namespace) -> str | None:
    """The file ``check - --path FILE`` reads stdin as, resolved as ingest resolves a file (so that
    the records it accepts are the ones ingest finds later); None without ``--path``."""
    from pathlib import Path

    from kbsearch.errors import KbError

    if args.path is None:
        return None
    if args.input != "-":
        raise KbError(
            f"--path names the text read from stdin (-), and {args.input} is a file, named by itself",
            hint=f"drop --path, or pipe the file in: kbsearch check - --path {args.path} < {args.input}",
        )
    if not args.path.strip():
        raise KbError("--path is empty", hint="name the file stdin's text is published as, or leave --path out")
    return str(Path(args.path).resolve())


def warn_unnamed_stdin(args: argparse.Namespace, result: CheckResult) -> bool:
    """Add a warning to what ``check - --accept`` stored without ``--path``: ids of no file,
    which an ingest of the file published from the text does not find, and stores again."""
    from kbsearch.render import warn_unnamed

    if args.input != "-" or args.path is not None or not result.accepted:
        return False
    warn_unnamed(result)
    return True


def print_check_warnings(args: argparse.Namespace, result: CheckResult) -> None:
    """What the parser skipped or could not tell in check's input, on stderr after the verdicts
    (a gate's stdout may go to a log or nowhere); ``--json`` carries them in ``warnings``."""
    if args.json or not result.warnings:
        return
    from kbsearch.render import check_warnings

    sys.stdout.flush()  # on a terminal, after the verdicts they qualify
    for line in check_warnings(result):
        print(f"kbsearch: {line}", file=sys.stderr)


def say_waiting() -> None:
    print("kbsearch: another kbsearch run is writing to this index; waiting for it to finish…", file=sys.stderr)


class ProgressBar:
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


def print_styled(text: Text) -> None:
    """Print a rich ``Text``: styled on a terminal, plain otherwise. A Text is
    never parsed as markup, so brackets in record text print as they are."""
    with timings.phase("output"):
        from rich.console import Console

        class _Console(Console):
            def on_broken_pipe(self) -> None:
                # rich would exit with 1 here; main ends every command the same way on a closed pipe
                raise BrokenPipeError

        _Console(highlight=False, soft_wrap=True).print(text)
