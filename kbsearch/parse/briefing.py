"""E1 briefings (``<topic> · E1 预消化简报(<date>)``) → increment records.

A briefing is a header (topic, date, writer), numbered increments
(``增量 N：Title（⭐⭐⭐）`` or ``增量 N【…】🟢 Title ★★★``) and top-level
sections such as the "可引用 arXiv 号列表" table. Each increment becomes one
Record; the table becomes IdMention rows. One broken increment costs only
itself: it is reported in ``ParsedFile.warnings`` and the rest is kept.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path

from kbsearch.errors import KbError, NoIncrementsToday
from kbsearch.parse.common import clean_line, parse_date, split_list, unique_id
from kbsearch.parse.id_table import Context, is_id_table_title, read_id_table
from kbsearch.parse.increment import (
    INCREMENT_HEADER,
    Fields,
    all_ids,
    read_fields,
    read_header,
    subject_ids,
)
from kbsearch.records import IdMention, Kind, ParsedFile, Record

E1_HEADER = re.compile(r"E1\s*预消化简报")
# 一、… 二、… : the briefing's own top-level sections end any increment.
_SECTION = re.compile(r"^[ \t]*(?:#{1,6}[ \t]*)?(?:\*\*)?[一二三四五六七八九十]{1,3}[ \t]*[、.．]")
_HEADING = re.compile(r"^[ \t]*(#{1,6})[ \t]+\S")
_NAME = r"([A-Za-z][A-Za-z0-9_-]*)"
_INSTANCE_IN_TEXT = (
    re.compile(rf"^[ \t>*-]*执行[ \t]*[：:][ \t]*{_NAME}", re.MULTILINE),
    re.compile(rf"本报告由[ \t]*{_NAME}[ \t]*实例"),
)
_SIGNATURE = re.compile(rf"^[ \t>*—―–-]*{_NAME}[ \t]*[·•][ \t]*(\d{{4}}-\d{{1,2}}-\d{{1,2}})")
# The signature's time of day, when it gives one after the date: 'Tom · 2026-10-05 22:20'.
_SIGNED_AT = re.compile(rf"{_SIGNATURE.pattern}[ \t]+(\d{{1,2}})[:：](\d{{2}})(?!\d)")
# '—— Nova', '——Nova', '-- Nova 实例': dashes and a bare name, nothing else. ASCII
# dashes need a space after them, so a last key point '--enable-x' stays a point.
_DASH_SIGNATURE = re.compile(rf"^[ \t>*_]*(?:[—―–]+[ \t]*|-{{2,}}[ \t]+){_NAME}(?:[ \t]*实例(?:自动生成)?)?[ \t*_]*$")
# A line that is the writer's signature, not text of the increment above it.
_SIGNED_BY = re.compile(rf"^[ \t>*_-]*本报告由[ \t]*{_NAME}[ \t]*实例")
_SIGNED_BY_AT = re.compile(
    rf"{_SIGNED_BY.pattern}[^·•\n]*[·•][ \t]*(\d{{4}}-\d{{1,2}}-\d{{1,2}})[ \t]+(\d{{1,2}})[:：](\d{{2}})(?!\d)"
)
NO_WRITER = (
    "no writer named (a '本报告由 NAME 实例' line, a last line 'NAME · DATE' or '—— NAME', or the folder "
    "inbox/NAME/): "
    "its records have no instance, so audit cannot tell who said them first"
)
NO_DATE = (
    "no date named (no '(YYYY-MM-DD)' in the E1 header line, none in the file name): its items' ids carry "
    "none, so the same file ingested again on another day replaces them; put the date in the header as "
    "'(YYYY-MM-DD)' or in the file name"
)
_FILE_DATE = re.compile(r"^(\d{4}-\d{2}-\d{2})")
# Any date dated_stem would recognise in a stem: 2026-09-20, 20260920, 2026_09_20.
_STEM_DATE = re.compile(r"(?<!\d)\d{4}([-_]?)(?:0[1-9]|1[0-2])\1(?:0[1-9]|[12]\d|3[01])(?!\d)")
_HEADER_SCAN_LINES = 15
# '- 增量条数：0 条' in the status summary: a briefing of a day with no news (NoIncrementsToday).
_ZERO_COUNT = re.compile(
    r"^[ \t>*-]*(?:\*\*)?增量条数(?:\*\*)?[ \t]*[：:][ \t]*(?:\*\*)?0[ \t]*(?:\*\*)?[ \t]*条?[ \t*]*$"
)


@dataclass
class Meta:
    topic: str | None = None
    date: dt.date | None = None
    instance: str | None = None
    signed_at: str | None = None
    warnings: list[str] = field(default_factory=list)


@dataclass
class Block:
    line: int
    header: str
    level: int
    body: list[str] = field(default_factory=list)


def looks_like_briefing(text: str) -> bool:
    return _e1_header(text.split("\n")) is not None or bool(INCREMENT_HEADER.search(text))


def _e1_header(lines: list[str]) -> str | None:
    # Only near the top: a doc or card may mention "E1 预消化简报" in passing.
    head = [line for line in lines if line.strip()][:_HEADER_SCAN_LINES]
    return next((line for line in head if E1_HEADER.search(line)), None)


def parse_briefing(text: str, path: Path) -> ParsedFile:
    lines = text.split("\n")
    meta = read_meta(lines, path)
    blocks = split_increments(lines)
    if not blocks:
        header = _e1_header(lines)
        if zero := next((n for n, line in enumerate(lines, 1) if _ZERO_COUNT.match(line)), None):
            raise NoIncrementsToday(
                "briefing has no increments today (its count line says 0)",
                hint="nothing to check or accept",
                path=str(path),
                line=zero,
            )
        raise KbError(
            "briefing has no increments",
            hint="expected lines such as '增量 1：Title（⭐⭐⭐）'",
            path=str(path),
            line=lines.index(header) + 1 if header is not None else None,
        )
    records = _records(blocks, meta, path)
    if not records:
        raise KbError(
            "briefing has no usable increment",
            hint="; ".join(meta.warnings[:3]),
            path=str(path),
            line=blocks[0].line,
        )
    mentions = _mentions(lines, meta, path)
    return ParsedFile(
        source=str(path),
        format="briefing",
        records=records,
        id_mentions=mentions,
        warnings=meta.warnings,
    )


def read_meta(lines: list[str], path: Path) -> Meta:
    meta = Meta()
    header = _e1_header(lines)
    invalid = _read_header_line(header, meta) if header is not None else None
    if meta.date is None:
        meta.date = day_from_path(path)
    if invalid is not None:
        undated = "undated (no date read from the file name either)"
        used = f"dated {meta.date} from the file name instead" if meta.date else undated
        meta.warnings.append(f"briefing header has an invalid date: {invalid}; its items are {used}")
    meta.instance = _instance_from_text(lines) or instance_from_path(path)
    meta.signed_at = signed_at(lines, meta.date)
    if meta.instance is None:
        meta.warnings.append(NO_WRITER)
    # Undated items of a dated file still get ids of their own (the stem carries
    # the day); those of an undated file such as inbox/NAME/today.md do not.
    if meta.date is None and not _STEM_DATE.search(path.stem):
        meta.warnings.append(NO_DATE)
    return meta


def _read_header_line(line: str, meta: Meta) -> str | None:
    """Topic and date into ``meta``; the date as written when it is not a real day."""
    before, after = E1_HEADER.split(line, maxsplit=1)
    topic = clean_line(before.replace("#", "").replace("*", "")).rstrip("·•|:：—- ")
    meta.topic = topic or None
    meta.date = parse_date(after)
    return clean_line(after)[:40] if meta.date is None and re.search(r"\d{4}", after) else None


def _instance_from_text(lines: list[str]) -> str | None:
    text = "\n".join(lines)
    for pattern in _INSTANCE_IN_TEXT:
        match = pattern.search(text)
        if match:
            return match.group(1).lower()
    last = next((line for line in reversed(lines) if line.strip()), "")
    signature = _last_line_signature(last)
    return signature.group(1).lower() if signature else None


def _last_line_signature(line: str) -> re.Match[str] | None:
    # Only as the last line: elsewhere 'NAME · DATE' or '-- NAME' may be text of an item.
    return _SIGNATURE.match(line) or _DASH_SIGNATURE.match(line)


def signed_at(lines: list[str], date: dt.date | None) -> str | None:
    """ "HH:MM" of a last line 'NAME · DATE HH:MM', or of a line '本报告由 NAME 实例自动生成 ·
    DATE HH:MM' anywhere (the real briefings put notes after it), whose date is the briefing's
    own: the time another day's signature gives says nothing of the order within its day."""
    last = next((line for line in reversed(lines) if line.strip()), "")
    match = _SIGNED_AT.match(last) or next(filter(None, map(_SIGNED_BY_AT.match, lines)), None)
    if match is None or date is None or parse_date(match.group(2)) != date:
        return None
    hour, minute = int(match.group(3)), int(match.group(4))
    return f"{hour:02d}:{minute:02d}" if hour < 24 and minute < 60 else None


