"""Plain-text rendering of result objects for the terminal.

Record text comes from files nobody vetted, so every string is stripped of
escape sequences and control characters before it reaches the terminal.
"""

from __future__ import annotations

import re
import unicodedata

from rich.cells import cell_len

from kbsearch.ingest import IngestReport, ReindexReport
from kbsearch.kb import Listing, Stats
from kbsearch.models import ModelSpec
from kbsearch.records import Record
from kbsearch.search import SearchResponse

_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")


def clean(text: str | None, *, one_line: bool = False) -> str:
    """Text safe to print: no escape sequences, no control characters."""
    if not text:
        return ""
    text = _ANSI.sub("", text)
    kept = [ch for ch in text if ch in "\n\t" or unicodedata.category(ch) not in {"Cc", "Cf", "Cs", "Co"}
            or ch in "\u200d"]
    out = "".join(kept)
    return " ".join(out.split()) if one_line else out


def fit(text: str, width: int) -> str:
    """Cut or pad to ``width`` terminal cells, so CJK columns line up."""
    out, used = [], 0
    for ch in text:
        w = cell_len(ch)
        if used + w > width - (1 if used + w < cell_len(text) else 0):
            out.append("…")
            used += 1
            break
        out.append(ch)
        used += w
    return "".join(out) + " " * max(0, width - used)


def search_text(response: SearchResponse) -> str:
    if not response.results:
        return f"no results for {clean(response.query, one_line=True)!r}"
    lines = [f"{'#':>2}  {'score':>5}  {fit('kind', 11)} {fit('instance', 8)} {fit('date', 10)}  title"]
    for hit in response.results:
        pin = "=" if hit.matched_ids else " "
        lines.append(f"{hit.rank:>2} {pin}{hit.score:5.3f}  {fit(hit.kind.value, 11)} "
                     f"{fit(hit.instance or '-', 8)} {fit(str(hit.date or '-'), 10)}  "
                     f"{clean(hit.title, one_line=True)[:90]}")
        ids = ", ".join(hit.arxiv_ids) or "-"
        cites = [a for a in hit.matched_ids if a not in hit.arxiv_ids]
        also = f"  cites {', '.join(cites)}" if cites else ""
        lines.append(f"{'':9}id {clean(hit.id)}  arXiv {ids}{also}")
    lines.append(f"({len(response.results)} results, {response.seconds * 1000:.0f} ms, model {response.model};"
                 " '=' marks an arXiv id from the query)")
    return "\n".join(lines)


def listing_text(listing: Listing) -> str:
    lines = [f"{fit('date', 10)}  {fit('instance', 8)} {fit('kind', 11)} {fit('id', 34)} title"]
    for row in listing.records:
        lines.append(f"{fit(str(row.date or '-'), 10)}  {fit(row.instance or '-', 8)} {fit(row.kind, 11)} "
                     f"{fit(clean(row.id, one_line=True), 34)} {clean(row.title, one_line=True)[:70]}")
    lines.append(f"({len(listing.records)} of {listing.total} records)")
    return "\n".join(lines)


def record_text(record: Record) -> str:
    rows = [("id", record.id), ("kind", record.kind.value), ("title", record.title),
            ("instance", record.instance), ("date", record.date), ("topic", record.topic),
            ("section", record.section), ("arXiv", ", ".join(record.arxiv_ids)),
            ("cites", ", ".join(record.cited_ids)), ("stars", record.stars),
            ("anchor", record.anchor), ("credibility", record.credibility),
            ("source", record.source)]
    lines = [f"{name:>11}: {clean(str(value), one_line=True)}" for name, value in rows if value]
    if record.claims:
        lines.append("     claims:")
        lines += [f"           - {clean(c, one_line=True)}" for c in record.claims]
    lines += ["", clean(record.text)]
    return "\n".join(lines)


def stats_text(stats: Stats) -> str:
    kinds = ", ".join(f"{k} {n}" for k, n in stats.by_kind.items())
    instances = ", ".join(f"{k} {n}" for k, n in stats.by_instance.items()) or "-"
    return "\n".join([
        f"index        {stats.index}",
        f"records      {stats.records} ({kinds})",
        f"instances    {clean(instances, one_line=True)}",
        f"model        {stats.model or '-'} ({stats.dim or '?'}-d, normalized, inner product = cosine)",
        f"vectors      {stats.vectors if stats.vectors is not None else '-'} "
        f"({stats.passages} passages: titles, whole texts, claims)",
        f"last ingest  {stats.last_ingest or 'never'} (generation {stats.generation}, "
        f"format {stats.format_version})",
    ])


def ingest_text(report: IngestReport) -> str:
    lines = [f"{report.files} files, {report.records} records: {report.added} added, "
             f"{report.updated} updated, {report.unchanged} unchanged, {report.removed} removed; "
             f"{report.embedded} texts embedded with {report.model} in {report.seconds:.2f}s"]
    lines += [f"warning: {clean(w, one_line=True)}" for w in report.warnings]
    return "\n".join(lines)


def refused_text(report: IngestReport) -> str:
    return "\n".join(f"kbsearch: {clean(p.one_line(), one_line=True)}" for p in report.refused)


def reindex_text(report: ReindexReport) -> str:
    return (f"reindexed {report.records} records with {report.model}: "
            f"{report.embedded} texts embedded in {report.seconds:.2f}s")


def models_text(specs: list[ModelSpec], active: str | None) -> str:
    lines = []
    for spec in specs:
        mark = "*" if spec.name == active else " "
        extra = f" prompt={spec.prompt!r}" if spec.prompt else ""
        extra += f" backend={spec.backend}" if spec.backend else ""
        default = " (default)" if spec.default else ""
        lines.append(f"{mark} {spec.name:24} {spec.source:34} dim={spec.dim or '?'}{extra}{default}")
    if active:
        lines.append("* = the model of the index")
    return "\n".join(lines)
