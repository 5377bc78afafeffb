"""Paper cards: one paper each, as markdown with YAML front matter or as JSON.

A markdown card is ``---`` YAML front matter, ``---``, then a markdown body.
A JSON card is one object, and a ``.json`` file may hold a list of them.

| key        | alias         | meaning                                                      |
|------------|---------------|--------------------------------------------------------------|
| `card`     | `card_number` | card number, e.g. `1422` (kept as text)                      |
| `arxiv_id` | `arxiv`       | arXiv id in any form (`arXiv:2609.19671v2`); normalized      |
| `title`    |               | paper title                                                  |
| `category` | `primary`     | primary category, e.g. `inference`                           |
| `tags`     | `secondary`   | secondary categories: a list, or text split on `,，、;；`      |
| `date`     |               | `YYYY-MM-DD`                                                 |
| `tldr`     |               | short summary                                                |
| `instance` |               | the writer (tom, jay, ...); lower-cased                      |
| `topic`    |               | topic, e.g. `inference`                                      |
| `id`       |               | record id; default `card/<card>`, else `card/<file stem>`    |
|            |               | (JSON lists: `card/<stem>-<item>`)                           |
| `body`     | `text`        | JSON cards only: the body (markdown cards use the text after |
|            |               | the front matter)                                            |

An id names one card, never the paper: a paper gets a second card when it is
revised or read again (card 1450 after card 1422, both about 2609.19671), and
the two must stay two records, so that the second is checked against the
first rather than taking its place.

A card needs at least one of title, tldr and body. The record's text is the
tldr, then the body. An impossible date (2026-13-45) or arXiv id keeps the
card, without that value, and adds a warning: bad metadata should not cost
the content. Unknown keys are ignored with one warning naming them.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

import yaml

from kbsearch.errors import KbError
from kbsearch.parse.common import (
    clean_block,
    clean_line,
    parse_date,
    require_unicode,
    split_front_matter,
    split_list,
)
from kbsearch.records import Kind, ParsedFile, Record
from kbsearch.text.ids import extract_arxiv_ids, normalize_arxiv_id

_ALIASES = {
    "arxiv": "arxiv_id",
    "secondary": "tags",
    "primary": "category",
    "card_number": "card",
    "text": "body",
}
_KNOWN = {"card", "arxiv_id", "title", "category", "tags", "date", "tldr", "instance", "topic", "id", "body"}
# Keys that only a paper card has: a doc's front matter may carry a title too.
CARD_SIGNAL_KEYS = ("card", "card_number", "arxiv_id", "arxiv", "tldr")
_SIGNAL = re.compile(rf"^(?:{'|'.join(CARD_SIGNAL_KEYS)})[ \t]*:", re.MULTILINE)
_HEADING = re.compile(r"^#{1,6}[ \t]+(.+)$", re.MULTILINE)


class _CardLoader(yaml.SafeLoader):
    """safe_load, except that floats and timestamps stay text.

    ``arxiv_id: 2607.10000`` must not become the float 2607.1, and
    ``date: 2026-13-45`` must not raise inside the YAML library.
    """


_CardLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if not tag.endswith((":float", ":timestamp"))]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def has_card_front_matter(text: str) -> bool:
    front, _, _ = split_front_matter(text)
    return front is not None and bool(_SIGNAL.search(front))


def parse_card_markdown(text: str, path: Path) -> ParsedFile:
    front, body, _ = split_front_matter(text)
    data = _load_yaml(front or "", path)
    warnings: list[str] = []
    record = card_record(data, body, path, warnings, fallback=path.stem)
    return ParsedFile(source=str(path), format="paper_card", records=[record], warnings=warnings)


def parse_card_objects(items: list[Any], path: Path) -> ParsedFile:
    """Cards from a JSON object (a one-item list) or list of objects."""
    warnings: list[str] = []
    records: list[Record] = []
    first_item: dict[str, int] = {}
    for number, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            raise KbError(f"item {number} is not a card object", path=str(path))
        fallback = path.stem if len(items) == 1 else f"{path.stem}-{number}"
        record = card_record(item, "", path, warnings, fallback)
        if record.id in first_item:
            raise KbError(
                f"duplicate card id {record.id!r} in items {first_item[record.id]} and {number}",
                hint="give each card its own card number or id",
                path=str(path),
            )
        first_item[record.id] = number
        record.position = number - 1
        records.append(record)
    if not records:
        raise KbError("JSON list holds no cards", path=str(path))
    return ParsedFile(source=str(path), format="paper_card", records=records, warnings=warnings)


def _load_yaml(front: str, path: Path) -> dict[str, Any]:
    try:
        data = yaml.load(front, Loader=_CardLoader)  # a SafeLoader subclass: no object tags
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else None  # +1 for 0-based, +1 for the --- line
        raise KbError("broken YAML front matter", hint=_yaml_problem(exc), path=str(path), line=line) from exc
    except RecursionError as exc:
        raise KbError("YAML front matter is nested too deeply", path=str(path)) from exc
    if not isinstance(data, dict):
        raise KbError("front matter is not a key: value mapping", path=str(path))
    require_unicode(data, path)
    return {str(k): v for k, v in data.items()}


def _yaml_problem(exc: yaml.YAMLError) -> str:
    problem = getattr(exc, "problem", None)
    return clean_line(str(problem or exc))[:120]


def card_record(data: dict[str, Any], body: str, path: Path, warnings: list[str], fallback: str) -> Record:
    fields = _canonical_keys(data, warnings)
    title = _text(fields, "title", path)
    tldr = _text(fields, "tldr", path, block=True)
    body = clean_block(body) or _text(fields, "body", path, block=True)
    if not (title or tldr or body):
        raise KbError("paper card has no title, tldr or body", hint="add at least a title", path=str(path))
    arxiv_id = _arxiv_id(fields, warnings)
    card_number = _text(fields, "card", path) or None
    text = "\n".join(p for p in (tldr, body) if p)
    return Record(
        id=_text(fields, "id", path) or f"card/{card_number or fallback}",
        kind=Kind.paper_card,
        title=title or _first_heading(body),
        text=text,
        date=_date(fields, warnings),
        instance=(_text(fields, "instance", path) or "").lower() or None,
        topic=_text(fields, "topic", path) or None,
        arxiv_ids=[arxiv_id] if arxiv_id else [],
        cited_ids=[i for i in extract_arxiv_ids(text) if i != arxiv_id],
        tags=split_list(fields.get("tags")),
        source=str(path),
        card_number=card_number,
        category=_text(fields, "category", path) or None,
    )


def _canonical_keys(data: dict[str, Any], warnings: list[str]) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    unknown: list[str] = []
    for key, value in data.items():
        name = _ALIASES.get(key.lower(), key.lower())
        if name in _KNOWN:
            fields.setdefault(name, value)
        else:
            unknown.append(key)
    if unknown:
        warnings.append(f"ignored unknown card keys: {', '.join(sorted(unknown))}")
    return fields


def _text(fields: dict[str, Any], key: str, path: Path, *, block: bool = False) -> str:
    value = fields.get(key)
    if value is None or isinstance(value, bool):
        return ""
    if isinstance(value, (str, int, float)):
        return clean_block(str(value)) if block else clean_line(str(value))
    raise KbError(f"card field {key!r} must be text, not {type(value).__name__}", path=str(path))


def _arxiv_id(fields: dict[str, Any], warnings: list[str]) -> str | None:
    raw = fields.get("arxiv_id")
    if raw is None or raw == "":
        return None
    ident = normalize_arxiv_id(str(raw))
    if ident is None:
        warnings.append(f"arxiv_id {clean_line(str(raw))[:40]!r} is not an arXiv id; ignored")
    return ident


def _date(fields: dict[str, Any], warnings: list[str]) -> dt.date | None:
    raw = fields.get("date")
    if raw is None or raw == "":
        return None
    date = parse_date(raw)
    if date is None:
        warnings.append(f"invalid date {clean_line(str(raw))[:40]!r}; kept without a date")
    return date


def _first_heading(body: str) -> str:
    match = _HEADING.search(body)
    return clean_line(match.group(1).strip("# ")) if match else ""
