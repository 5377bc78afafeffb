"""Canonical records: JSON Lines (one object a line) or a JSON list of objects.

This is the format other tools write to feed kbsearch directly::

    {"id": "…", "kind": "increment"|"paper_card"|"doc_section", "title": "…",
     "text": "…", "date": "2026-09-19", "instance": "tom", "topic": "inference",
     "arxiv_ids": ["2609.19671"], "tags": ["kv-cache"], "source": "…"}

Only ``title`` or ``text`` is required. ``kind`` defaults to increment, ``id``
to ``<file stem>#<line number>`` (``#<item number>`` in a JSON list),
``source`` to the file, and ``arxiv_ids``, when absent, to the ids found in
title and text that ``cited_ids`` does not list (an id given in both lists is
refused). Any other Record field (claims, cited_ids, section, anchor,
number, stars, sources, credibility, relation, card_number, category,
position) is accepted. Unknown keys and impossible dates are warnings.

Anything structurally wrong (invalid JSON, not an object, no title and no
text, a wrongly typed field, an empty or repeated id) refuses the whole file, naming
the line: a partial ingest of a machine-written file hides the bug that
produced it.

A ``.jsonl`` file is read one line at a time (``iter_jsonl``): its length is
not limited, one line is (``MAX_LINE_BYTES``), and memory does not grow with
the number of lines. Repeated ids are found through a temporary on-disk
SQLite table rather than a set in memory, and warnings are capped per file.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from kbsearch.errors import KbError
from kbsearch.parse.common import clean_line, decode, parse_date, require_unicode
from kbsearch.records import IdMention, Kind, ParsedFile, Record
from kbsearch.text.ids import extract_arxiv_ids, normalize_arxiv_id

_FIELDS = set(Record.model_fields)
_DERIVED = {"content_hash"}  # written by model_dump(); recomputed, never read
_KINDS = ", ".join(k.value for k in Kind)
MAX_LINE_BYTES = 10 * 2**20
"""The longest line a .jsonl file may hold: the limit is per record, not per file."""
MAX_WARNINGS = 20
"""Warnings kept per file; a bulk file with one problem on every line says so once, with a count."""
_GB18030 = "not UTF-8; read as GB18030 Chinese"


def parse_jsonl(text: str, path: Path) -> ParsedFile:
    items: list[tuple[int, Any]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            items.append((number, load_json(line, path, number)))
    return records_from_objects(items, path, unit="line")


def iter_jsonl(path: Path, warnings: list[str]) -> Iterator[Record]:
    """The records of a .jsonl file, one line at a time; KbError naming the line
    for the first structural problem. ``warnings`` collects the rest (capped)."""
    ids = _IdLedger(path)
    count = 0
    try:
        for number, line in _lines(path, warnings):
            where = _Where(path, "line", number)
            record = _record(load_json(line, path, number), where, count, warnings)
            ids.add(record.id, where)
            count += 1
            yield record
    finally:
        ids.close()
    if count == 0:
        raise KbError("file is empty", hint="nothing to ingest", path=str(path))


class JsonlFile:
    """A .jsonl input checked once before the write and read again inside it,
    so that its records are never all in memory (``kbsearch ingest``)."""

    format = "jsonl"

    def __init__(self, path: Path) -> None:
        self.path = path
        self.source = str(path)
        self.count = 0
        self.warnings: list[str] = []
        self.id_mentions: list[IdMention] = []
        self.not_records: list[str] = []
        self._stamp = _stamp(path)

    @classmethod
    def checked(cls, path: Path) -> JsonlFile:
        """Read every line once; KbError naming the first bad line."""
        stream = cls(path)
        warnings = CappedWarnings()
        for _ in iter_jsonl(path, warnings):
            stream.count += 1
        stream.warnings = warnings.summary()
        return stream

    def iter_records(self) -> Iterator[Record]:
        """The records again, as checked; KbError if the file changed since."""
        if _stamp(self.path) != self._stamp:
            raise KbError("file changed while it was being ingested", hint="run the ingest again", path=self.source)
        yield from iter_jsonl(self.path, [])


def _stamp(path: Path) -> tuple[int, int, int]:
    try:
        info = path.stat()
    except OSError as exc:
        raise KbError(f"cannot read file: {exc.strerror}", path=str(path)) from exc
    return (info.st_ino, info.st_size, info.st_mtime_ns)


class CappedWarnings(list[str]):
    """A warning list that keeps the first ``MAX_WARNINGS`` and counts the rest."""

    def __init__(self) -> None:
        super().__init__()
        self.dropped = 0

    def append(self, item: str) -> None:
        if len(self) < MAX_WARNINGS:
            super().append(item)
        else:
            self.dropped += 1

    def summary(self) -> list[str]:
        more = [f"and {self.dropped} more warnings like these"] if self.dropped else []
        return [*self, *more]


def _lines(path: Path, warnings: list[str]) -> Iterator[tuple[int, str]]:
    """(line number, text) of each non-blank line, decoded one line at a time."""
    with path.open("rb") as handle:
        if handle.read(2) in (b"\xff\xfe", b"\xfe\xff"):
            raise KbError("file is UTF-16", hint="save it as UTF-8", path=str(path))
        handle.seek(0)
        for number in itertools.count(1):
            raw = handle.readline(MAX_LINE_BYTES + 1)
            if not raw:
                return
            if len(raw) > MAX_LINE_BYTES:
                raise KbError(
                    f"line is longer than {MAX_LINE_BYTES // 2**20} MB",
                    hint="put one record per line; split a longer text into several records",
                    path=str(path),
                    line=number,
                )
            text = _decode_line(raw.removeprefix(b"\xef\xbb\xbf") if number == 1 else raw, path, number, warnings)
            if text.strip():
                yield number, text


def _decode_line(raw: bytes, path: Path, number: int, warnings: list[str]) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        pass
    found: list[str] = []
    try:
        text = decode(raw, path, found)
    except KbError as err:  # located within the line; say which line
        raise KbError(err.message, hint=err.hint, path=str(path), line=number) from err
    if found and _GB18030 not in warnings:
        warnings.append(_GB18030)
    return text


class _IdLedger:
    """Ids seen so far in one file, in a temporary on-disk table: a million ids
    in a Python set would make memory grow with the file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.db = sqlite3.connect("")  # a private temporary database, deleted on close
        self.db.execute("CREATE TABLE ids (id TEXT PRIMARY KEY, line INTEGER)")

    def add(self, record_id: str, where: _Where) -> None:
        try:
            self.db.execute("INSERT INTO ids VALUES (?, ?)", (record_id, where.number))
        except sqlite3.IntegrityError:
            (first,) = self.db.execute("SELECT line FROM ids WHERE id = ?", (record_id,)).fetchone()
            both = f"first on line {first}, again on line {where.number}"
            raise where.error(f"duplicate id {record_id!r} ({both})", hint="ids must be unique within a file") from None

    def close(self) -> None:
        self.db.close()


