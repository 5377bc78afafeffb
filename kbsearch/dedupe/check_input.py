"""What ``check`` reads: a briefing, card, JSONL or doc file, or text on stdin."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import NamedTuple

from kbsearch.errors import KbError, NoIncrementsToday
from kbsearch.limits import active_limits
from kbsearch.parse import SUPPORTED_FORMATS, check_input, parse_file, parse_json, parse_text
from kbsearch.parse.bare import NAMED_PATH, bare_record
from kbsearch.parse.common import dates_in, read_text
from kbsearch.parse.jsonl import parse_jsonl
from kbsearch.records import IdMention, Record

STDIN = "-"
CHECK_HINT = "give a briefing, paper card or JSONL file, or - for stdin"


class CheckInput(NamedTuple):
    """What check reads of its input: the items, the file they came from, the
    briefing's id-table rows, and what the parser skipped or could not tell."""

    items: list[Record]
    file: str | None
    mentions: list[IdMention]
    warnings: list[str]
    note: str | None = None
    """Why there are no items and that is no error: a briefing that says it has 0 increments today."""


def read_check_input(source: str, stdin_text: str | None) -> CheckInput:
    """The input's items and the rest (``CheckInput``), within the active limits; none on a day with no news."""
    try:
        return _read_check_input(source, stdin_text)
    except NoIncrementsToday as none:
        return no_news(none)


def no_news(none: NoIncrementsToday) -> CheckInput:
    """A briefing saying it has 0 increments: nothing to check, and a note that says so."""
    return CheckInput([], none.path, [], [], f"{none.path or '<stdin>'}: {none.message}: nothing to check or accept")


def _read_check_input(source: str, stdin_text: str | None) -> CheckInput:
    limits = active_limits()
    if source == STDIN:
        limits.check_text(stdin_text or "", "<stdin>")
        items, warnings = _from_text(stdin_text or "")
        limits.check_items(items, "<stdin>")
        return CheckInput(items, None, [], warnings)
    path = _input_file(source)
    if path.suffix.lower() == ".jsonl":
        # A local JSONL file is a pipeline's batch, of any length (a day of a feed is
        # hundreds of records): each record keeps its own limits, the whole none.
        limits = limits.per_item()
    if limits.may_exceed(path):
        limits.check_text(read_text(path), source)
    parsed = parse_file(path)
    if not parsed.records:
        raise KbError("the file has no items to check", hint=f"expected {SUPPORTED_FORMATS}", path=source)
    limits.check_items(parsed.records, source)
    return CheckInput(parsed.records, parsed.source, parsed.id_mentions, parsed.warnings)


def _input_file(source: str) -> Path:
    path = Path(source)
    if path.is_dir():
        # A check judges one incoming file; its verdicts and --accept are about that file.
        raise KbError(
            "is a folder, and check reads one file",
            hint=f"check its files one at a time, {_each_file_loop(path, source)}; "
            f"or add them all with 'kbsearch ingest {shlex.quote(source)}'",
            path=source,
        )
    if not path.is_file():
        try:
            check_input(path)  # says what is there instead: nothing, a broken link, a FIFO
        except KbError as err:
            raise KbError(err.message, hint=CHECK_HINT, path=source) from err
        raise KbError("no such file", hint=CHECK_HINT, path=source)  # gone since
    return path.resolve()


def _each_file_loop(folder: Path, source: str) -> str:
    """A shell loop checking each file of ``folder``: a glob when it holds files only,
    else ``find``, which reaches files in its subfolders (inbox/<writer>/…) too."""
    quoted = shlex.quote(source.rstrip("/") or "/")
    try:
        nested = any(entry.is_dir() for entry in folder.iterdir())
    except OSError:
        nested = True
    if nested:
        return f"find {quoted} -type f -exec kbsearch check {{}} \\;"
    return f'for f in {quoted}/*; do kbsearch check "$f"; done'


def read_input_file(source: str) -> tuple[str, str]:
    """(the file's text, its resolved path): what a client sends a server to
    check, refused here when it is over ``input_chars`` (the server would)."""
    path = _input_file(source)
    check_input(path)
    text = read_text(path)
    active_limits().check_text(text, source)
    return text, str(path)


EMPTY = ("stdin is empty", "pipe a briefing or the text of one increment into 'kbsearch check -'")
"""An empty text, named or not (the server says it as "text is empty": ``serve.words``)."""
UNNAMED_ITEM = (
    "unrecognised format: not a briefing, paper card or living doc, and its path does not name its writer and day",
    f"to check one bare item (a title and key points), give a --path naming both ({NAMED_PATH}), "
    "or leave --path out, or send it as a JSONL line with title, text, instance and date, with a --path ending "
    "in .jsonl",
)
"""What a text named by a file it is not laid out as is told: the name gives no writer or day to a bare item."""


def read_named_text(text: str, name: str) -> CheckInput:
    """As ``read_check_input`` for a file, from its text: ``name`` (the file's
    path where the text was read) picks the format and labels the records,
    and is never opened. The records' source is the path resolved as ``ingest`` and
    ``check FILE`` resolve it (a relative one against this process's working directory):
    one text sent through the server, the TUI or ``check - --path`` is then one item,
    and a later ingest of the file finds it unchanged (docs/serve.md)."""
    if not text.strip():  # as an empty text without a name is told, not "unrecognised format"
        raise KbError(EMPTY[0], hint=EMPTY[1])
    limits = active_limits()
    limits.check_text(text, name)
    path = Path(name).resolve()
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        parsed = parse_jsonl(text, path)
    elif suffix == ".json":
        parsed = parse_json(text, path)
    else:
        try:
            parsed = parse_text(text, path)
        except NoIncrementsToday as none:
            return no_news(none)
        except KbError as err:
            if err.message != "unrecognised format":
                raise
            message, hint = UNNAMED_ITEM  # a bare item: no layout to name its writer and day
            raise KbError(message, hint=hint, path=err.path, line=err.line) from err
    if not parsed.records:
        raise KbError("the file has no items to check", hint=f"expected {SUPPORTED_FORMATS}", path=name)
    limits.check_items(parsed.records, name)
    return CheckInput(parsed.records, parsed.source, parsed.id_mentions, parsed.warnings)


def _from_text(text: str) -> tuple[list[Record], list[str]]:
    """A briefing or JSONL on stdin is read as such, with what its parser warned of;
    any other text is one increment."""
    if not text.strip():
        raise KbError(EMPTY[0], hint=EMPTY[1])
    try:
        parsed = parse_text(text, Path("<stdin>"))
    except NoIncrementsToday:
        raise  # a day with no news, not one increment of plain text
    except KbError:
        parsed = None
    if parsed is not None and parsed.format in {"briefing", "jsonl"} and parsed.records:
        return parsed.records, parsed.warnings
    return [bare_record(text)], _undated_warning(text)


def _undated_warning(text: str) -> list[str]:
    """Plain text is one undated item, though it may name its day: say so, and how to date it."""
    days = dates_in(text)
    if len(days) != 1:  # none, or several: no one day to suggest
        return []
    day = days.pop().isoformat()
    return [
        f"the text names {day}, but plain text is checked, and stored by --accept, undated (compared with "
        f'records of every day): to date it, send one JSONL line {{"title": …, "text": …, "date": "{day}"}}'
    ]
