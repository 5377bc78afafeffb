"""The "可引用 arXiv 号列表" table of a briefing, as IdMention rows.

The table is where a writer claims an id is new today or was anchored on an
earlier day; comparing those claims across briefings catches ids announced
as new twice. Writers sometimes break a row after its first cell
(``2607.17715 |`` then the rest on the next line), so rows are reassembled
against the header's column count.

The status column is found by its header (状态, status, 本棒补强内容) or else
by its values (本次新增, 9-16锚定, 补强), whatever the column count: a two-column
``| arXiv | 状态 |`` table is as much a claim as a five-column one. A table
whose status column cannot be found is still read (its ids, without a
status) and named in a warning, rather than silently claiming nothing.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

from kbsearch.parse.common import clean_line
from kbsearch.records import IdMention
from kbsearch.text.ids import extract_arxiv_ids, normalize_arxiv_id

_SEPARATOR_CELL = re.compile(r"^:?-{2,}:?$")
_UNKNOWN_ID = re.compile(r"待核实|待确认|待定|未知|tbd|unknown|^[-—?？]*$", re.IGNORECASE)
_NEW = re.compile(r"本次新增|首次锚入|净增|新增|首次")
# 9-16锚定, 8-23 棒邻接升级候选: the writer points at an earlier day.
_EARLIER_DAY = re.compile(r"(\d{1,2})\s*[-/月]\s*(\d{1,2})\s*日?\s*(?:锚定|锚入|棒|已锚|入库)")
_CLAUSE_END = re.compile(r"[；;→]|->")
_TABLE_TITLE = re.compile(r"arxiv\s*号?\s*(?:列表|清单)", re.IGNORECASE)
_STATUS_HEADER = re.compile(r"状态|status|补强|锚定|锚入", re.IGNORECASE)
_TITLE_HEADER = re.compile(r"标题|论文|方法|名称|title|paper|name", re.IGNORECASE)
# A cell that reads as a status: new today, anchored on a day, or reinforced.
_STATUS_VALUE = re.compile(r"本次新增|首次锚入|净增|新增|首次|锚定|锚入|已锚|补强|沿用")


@dataclass
class Context:
    source: str
    date: dt.date | None
    instance: str | None
    warnings: list[str] = field(default_factory=list)


def is_id_table_title(line: str) -> bool:
    return bool(_TABLE_TITLE.search(line))


def read_id_table(lines: list[tuple[int, str]], ctx: Context) -> list[IdMention]:
    """Mentions from the table lines (line number, text) of one section."""
    rows: list[tuple[int, str]] = []
    header: list[str] | None = None
    pending: tuple[int, str] | None = None
    for number, raw in lines:
        line = raw.strip()
        if pending and ("|" not in line or line.startswith("|")):
            rows.append(pending)
            pending = None
        if "|" not in line:
            continue
        pending = (pending[0], f"{pending[1]} {line}") if pending else (number, line)
        if _row_complete(pending[1], header):
            header = _take_header(pending[1], header)
            rows.append(pending)
            pending = None
    if pending:
        rows.append(pending)
    body = [(n, row, _cells(row)) for n, row in rows]
    body = [(n, row, cells) for n, row, cells in body if not _skipped(cells, header)]
    layout = _layout(header, [cells for _, _, cells in body])
    if layout.status is None and body:
        ctx.warnings.append(
            f"line {body[0][0]}: id table without a status column (header: {' | '.join(header or [])[:60]}); "
            "its ids are kept but claim nothing new: head the column 状态"
        )
    mentions: list[IdMention] = []
    for number, row, cells in body:
        mention = _mention(cells, layout, ctx)
        if mention is None:
            ctx.warnings.append(f"line {number}: id table row without an arXiv id: {row[:60]}")
        else:
            mentions.append(mention)
    return mentions


@dataclass(frozen=True)
class Layout:
    """Which column (by index) holds the status and which the title; None: none."""

    status: int | None
    title: int | None


def _layout(header: list[str] | None, rows: list[list[str]]) -> Layout:
    status = _header_column(header, _STATUS_HEADER)
    if status is None:
        status = _status_by_values(rows)
    title = _header_column(header, _TITLE_HEADER)
    if title is None and status != 1:
        title = 1
    return Layout(status=status, title=title)


def _header_column(header: list[str] | None, pattern: re.Pattern[str]) -> int | None:
    for index, cell in enumerate(header or []):
        if index > 0 and pattern.search(cell):
            return index
    return None


def _status_by_values(rows: list[list[str]]) -> int | None:
    """The column whose cells most often read as a status (the last on a tie)."""
    counts: dict[int, int] = {}
    for cells in rows:
        for index, cell in enumerate(cells[1:], start=1):
            if _STATUS_VALUE.search(cell) or _EARLIER_DAY.search(cell):
                counts[index] = counts.get(index, 0) + 1
    if not counts:
        return None
    return max(counts, key=lambda index: (counts[index], index))


def _cells(row: str) -> list[str]:
    return [clean_line(c) for c in row.strip().strip("|").split("|")]


def _row_complete(row: str, header: list[str] | None) -> bool:
    cells = _cells(row)
    if header is None:
        # Without a header, ``2607.17715 |`` alone is the start of a broken row.
        return len(cells) > 1 or row.startswith("|")
    return len(cells) >= len(header)


def _take_header(row: str, header: list[str] | None) -> list[str] | None:
    if header is not None:
        return header
    cells = _cells(row)
    is_header = len(cells) > 1 and not _row_id(cells[0])[0] and not _UNKNOWN_ID.search(cells[0])
    return cells if is_header else None


def _skipped(cells: list[str], header: list[str] | None) -> bool:
    """The header row itself, or the ``|---|---|`` line under it."""
    return cells == header or all(_SEPARATOR_CELL.match(c) for c in cells)


def _row_id(cell: str) -> tuple[str | None, bool]:
    """(normalized id, whether the cell holds one)."""
    ident = normalize_arxiv_id(cell)
    if ident is None:
        found = extract_arxiv_ids(cell)
        ident = found[0] if found else None
    return ident, ident is not None


def _mention(cells: list[str], layout: Layout, ctx: Context) -> IdMention | None:
    ident, found = _row_id(cells[0])
    if not found and not _UNKNOWN_ID.search(cells[0]):
        return None
    status_cell = _cell(cells, layout.status)
    status = _CLAUSE_END.split(status_cell, maxsplit=1)[0].strip()
    earlier = _EARLIER_DAY.search(status)
    return IdMention(
        arxiv_id=ident,
        title=_cell(cells, layout.title),
        status=status,
        claims_new=bool(_NEW.search(status)) and earlier is None,
        anchored_on=f"{int(earlier.group(1))}-{int(earlier.group(2))}" if earlier else None,
        source=ctx.source,
        date=ctx.date,
        instance=ctx.instance,
    )


def _cell(cells: list[str], index: int | None) -> str:
    return cells[index] if index is not None and index < len(cells) else ""