def load_json(text: str, path: Path, line: int | None = None) -> Any:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        at = line if line is not None else exc.lineno
        raise KbError(f"invalid JSON: {exc.msg} (column {exc.colno})", path=str(path), line=at) from exc
    except (ValueError, RecursionError) as exc:  # over-deep nesting, over-long integers
        raise KbError(f"unreadable JSON: {clean_line(str(exc))[:80]}", path=str(path), line=line) from exc
    require_unicode(value, path, line)
    return value


def records_from_objects(items: list[tuple[int, Any]], path: Path, unit: str) -> ParsedFile:
    """Records from (line or item number, object) pairs; ``unit`` names the numbers."""
    records: list[Record] = []
    warnings: list[str] = []
    first_seen: dict[str, int] = {}
    for number, obj in items:
        where = _Where(path, unit, number)
        record = _record(obj, where, len(records), warnings)
        if record.id in first_seen:
            both = f"first on {unit} {first_seen[record.id]}, again on {unit} {number}"
            raise where.error(f"duplicate id {record.id!r} ({both})", hint="ids must be unique within a file")
        first_seen[record.id] = number
        records.append(record)
    if not records:
        raise KbError("no records in file", path=str(path))
    return ParsedFile(source=str(path), format="jsonl", records=records, warnings=warnings)


@dataclass
class _Where:
    """Where an object came from, so every error names file and line."""

    path: Path
    unit: str
    number: int

    def error(self, message: str, hint: str | None = None) -> KbError:
        if self.unit == "line":
            return KbError(message, hint=hint, path=str(self.path), line=self.number)
        return KbError(f"{self.unit} {self.number}: {message}", hint=hint, path=str(self.path))

    def label(self) -> str:
        return f"{self.unit} {self.number}"


