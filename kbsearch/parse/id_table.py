"""The "可引用 arXiv 号列表" table of a briefing, as IdMention rows.

The table is where a writer claims an id is new today or was anchored on an
earlier day; comparing those claims across briefings catches ids announced
as new twice. Writers sometimes break a row after its first cell
(``2607.17715 |`` then the rest on the next line), so rows are reassembled
against the header's column count.
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
    mentions: list[IdMention] = []
    header: list[str] | None = None
    pending: tuple[int, str] | None = None
    for number, raw in lines:
        line = raw.strip()
        if pending and ("|" not in line or line.startswith("|")):
            _flush(pending, header, ctx, mentions)
            pending = None
        if "|" not in line:
            continue
        pending = (pending[0], f"{pending[1]} {line}") if pending else (number, line)
        if _row_complete(pending[1], header):
            header = _take_header(pending[1], header)
            _flush(pending, header, ctx, mentions)
            pending = None
    if pending:
        _flush(pending, header, ctx, mentions)
    return mentions


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


def _flush(pending: tuple[int, str], header: list[str] | None, ctx: Context, mentions: list[IdMention]) -> None:
    number, row = pending
    cells = _cells(row)
    if cells == header or all(_SEPARATOR_CELL.match(c) for c in cells):
        return
    mention = _mention(cells, ctx)
    if mention is None:
        ctx.warnings.append(f"line {number}: id table row without an arXiv id: {row[:60]}")
    else:
        mentions.append(mention)


def _row_id(cell: str) -> tuple[str | None, bool]:
    """(normalized id, whether the cell holds one)."""
    ident = normalize_arxiv_id(cell)
    if ident is None:
        found = extract_arxiv_ids(cell)
        ident = found[0] if found else None
    return ident, ident is not None


def _mention(cells: list[str], ctx: Context) -> IdMention | None:
    ident, found = _row_id(cells[0])
    if not found and not _UNKNOWN_ID.search(cells[0]):
        return None
    status_cell = cells[-1] if len(cells) >= 3 else ""
    status = _CLAUSE_END.split(status_cell, maxsplit=1)[0].strip()
    earlier = _EARLIER_DAY.search(status)
    return IdMention(
        arxiv_id=ident,
        title=cells[1] if len(cells) > 1 else "",
        status=status,
        claims_new=bool(_NEW.search(status)) and earlier is None,
        anchored_on=f"{int(earlier.group(1))}-{int(earlier.group(2))}" if earlier else None,
        source=ctx.source,
        date=ctx.date,
        instance=ctx.instance,
    )
