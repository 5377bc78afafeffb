"""A bare item: a title line and key points, no briefing header, card or doc layout.

It is what an agent writes when it has one finding. Its text alone names no writer or
day, so on stdin it is one undated ``stdin#…`` item (``bare_record``); named by a path
that carries both as a briefing file's does (``inbox/<writer>/<YYYY-MM-DD>-….md``), it is
a one-item briefing of that writer and day (``parse_bare``), for check, accept and
ingest alike. Title and text are read the same either way, so the same note is the same
item to a check with or without its path.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from kbsearch.parse.briefing import dated_stem, day_from_path, instance_from_path
from kbsearch.records import Kind, ParsedFile, Record
from kbsearch.text.ids import extract_arxiv_ids

NAMED_PATH = "inbox/WRITER/YYYY-MM-DD-….md"
"""The path convention that gives a bare item its writer and day (the briefing parser's)."""


def _one_finding(text: str) -> bool:
    lines = [line for line in text.splitlines() if line.strip()]
    return len(lines) <= MAX_LINES and len(_ITEM_START.findall(text)) < 2


def bare_record(text: str) -> Record:
    """One undated item of ``text``: its first line the title, the other lines its text,
    its id ``stdin#`` and a digest of the text."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]
    return Record(
        id=f"stdin#{digest}",
        kind=Kind.increment,
        title=lines[0][:300],
        text="\n".join(lines[1:]),
        arxiv_ids=extract_arxiv_ids(text),
    )


_ITEM_START = re.compile(r"^\s*(?:增量|Increment|Item|Finding)\s*\d+", re.IGNORECASE | re.MULTILINE)
MAX_LINES = 40
"""A bare item is one finding, a title and a few key points: a longer text, or one numbering
several items ("Increment 2: …"), is a briefing in a layout the parser does not know, and
stored as one item it would be one record of many findings."""


def parse_bare(text: str, path: Path) -> ParsedFile | None:
    """``text`` as a one-item briefing of the writer and day ``path`` names; None when it names
    either not (the caller refuses the text then, as an unrecognised format), the text is empty,
    or it is no single finding (``MAX_LINES``)."""
    writer, day = instance_from_path(path), day_from_path(path)
    if writer is None or day is None or not text.strip() or not _one_finding(text):
        return None
    named = {"id": f"{writer}/{dated_stem(path.stem, day)}#1", "instance": writer, "date": day}
    record = bare_record(text).model_copy(update={**named, "source": str(path), "number": 1})
    return ParsedFile(source=str(path), format="briefing", records=[record])
