"""Search results, listings and one record in full, as terminal text.

Search results are rich ``Text`` built span by span (never parsed from
markup), so a ``[bold]`` in a record prints as written."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text

from kbsearch.render.cells import MATCH_STYLE, counted, fit
from kbsearch.text.ids import ids_alone, record_github_repos
from kbsearch.text.terminal import clean

if TYPE_CHECKING:
    from kbsearch.records import Record
    from kbsearch.responses import Listing, SearchHit, SearchResponse, UnknownFilter
    from kbsearch.text.snippet import Span


def search_text(response: SearchResponse) -> Text:
    """The results as styled text: three lines a hit, the snippet's matches highlighted.

    Built with ``Text.append`` only, never from markup, so a ``[bold]`` in a
    record prints as written.
    """
    out = Text()
    for line in missing_lines(response):
        out.append(line + "\n", style="bold")
    if not response.results:
        why = why_empty(response)
        out.append(f"no results for {clean(response.query, one_line=True)!r}{': ' + why if why else ''}")
        return out
    out.append(f"{'#':>2}  {'score':>6}  {fit('kind', 11)} {fit('instance', 8)} {fit('date', 10)}  title\n")
    for hit in response.results:
        out.append(
            f"{hit.rank:>2} {marked_score(hit)}  {fit(hit.kind.value, 11)} "
            f"{fit(hit.instance or '-', 8)} {fit(str(hit.date or '-'), 10)}  "
        )
        tag = f"[{clean(hit.category, one_line=True)[:20]}] " if hit.category else ""  # what --category filters on
        out.append(tag, style="cyan")
        out.append(clean(hit.title, one_line=True)[: 90 - len(tag)] + "\n", style="bold")
        ids = ", ".join(hit.arxiv_ids) or "-"
        out.append(f"{'':10}id {clean(hit.id, one_line=True)}  arXiv {ids}{_matched(hit)}\n", style="dim")
        if hit.snippet:
            out.append(" " * 10)
            out.append_text(snippet_text(hit.snippet))
            out.append("\n")
    legend = "; '=' marks an exact id from the query" if any(hit.matched_ids for hit in response.results) else ""
    if legend and ids_alone(response.query):
        legend = "; only the records carrying the id ('='): the query is an id alone"
    elif legend and response.id_start:
        legend = "; only the records ('=') whose id starts with the query"
    elif legend and response.results[0].exact == "record" and len(response.query.split()) > 1:
        legend = "; only the records ('='): the query is their ids, in its order"
    elif legend and response.results[0].exact == "record":
        legend = "; only the record ('='): the query is its id"
    out.append(
        f"({counted(len(response.results), 'result')}, {response.seconds * 1000:.0f} ms, {response.mode.value} "
        f"search, model {response.model}{legend})"
    )
    return out


def score_text(hit: SearchHit) -> str:
    """The score, or ``-`` for an exact hit the search gave none (a lexical one holding no term): listed for its id."""
    return "-" if hit.exact and hit.dense_score is None and hit.lexical_score is None else f"{hit.score:.3f}"


def marked_score(hit: SearchHit, width: int = 6) -> str:
    """The score after ``=`` for a record carrying an exact id from the query (a space before the score otherwise).

    A negative score gets a space after the ``=`` (``= -0.007``), which would otherwise run into the minus sign and read
    as a broken score; that row's score column is one character wider.
    """
    score = f"{score_text(hit):>{width}}"
    if not hit.matched_ids:
        return f" {score}"
    return f"= {score}" if score.startswith("-") and score != "-" else f"={score}"


def _matched(hit: SearchHit) -> str:
    """The ids beyond its own arXiv ids that put an exact hit first: the ids it cites, its repos and links."""
    cites, refs = [a for a in hit.matched_ids if a in hit.cited_ids], [a for a in hit.matched_ids if ":" in a]
    # The separators stay outside clean, which strips a text's leading spaces.
    said = (f"  cites {clean(', '.join(cites), one_line=True)}" if cites else "") + (
        f"  carries {clean(', '.join(refs), one_line=True)}" if refs else ""
    )
    return said


def missing_lines(response: SearchResponse) -> list[str]:
    """One line per exact identifier of the query that no record carries,
    so that the results below are not taken for records about it; and for
    the start of several record ids, which records are listed."""
    where = "no record" if response.filters.is_empty() else "no record within the filters"
    return [
        f"{where} {_carries(ident)} {clean(ident, one_line=True)}{_elsewhere(response.missing_elsewhere.get(ident))}"
        for ident in response.missing_ids
    ] + _id_start(response)


def _id_start(response: SearchResponse) -> list[str]:
    """``'kenji/2026-11-03' is the start of 2 ids: …``, as ``kbsearch show`` names them."""
    if not response.id_start:
        return []
    within = "" if response.filters.is_empty() else " within the filters"
    shown = "their records" if response.id_start <= response.k else f"the first {response.k} records"
    return [
        f"{clean(response.query.strip(), one_line=True)!r} is the start of {response.id_start} ids{within}: "
        f"{shown}, in id order"
    ]


def _elsewhere(ids: list[str] | None) -> str:
    """The records outside the filters that carry a missing identifier: widen the filters to see them."""
    return f" (outside them: {clean(', '.join(ids), one_line=True)}; drop or widen the filters)" if ids else ""


def _carries(ident: str) -> str:
    """A record id (``card/2004``) is had, an arXiv id, repo or URL carried."""
    return "has id" if "/" in ident and not ident.startswith(("github:", "url:")) else "carries"


SHOWN_VALUES = 12


def why_empty(response: SearchResponse) -> str:
    """Why a search found nothing, in one line: the filters that leave
    nothing, or how many records pass them though the query matched none."""
    if response.unknown_filters:
        return unknown_filters_text(response.unknown_filters)
    if not response.matched:
        return ""
    other = "hybrid" if response.mode.value == "lexical" else "lexical"
    records = counted(response.matched, "record")
    said = (
        f"none of the {records} matched the query"
        if response.filters.is_empty()
        else f"{records} match{'es' if response.matched == 1 else ''} the filters; none matched the query"
    )
    return f"{said}: try --mode {other} or a shorter query"


def unknown_filters_text(unknown_filters: list[UnknownFilter]) -> str:
    """``no record has instance 'nobody' (instances: jay, spark)``, for
    each filter that no stored record matches; empty when there is none."""
    said = [_together(unknown) for unknown in unknown_filters if _is_together(unknown)]
    unknown_filters = [unknown for unknown in unknown_filters if not _is_together(unknown)]
    said += [_not_of_kinds(unknown) for unknown in unknown_filters if unknown.kinds]
    unknown_filters = [unknown for unknown in unknown_filters if not unknown.kinds]
    for field in dict.fromkeys(unknown.filter for unknown in unknown_filters):
        named = [unknown for unknown in unknown_filters if unknown.filter == field]
        values = " or ".join(repr(clean(unknown.value, one_line=True)) for unknown in named)
        known = named[0].known
        shown = ", ".join(clean(name, one_line=True) for name in known[:SHOWN_VALUES])
        more = f", … ({len(known)} in all)" if len(known) > SHOWN_VALUES else ""
        where = f"{_plural(field)}: {shown}{more}" if known else f"no record has any {field}"
        said.append(f"no record has {field} {values} ({where})")
    return "; ".join(said)


def _not_of_kinds(unknown: UnknownFilter) -> str:
    """``no paper_card has topic 'inference' (paper_card records have no topic): leave
    out the topic or the kind filter``."""
    kinds = " or ".join(clean(kind, one_line=True) for kind in unknown.kinds)
    shown = ", ".join(clean(name, one_line=True) for name in unknown.known[:SHOWN_VALUES])
    more = f", … ({len(unknown.known)} in all)" if len(unknown.known) > SHOWN_VALUES else ""
    where = f"theirs: {shown}{more}" if unknown.known else f"{kinds} records have no {unknown.filter}"
    if unknown.filter == "topic" and not unknown.known:
        # A card files its subject under a category (inference, cs.CL), not a topic.
        where += f" but a category: try --category {clean(unknown.value, one_line=True)!r}"
    return (
        f"no {kinds} has {unknown.filter} {clean(unknown.value, one_line=True)!r} ({where}): "
        f"leave out the {unknown.filter} or the kind filter"
    )


def _plural(field: str) -> str:
    return "categories" if field == "category" else f"{field}s"


def _is_together(unknown: UnknownFilter) -> bool:
    return bool(unknown.within) or unknown.filter in ("date", "section")


_SUBJECT = {
    "instance": "by instance {!r}",
    "topic": "with topic {!r}",
    "category": "in category {!r}",
    "date": "dated {}",
    "section": "in section {!r}",
}
_PREDICATE = {
    "instance": "has instance {!r}",
    "topic": "has topic {!r}",
    "category": "has category {!r}",
    "date": "is dated {}",
    "section": "has a section containing {!r}",
}


def _together(unknown: UnknownFilter) -> str:
    """``no increment by instance 'spark' has topic 'agents' (theirs: inference;
    instances with topic 'agents': jay): leave out the topic or the instance filter``;
    ``no record is dated from 2030-01-01 (dates: 2026-08-01 to 2026-09-20)``."""
    subject = " or ".join(clean(kind, one_line=True) for kind in unknown.kinds) or "record"
    for name, value in unknown.within.items():
        subject += " " + _SUBJECT[name].format(clean(value, one_line=True))
    value = clean(unknown.value, one_line=True)
    line = f"no {subject} {_PREDICATE[unknown.filter].format(value)}"
    shown = ", ".join(clean(name, one_line=True) for name in unknown.known[:SHOWN_VALUES])
    if unknown.filter == "date" and unknown.known:
        shown = " to ".join(unknown.known)
    shown += f", … ({len(unknown.known)} in all)" if len(unknown.known) > SHOWN_VALUES else ""
    alone = not unknown.kinds and not unknown.within
    label = _plural(unknown.filter) if alone else "theirs"
    if unknown.filter == "topic" and "instance" in unknown.within:
        label = f"{clean(unknown.within['instance'], one_line=True)}'s topics"
    where = [f"{label}: {shown}"] if shown else []
    if unknown.elsewhere:
        having = ", ".join(clean(name, one_line=True) for name in unknown.elsewhere[:SHOWN_VALUES])
        where.append(f"instances with {unknown.filter} {value!r}: {having}")
    if where:
        line += f" ({'; '.join(where)})"
    others = [*reversed(unknown.within), *(["kind"] if unknown.kinds else [])]
    if others:
        line += f": leave out the {unknown.filter} or the {' or the '.join(others)} filter"
    return line


def snippet_text(spans: list[Span], style: str = MATCH_STYLE) -> Text:
    """A snippet as styled text: matched spans in ``style``, the rest plain."""
    text = Text()
    for span in spans:
        text.append(clean(span.text, one_line=False).replace("\n", " "), style=style if span.match else "")
    return text


def listing_text(listing: Listing, *, full_ids: bool = False) -> str:
    """A table; ids are cut to a column on a terminal, and whole otherwise
    (``kbsearch list | grep …`` gives ids that ``show`` takes)."""
    width = max([34, *(cell_len(clean(r.id, one_line=True)) for r in listing.records)]) if full_ids else 34
    lines = [f"{fit('date', 10)}  {fit('instance', 8)} {fit('kind', 11)} {fit('id', width)} title"]
    for row in listing.records:
        lines.append(
            f"{fit(str(row.date or '-'), 10)}  {fit(row.instance or '-', 8)} {fit(row.kind, 11)} "
            f"{fit(clean(row.id, one_line=True), width)} {clean(row.title, one_line=True)[:70]}"
        )
    if listing.matched or not listing.total:
        lines.append(f"({len(listing.records)} of {counted(listing.matched, 'record')})")
    else:  # "0 of 0" would hide that the index holds records, none of them chosen
        lines.append(f"(0 of {counted(listing.total, 'record')} match the filters)")
    if listing.unknown_filters:
        lines.append(unknown_filters_text(listing.unknown_filters))
    return "\n".join(lines)


def listing_ids(listing: Listing) -> str:
    """One whole id a line, nothing else: for ``xargs`` and ``while read``."""
    return "\n".join(clean(row.id, one_line=True) for row in listing.records)


def listing_tsv(listing: Listing) -> str:
    """Tab-separated with a header: id, kind, instance, date, arxiv_ids, title."""
    lines = ["id\tkind\tinstance\tdate\tarxiv_ids\ttitle"]
    for row in listing.records:
        cells = [row.id, row.kind, row.instance or "", str(row.date or ""), ",".join(row.arxiv_ids), row.title]
        lines.append("\t".join(clean(c, one_line=True).replace("\t", " ") for c in cells))
    return "\n".join(lines)


def record_text(record: Record) -> str:
    """Every field a person reads: the facts, the text (without the claims
    it repeats), then the claims, 警示, the relation to the living doc and 来源."""
    rows = [
        ("id", record.id),
        ("kind", record.kind.value),
        ("title", record.title),
        ("instance", record.instance),
        ("date", record.date),
        ("topic", record.topic),
        ("section", record.section),
        ("number", record.number),
        ("card", record.card_number),
        ("category", record.category),
        ("tags", ", ".join(record.tags)),
        ("arXiv", ", ".join(record.arxiv_ids)),
        ("cites", ", ".join(record.cited_ids)),
        ("repos", ", ".join(record_github_repos(record.reference_text()))),
        ("stars", record.stars),
        ("anchor", record.anchor),
        ("credibility", record.credibility),
        ("source", record.source),
    ]
    lines = [f"{name:>11}: {clean(str(value), one_line=True)}" for name, value in rows if value]
    repeated = {c.strip() for c in record.claims} | {f"可信度：{record.credibility}"}
    body = [line for line in record.text.split("\n") if line.strip() not in repeated]
    if any(line.strip() for line in body):
        lines += ["", clean("\n".join(body)).strip()]
    for label, items in (
        ("claims (要点)", record.claims),
        ("caveats (警示)", record.caveats),
        ("relation to the living doc (与活文档现有脉络的关系)", (record.relation or "").split("\n")),
        ("sources (来源)", record.sources),
    ):
        items = [item for item in items if item.strip()]
        if items:
            lines += ["", f"{label}:"] + [f"  - {clean(item, one_line=True)}" for item in items]
    return "\n".join(lines)