def _record(obj: Any, where: _Where, position: int, warnings: list[str]) -> Record:
    if not isinstance(obj, dict):
        raise where.error(f"expected a JSON object, got {type(obj).__name__}")
    data = {k: v for k, v in obj.items() if k in _FIELDS}
    unknown = sorted(k for k in obj if k not in _FIELDS and k not in _DERIVED)
    if unknown:
        warnings.append(f"{where.label()}: ignored unknown keys: {', '.join(unknown)}")
    _check_text(data, where)
    data.setdefault("kind", Kind.increment.value)
    data.setdefault("id", f"{where.path.stem}#{where.number}")
    data.setdefault("source", str(where.path))
    data.setdefault("position", position)
    data["date"] = _date(data.get("date"), where, warnings)
    _read_ids(data, where, warnings)
    if isinstance(data.get("instance"), str):
        data["instance"] = data["instance"].strip().lower() or None
    try:
        return Record.model_validate(data)
    except ValidationError as exc:
        raise where.error(*_first_problem(exc)) from exc


def _check_text(data: dict[str, Any], where: _Where) -> None:
    for key in ("title", "text"):
        if key in data and data[key] is not None and not isinstance(data[key], str):
            raise where.error(f"{key!r} must be a string, not {type(data[key]).__name__}")
        if data.get(key) is None:
            data.pop(key, None)
    # Checked after cleaning: a title made only of escape codes is no title.
    data["title"] = clean_line(data.get("title", ""))
    if not (data["title"] or data.get("text", "").strip()):
        raise where.error("record has neither title nor text", hint="give at least one of them")
    if isinstance(data.get("id"), str) and not data["id"].strip():
        # Stored, an empty id could be neither shown nor removed: 'show ""' is no way to name a record.
        raise where.error(
            "id is empty" if not data["id"] else "id is blank (whitespace only)",
            hint=f"give the record an id, or leave the 'id' field out and it gets {where.path.stem}#{where.number}",
        )
    if isinstance(data.get("id"), str) and clean_line(data["id"]) != data["id"]:
        raise where.error(
            f"id {data['id']!a} holds control characters or surrounding spaces",
            hint="ids are typed back on the command line: keep them plain",
        )


def _date(raw: Any, where: _Where, warnings: list[str]) -> dt.date | None:
    if raw is None or raw == "":
        return None
    date = parse_date(raw)
    if date is None:
        warnings.append(f"{where.label()}: invalid date {str(raw)[:40]!r}; kept without a date")
    return date


def _read_ids(data: dict[str, Any], where: _Where, warnings: list[str]) -> None:
    """``arxiv_ids``, the ids the record is about, and ``cited_ids``, those it
    only cites, both normalized. An id cited is not also one the record is
    about: ids derived from the text leave the cited ones out, and an id given
    in both lists is refused, as the writer contradicts itself."""
    cited = _given_ids(data, "cited_ids", where, warnings) or []
    about = _given_ids(data, "arxiv_ids", where, warnings)
    if about is None:
        found = extract_arxiv_ids(f"{data.get('title', '')}\n{data.get('text', '')}")
        about = [i for i in found if i not in cited]
    both = [i for i in about if i in cited]
    if both:
        verb = "is" if len(both) == 1 else "are"
        raise where.error(
            f"{', '.join(both)} {verb} in both 'arxiv_ids' (what the record is about) "
            "and 'cited_ids' (what it only cites)",
            hint="keep each id in one list: arxiv_ids if the record is about the paper, cited_ids if it only cites it",
        )
    data["arxiv_ids"], data["cited_ids"] = about, cited


def _given_ids(data: dict[str, Any], key: str, where: _Where, warnings: list[str]) -> list[str] | None:
    """The normalized ids of ``key``, or None when the record does not give it."""
    raw = data.get(key)
    if raw is None:
        return None
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list) or not all(isinstance(i, str) for i in raw):
        raise where.error(f"{key!r} must be a list of strings")
    ids = [normalize_arxiv_id(i) for i in raw]
    for original, ident in zip(raw, ids, strict=True):
        if ident is None:
            warnings.append(f"{where.label()}: {original[:40]!r} is not an arXiv id; dropped")
    return list(dict.fromkeys(i for i in ids if i))


def _first_problem(exc: ValidationError) -> tuple[str, str | None]:
    """(message, hint) for the first thing pydantic refused."""
    error = exc.errors()[0]
    field = ".".join(str(p) for p in error.get("loc", ())) or "record"
    hint = f"kind is one of: {_KINDS}" if field == "kind" else None
    return f"field {field!r}: {error.get('msg', 'invalid value')}", hint