def instance_from_path(path: Path) -> str | None:
    """The writer a path names: inbox/<instance>/… is where the writers drop their briefings,
    dated files (2026-09-19-….md), or one file a writer reuses every day."""
    parts = path.parts
    if len(parts) >= 3 and parts[-3] == "inbox":
        return parts[-2].lower()
    return None


def day_from_path(path: Path) -> dt.date | None:
    """The day a file's name starts with (2026-09-19-….md), if a real one."""
    match = _FILE_DATE.match(path.name)
    return parse_date(match.group(1)) if match else None


def split_increments(lines: list[str]) -> list[Block]:
    blocks: list[Block] = []
    current: Block | None = None
    last = _last_text_line(lines)
    for number, line in enumerate(lines, start=1):
        match = INCREMENT_HEADER.match(line)
        if match:
            current = Block(number, line, len(match.group("hashes") or ""))
            blocks.append(current)
        elif current is not None and (_ends_increment(line, current) or _is_signature(line, number == last)):
            current = None
        elif current is not None:
            current.body.append(line)
    return blocks


def _last_text_line(lines: list[str]) -> int:
    return next((number for number in range(len(lines), 0, -1) if lines[number - 1].strip()), 0)


def _is_signature(line: str, is_last: bool) -> bool:
    # A writer may sign right under the last increment, with no section between:
    # the signature names the writer and must not become part of the last field.
    # 'NAME · DATE' and '—— NAME' are signatures only as the last line, as for _instance_from_text.
    return bool(_SIGNED_BY.match(line) or (is_last and _last_line_signature(line)))


