"""Living documents (e.g. ``inference.md``): one record per section.

A living doc is the accepted home of the papers it names, so the arXiv ids
of a section are its ``arxiv_ids``, not mere citations: the section is about
each of them, and ``check`` compares a new item about one with it. A section
that lists several is an overview, about none of them in particular: search
ranks the records about an id alone above it (``kbsearch.search.exact``). Sections are cut at
headings of levels 1-4; deeper headings stay inside their section's text.
A section's text excludes its sub-sections, which are records of their own.

Every section is read with the document's last-updated date (``最后更新：
2026-09-18``, ``Last updated: 2026-09-18``, ``updated:`` in the front matter;
the latest, when it says several): each was written no later than that day,
so ``check`` as of an earlier day leaves it out. A doc that states none is
stored undated, and ``check`` keeps it whatever the day. Ingest keeps the stored date of a
section whose text did not change, and the first day and text of one that did
(``ingest.section_dates``): each section is dated by the last change of its own text. A section holding
nothing but that date (a title over "Last updated: …") is no record, nor is the
doc's first section when it holds nothing but metadata (``doc_meta``: "> 维护：… ·
最后更新：…"); their ids are the file's ``not_records``, which ingest drops.

A section's id is stable under edits elsewhere in the doc: a numbered heading
(``§1.3 KV Cache``, ``1.3 KV Cache``, ``2.1. Benchmarks``) is ``#§1.3``, an
unnumbered one a slug of its heading (``## 术语表`` is ``#术语表``; a second
``Notes`` is ``#<parent slug>/notes``). Inserting, removing or reordering
other sections moves no id; only renaming or renumbering a heading does.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from kbsearch.errors import KbError
from kbsearch.parse.common import clean_block, clean_line, parse_date, split_front_matter, unique_id
from kbsearch.parse.doc_meta import metadata_only
from kbsearch.records import Kind, ParsedFile, Record
from kbsearch.text.ids import extract_arxiv_ids

_HEADING = re.compile(r"^[ ]{0,3}(#{1,4})[ \t]+(.+?)[ \t]*#*[ \t]*$")
_ANY_HEADING = re.compile(r"^[ ]{0,3}#{1,6}[ \t]+\S", re.MULTILINE)
_FENCE = re.compile(r"^[ ]{0,3}(```|~~~)")
_SECTION_NUMBER = re.compile(r"§\s*(\d+(?:\.\d+)*)")
# "1 Memory", "1.1 Episodic memory", "2.1. Benchmarks"; not "2026 outlook" nor "1.5B models".
_LEADING_NUMBER = re.compile(r"(\d{1,2}(?:\.\d{1,3})*)\.?[ \t]+\S")
_NOT_SLUG = re.compile(r"[\W_]+")
SLUG_CHARS = 60
# "最后更新：2026-09-18", "Last updated on 2026/9/18", "updated: 2026-09-18" (front matter). A bare
# "updated" or "更新" needs its colon, so "TensorRT-LLM 更新 2026-08-04 版本" in a section is not the doc's date.
_UPDATED = re.compile(
    r"(?:(?:最后|最近)更新|更新(?:日期|时间|于)|last[ _-]?(?:updated|modified)(?:\s+on)?"
    r"|(?:(?<![a-z])(?:updated|lastmod)|(?<![\u4e00-\u9fff])更新)(?=[*_\s]*:))"
    r"[*_\s]*:?[*_\s]*(\d{4}[-/.年]\d{1,2}[-/.月]\d{1,2}日?)",
    re.IGNORECASE,
)

# A line saying the date and nothing else: "Last updated: 2026-10-09", "> *最后更新：2026-09-18*".
_DATE_LINE = re.compile(rf"[>*_\s-]*(?:{_UPDATED.pattern})[*_\s.。]*", re.IGNORECASE)


@dataclass
class Section:
    line: int
    level: int
    title: str
    path: list[str]
    body: list[str] = field(default_factory=list)


def looks_like_doc(text: str) -> bool:
    return bool(_ANY_HEADING.search(text))


def parse_doc(text: str, path: Path) -> ParsedFile:
    _, body, first_line = split_front_matter(text)
    sections = split_sections(body.split("\n"), first_line, preamble_title=path.stem)
    updated, warnings = last_updated(text)
    records: list[Record] = []
    not_records: list[str] = []
    ids = _Ids(path)
    position = 0
    for section in sections:
        text = clean_block("\n".join(section.body))
        if not text or not section.title:
            continue
        # A section of nothing but the doc's date ("# agents 活文档" over "Last updated: …"),
        # or a preamble of nothing but its metadata, is no record: searches found it as noise.
        if _dated_only(text) or (section.level <= 1 and position == 0 and metadata_only(text, _UPDATED)):
            not_records.append(ids.prefix + section_key(section.title))
        else:
            records.append(_record(section, text, path, position, ids.of(section), updated))
        position += 1
    if not records:
        raise KbError(
            "living doc has no section with text",
            hint="a section needs a heading (#) and some text under it",
            path=str(path),
        )
    warnings += ids.warnings
    return ParsedFile(source=str(path), format="doc", records=records, warnings=warnings, not_records=not_records)


def last_updated(text: str) -> tuple[dt.date | None, list[str]]:
    """The latest last-updated date the document states, and a warning for each that is no day."""
    days, warnings = [], []
    for match in _UPDATED.finditer(unicodedata.normalize("NFKC", text)):
        day = parse_date(match.group(1))
        if day is None:
            warnings.append(f"last-updated date {match.group(1)} is not a day; the sections are stored undated")
        else:
            days.append(day)
    return max(days, default=None), [] if days else warnings


def split_sections(lines: list[str], first_line: int, preamble_title: str) -> list[Section]:
    """Sections in document order; text before the first heading is a preamble."""
    current = Section(first_line, 0, preamble_title, [preamble_title])
    sections = [current]
    stack: list[tuple[int, str]] = []
    in_fence = False
    for number, line in enumerate(lines, start=first_line):
        if _FENCE.match(line):
            in_fence = not in_fence
        heading = None if in_fence else _HEADING.match(line)
        if heading is None:
            current.body.append(line)
            continue
        level, title = len(heading.group(1)), _clean_heading(heading.group(2))
        # A heading closes every open heading of its level or deeper.
        stack = [(lvl, t) for lvl, t in stack if lvl < level] + [(level, title)]
        current = Section(number, level, title, [t for _, t in stack])
        sections.append(current)
    return _drop_doc_title(sections)


def _drop_doc_title(sections: list[Section]) -> list[Section]:
    # A single leading "# inference 活文档" names the document, not a chapter:
    # paths read "§1 推理引擎 > §1.3 KV Cache" without it.
    tops = [s for s in sections if s.level == 1]
    if len(tops) != 1 or len(sections) < 2 or sections[1] is not tops[0]:
        return sections
    for section in sections[2:]:
        section.path = section.path[1:]
    return sections


def _clean_heading(text: str) -> str:
    return clean_line(text.replace("**", "").replace("`", ""))


def _dated_only(text: str) -> bool:
    """Every line of ``text`` states a last-updated date and nothing more (markup aside)."""
    return all(_DATE_LINE.fullmatch(unicodedata.normalize("NFKC", line).strip()) for line in text.split("\n"))


def _record(section: Section, text: str, path: Path, position: int, rid: str, updated: dt.date | None) -> Record:
    return Record(
        id=rid,
        kind=Kind.doc_section,
        title=section.title,
        text=text,
        date=updated,
        topic=path.stem,
        arxiv_ids=extract_arxiv_ids(f"{section.title}\n{text}"),
        source=str(path),
        position=position,
        section=" > ".join(section.path),
    )


class _Ids:
    """Section ids of one doc: its number, or a slug of its heading (see the module doc)."""

    def __init__(self, path: Path) -> None:
        self.prefix, self.taken, self.warnings = f"doc/{path.stem}#", set[str](), list[str]()
        self.lines: dict[str, int] = {}

    def of(self, section: Section) -> str:
        key = section_key(section.title)
        if not key.startswith("§") and self.prefix + key in self.taken and len(section.path) > 1:
            key = f"{section_key(section.path[-2])}/{key}"
        wanted = self.prefix + key
        rid = unique_id(wanted, self.taken)
        if rid != wanted:
            self.warnings.append(
                f"line {section.line}: heading {section.title!r} repeats the id {key} of line "
                f"{self.lines[wanted]}; stored as {rid}, which moves when sections are added above it: "
                "give the heading its own number or words"
            )
        self.lines.setdefault(wanted, section.line)
        return rid


def section_key(title: str) -> str:
    """``§1.3`` for a numbered heading (``§1.3 …``, ``1.3 …``), else a slug of it."""
    number = _SECTION_NUMBER.search(title) or _LEADING_NUMBER.match(title)
    if number:
        return f"§{number.group(1)}"
    slug = _NOT_SLUG.sub("-", unicodedata.normalize("NFKC", title).casefold()).strip("-")
    return slug[:SLUG_CHARS].rstrip("-") or "h" + hashlib.sha1(title.encode()).hexdigest()[:8]
