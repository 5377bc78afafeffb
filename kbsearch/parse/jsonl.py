"""Canonical records: JSON Lines (one object a line) or a JSON list of objects.

This is the format other tools write to feed kbsearch directly::

    {"id": "…", "kind": "increment"|"paper_card"|"doc_section", "title": "…",
     "text": "…", "date": "2026-09-19", "instance": "tom", "topic": "inference",
     "arxiv_ids": ["2609.19671"], "tags": ["kv-cache"], "source": "…"}

Only ``title`` or ``text`` is required. ``kind`` defaults to increment, ``id``
to ``<file stem>#<line number>`` (``#<item number>`` in a JSON list),
``source`` to the file, and ``arxiv_ids``, when absent, to the ids found in
title and text. Any other Record field (claims, cited_ids, section, anchor,
number, stars, sources, credibility, relation, card_number, category,
position) is accepted. Unknown keys and impossible dates are warnings.

Anything structurally wrong (invalid JSON, not an object, no title and no
text, a wrongly typed field, a repeated id) refuses the whole file, naming
the line: a partial ingest of a machine-written file hides the bug that
produced it.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from kbsearch.errors import KbError
from kbsearch.ids import extract_arxiv_ids, normalize_arxiv_id
from kbsearch.parse.common import clean_line, parse_date, require_unicode
from kbsearch.records import Kind, ParsedFile, Record

_FIELDS = set(Record.model_fields)
_DERIVED = {"content_hash"}  # written by model_dump(); recomputed, never read
_KINDS = ", ".join(k.value for k in Kind)


def parse_jsonl(text: str, path: Path) -> ParsedFile:
    items: list[tuple[int, Any]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            items.append((number, load_json(line, path, number)))
    return records_from_objects(items, path, unit="line")


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
    data["arxiv_ids"] = _arxiv_ids(data, where, warnings)
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


def _arxiv_ids(data: dict[str, Any], where: _Where, warnings: list[str]) -> list[str]:
    raw = data.get("arxiv_ids")
    if raw is None:
        return extract_arxiv_ids(f"{data.get('title', '')}\n{data.get('text', '')}")
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list) or not all(isinstance(i, str) for i in raw):
        raise where.error("'arxiv_ids' must be a list of strings")
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