def _ends_increment(line: str, block: Block) -> bool:
    if _SECTION.match(line):
        return True
    heading = _HEADING.match(line)
    if heading is None:
        return False
    # A sub-heading inside a heading-style increment belongs to it.
    return block.level == 0 or len(heading.group(1)) <= block.level


def _records(blocks: list[Block], meta: Meta, path: Path) -> list[Record]:
    records: list[Record] = []
    taken: set[str] = set()
    for block in blocks:
        try:
            record = _record(block, meta, path, len(records), taken)
        except ValueError as exc:  # pydantic's ValidationError is a ValueError
            meta.warnings.append(f"line {block.line}: increment skipped: {clean_line(str(exc))[:120]}")
            continue
        if record is not None:
            records.append(record)
    return records


def _record(block: Block, meta: Meta, path: Path, position: int, taken: set[str]) -> Record | None:
    header = read_header(block.header)
    if header is None or not header.title:
        meta.warnings.append(f"line {block.line}: increment without a title; skipped")
        return None
    if header.problem:
        meta.warnings.append(f"line {block.line}: the header of increment {header.number} {header.problem}")
    fields = read_fields(block.body)
    subjects = subject_ids(header, fields)
    wanted = f"{meta.instance or 'unknown'}/{dated_stem(path.stem, meta.date)}#{header.number}"
    record_id = unique_id(wanted, taken)
    if record_id != wanted:
        meta.warnings.append(f"line {block.line}: increment number {header.number} repeats; id {record_id}")
    return Record(
        id=record_id,
        kind=Kind.increment,
        title=header.title,
        text=_body_text(fields),
        date=meta.date,
        instance=meta.instance,
        signed_at=meta.signed_at,
        topic=meta.topic,
        arxiv_ids=subjects,
        cited_ids=[i for i in all_ids(header, block.body) if i not in subjects],
        tags=split_list(",".join(fields.get("tags"))),
        source=str(path),
        position=position,
        section=fields.text("section") or header.section_hint,
        number=header.number,
        stars=header.stars,
        claims=[c for c in fields.get("points") if c],
        sources=_sources(fields),
        credibility=_credibility(fields),
        relation=fields.text("relation"),
        caveats=[c for c in fields.get("warning") if c],
        anchor=header.anchor,
        category=_category(fields),
    )


def dated_stem(stem: str, date: dt.date | None) -> str:
    """The file stem, with the briefing's date when the stem does not carry it:
    an inbox file reused from day to day (``today.md``) holds another briefing
    each day, and yesterday's items keep ids of their own."""
    if date is None or any(date.strftime(form) in stem for form in ("%Y-%m-%d", "%Y%m%d", "%Y_%m_%d")):
        return stem
    return f"{stem}@{date.isoformat()}"


def _sources(fields: Fields) -> list[str]:
    # One 来源 line often lists several sources separated by ；.
    parts = (p.strip() for s in fields.get("sources") for p in re.split(r"[；;]", s))
    return [p for p in parts if p]


def _credibility(fields: Fields) -> str | None:
    given = fields.text("credibility")
    if given:
        return given
    # Some writers put 可信度 among the key points instead of on its own line.
    for claim in fields.get("points"):
        match = re.match(r"可信度\s*[：:]\s*(.+)", claim)
        if match:
            return match.group(1)
    return None


def _category(fields: Fields) -> str | None:
    value = fields.text("category")
    if not value:
        return None
    # inference（邻接） is still filed under inference; the aside is not a category.
    core = re.sub(r"[（(][^）)]*[）)]", "", value.split("\n")[0]).strip()
    return core or None


def _body_text(fields: Fields) -> str:
    """TLDR, key points, credibility: what gets embedded after the title."""
    parts = [fields.text("tldr") or fields.text("intro") or ""]
    parts += fields.get("points")
    credibility = fields.text("credibility")
    if credibility:
        parts.append(f"可信度：{credibility}")
    return "\n".join(p for p in parts if p)


def _mentions(lines: list[str], meta: Meta, path: Path) -> list[IdMention]:
    ctx = Context(source=str(path), date=meta.date, instance=meta.instance)
    table: list[tuple[int, str]] = []
    inside = False
    for number, line in enumerate(lines, start=1):
        if _SECTION.match(line) or _HEADING.match(line) or INCREMENT_HEADER.match(line):
            inside = is_id_table_title(line)
        elif "|" not in line and is_id_table_title(line):
            inside = True
        elif inside:
            table.append((number, line))
    mentions = read_id_table(table, ctx)
    meta.warnings.extend(ctx.warnings)
    return mentions
