"""Everything the TUI reads from a ``SearchHit``, in one place.

Search is being extended (a hybrid lexical mode, snippets). Keeping every
field access here means one file follows when ``SearchHit`` changes.
"""

from __future__ import annotations

from rich.text import Text

from kbsearch.kb import HIT_TEXT_CHARS, SearchHit, SearchResponse
from kbsearch.records import Record
from kbsearch.render import clean, counted, missing_lines, why_empty
from kbsearch.render.records import marked_score, record_text
from kbsearch.tui.literal import cell, plain

COLUMNS = (("score", 7), ("kind", 11), ("instance", 9), ("date", 10), ("title", 16))
"""Results-table columns and their widths in cells (the title takes the rest, at least 16);
rich measures CJK as two cells, so fixed widths keep the columns aligned whatever the script."""


def query_of(response: SearchResponse) -> str:
    return response.query


def summary(response: SearchResponse, count: int, *, timing: bool) -> Text:
    """The line above the table: how many results for what, and how fast."""
    line = Text(f"{counted(count, 'result')} for ", style="dim")
    line.append_text(plain(response.query, style="bold"))
    if timing:
        line.append(f"  ·  {response.seconds * 1000:.0f} ms", style="dim")
    for missing in missing_lines(response):
        line.append("  ·  ", style="dim")
        line.append(missing, style="bold yellow")
    if why := why_empty(response):  # why nothing was found (the filters or the query), as the CLI says
        line.append("  ·  ", style="dim")
        line.append(why, style="bold yellow")
    return line


def row_cells(hit: SearchHit) -> tuple[Text, ...]:
    # "=" marks a record carrying an exact id from the query, as in the CLI (a space before a negative score).
    score = Text(marked_score(hit, width=0), justify="right")
    return (score, cell(hit.kind.value), cell(hit.instance), cell(hit.date), cell(hit.title))


def facts(hit: SearchHit | Record) -> list[tuple[str, Text]]:
    """Label/value lines above the record's text (empty values left out)."""
    rows = [
        ("id", hit.id),
        ("kind", hit.kind.value),
        ("instance", hit.instance),
        ("date", hit.date),
        ("topic", hit.topic),
        ("category", hit.category),
        ("section", section_text(hit.section)),
        ("arXiv", ", ".join(hit.arxiv_ids)),
        ("cites", ", ".join(hit.cited_ids)),
        ("source", hit.source),
    ]
    return [(label, plain(value)) for label, value in rows if value]


NOT_FOR_THE_DOC = ("不入", "不归入", "不收")
"""A suggested section (建议归入节) saying the item goes into no section of the living doc."""


def section_text(section: str | None) -> str | None:
    """The section as stored (the parser keeps the briefing's words), "不入" said in words."""
    if section is not None and section.strip(" 。.") in NOT_FOR_THE_DOC:
        return f"not for the living doc ({section.strip()})"
    return section


def title(hit: SearchHit | Record) -> Text:
    return plain(hit.title or hit.id, style="bold")


def body(hit: SearchHit | Record) -> str:
    """The record's text for the markdown view, control sequences stripped;
    a text the search cut (a record of megabytes) says where to read the rest.
    A stored record reads as ``kbsearch show`` prints it: its text, then its
    claims (要点), 警示, relation to the living doc and 来源 as bullets."""
    if isinstance(hit, SearchHit):
        cut, text = hit.text_cut, clean(hit.text[:HIT_TEXT_CHARS])
    else:
        shown = record_text(hit).partition("\n\n")[2]  # the facts above it are in the pane's head
        cut, text = len(shown) > HIT_TEXT_CHARS, shown[:HIT_TEXT_CHARS]
    if cut:
        text += f"\n\n*… the text goes on: `kbsearch show {hit.id}` prints all of it.*"
    return text
