"""Rendering of result objects for the terminal: plain text, or rich ``Text``
where matches are highlighted (search results).

Record text comes from files nobody vetted, so every string is stripped of
escape sequences and control characters before it reaches the terminal, and
styled text is built span by span, never parsed from markup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text

from kbsearch.terminal import clean

if TYPE_CHECKING:  # annotations only: `kbsearch stats` need not import the checker, search or calibration
    from kbsearch.dedupe.calibrate import Calibration
    from kbsearch.dedupe.results import AuditResult, CheckResult, Explanation, Flag, ItemResult, Match, Neighbours
    from kbsearch.doctor import DoctorReport
    from kbsearch.ingest import IngestReport, ReindexReport
    from kbsearch.models import ModelSpec
    from kbsearch.records import Record
    from kbsearch.responses import Listing, Removal, SearchHit, SearchResponse, Stats
    from kbsearch.snippet import Span

MATCH_STYLE = "bold underline"


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


def search_text(response: SearchResponse) -> Text:
    """The results as styled text: three lines a hit, the snippet's matches highlighted.

    Built with ``Text.append`` only, never from markup, so a ``[bold]`` in a
    record prints as written.
    """
    out = Text()
    for line in missing_lines(response):
        out.append(line + "\n", style="bold")
    if not response.results:
        out.append(f"no results for {clean(response.query, one_line=True)!r}")
        return out
    out.append(f"{'#':>2}  {'score':>6}  {fit('kind', 11)} {fit('instance', 8)} {fit('date', 10)}  title\n")
    for hit in response.results:
        out.append(
            f"{hit.rank:>2} {'=' if hit.matched_ids else ' '}{score_text(hit):>6}  {fit(hit.kind.value, 11)} "
            f"{fit(hit.instance or '-', 8)} {fit(str(hit.date or '-'), 10)}  "
        )
        out.append(clean(hit.title, one_line=True)[:90] + "\n", style="bold")
        ids = ", ".join(hit.arxiv_ids) or "-"
        out.append(f"{'':10}id {clean(hit.id, one_line=True)}  arXiv {ids}{_matched(hit)}\n", style="dim")
        if hit.snippet:
            out.append(" " * 10)
            out.append_text(snippet_text(hit.snippet))
            out.append("\n")
    legend = "; '=' marks an exact id from the query" if any(hit.matched_ids for hit in response.results) else ""
    out.append(
        f"({counted(len(response.results), 'result')}, {response.seconds * 1000:.0f} ms, {response.mode.value} "
        f"search, model {response.model}{legend})"
    )
    return out


def score_text(hit: SearchHit) -> str:
    """The score, or ``-`` for an exact hit the search gave none (a lexical one holding no term): listed for its id."""
    return "-" if hit.exact and hit.dense_score is None and hit.lexical_score is None else f"{hit.score:.3f}"


def _matched(hit: SearchHit) -> str:
    """The ids beyond its own arXiv ids that put an exact hit first: the ids it cites, its repos and links."""
    cites, refs = [a for a in hit.matched_ids if a in hit.cited_ids], [a for a in hit.matched_ids if ":" in a]
    said = (f"  cites {', '.join(cites)}" if cites else "") + (f"  carries {', '.join(refs)}" if refs else "")
    return clean(said, one_line=True)


def missing_lines(response: SearchResponse) -> list[str]:
    """One line per exact identifier of the query that no record carries,
    so that the results below are not taken for records about it."""
    where = "no record" if response.filters.is_empty() else "no record within the filters"
    return [f"{where} carries {clean(ident, one_line=True)}" for ident in response.missing_ids]


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
    lines.append(f"({len(listing.records)} of {counted(listing.total, 'record')})")
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


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``1 record``, ``2 records``."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


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


_INDEX_TYPES = {"flat": "exact search", "hnsw": "HNSW approximate search"}


def stats_text(stats: Stats) -> str:
    kinds = ", ".join(f"{k} {n}" for k, n in stats.by_kind.items())
    instances = ", ".join(f"{k} {n}" for k, n in stats.by_instance.items()) or "-"
    topics = ", ".join(f"{k} {n}" for k, n in stats.by_topic.items()) or "-"
    return "\n".join(
        [
            f"index        {stats.index}",
            f"records      {stats.records} ({kinds})",
            f"instances    {clean(instances, one_line=True)}",
            f"topics       {clean(topics, one_line=True)}",
            f"model        {stats.model or '-'} ({stats.dim or '?'}-d, normalized, inner product = cosine)",
            f"judge        {stats.judge or '-'}"
            + (" (one vector per record's whole text, read by check and audit)" if stats.judge else ""),
            f"vectors      {stats.vectors if stats.vectors is not None else '-'} "
            f"({stats.passages} passages: titles, whole texts, claims; "
            f"{_INDEX_TYPES.get(stats.index_type or '', 'no cache yet')})",
            f"last ingest  {stats.last_ingest or 'never'} (generation {stats.generation}, "
            f"format {stats.format_version})",
        ]
    )


def ingest_text(report: IngestReport) -> str:
    lines = [
        f"{counted(report.files, 'file')}, {counted(report.records, 'record')}: {report.added} added, "
        f"{report.updated} updated, {report.unchanged} unchanged, {report.removed} removed; "
        f"{counted(report.embedded, 'text')} embedded with {report.model}"
        + (f", {report.judge_embedded} with the judge" if report.judge_embedded else "")
        + f" in {report.seconds:.2f}s"
        + (f" (waited {report.waited:.2f}s for another writer)" if report.waited else "")
    ]
    lines += [f"warning: {clean(w, one_line=True)}" for w in report.warnings]
    return "\n".join(lines)


def refused_text(report: IngestReport) -> str:
    return "\n".join(f"kbsearch: {clean(p.one_line(), one_line=True)}" for p in report.refused)


def reindex_text(report: ReindexReport) -> str:
    return (
        f"reindexed {counted(report.records, 'record')} with {report.model}"
        + (f" and judge {report.judge}" if report.judge else " (no judge)")
        + f": {counted(report.embedded, 'text')} embedded"
        + (f", {report.judge_embedded} by the judge" if report.judge else "")
        + f" in {report.seconds:.2f}s"
    )


def models_text(specs: list[ModelSpec], active: str | None) -> str:
    lines = []
    for spec in specs:
        mark = "*" if spec.name == active else " "
        extra = f" prompt={spec.prompt!r}" if spec.prompt else ""
        extra += f" backend={spec.backend}" if spec.backend else ""
        extra += f" judge={spec.judge}" if spec.judge else ""
        default = " (default)" if spec.default else ""
        lines.append(f"{mark} {spec.name:24} {spec.source:34} dim={spec.dim or '?'}{extra}{default}")
    if active:
        lines.append("* = the model of the index")
    return "\n".join(lines)


def _who(instance: str | None, date: object) -> str:
    return f"{instance or '-'} {date or '-'}"


def _match_line(match: Match) -> str:
    mark = "≡" if match.same_item else " "
    ids = f"  shares {', '.join(match.shared_ids)}" if match.shared_ids else ""
    cites = f"  cite-only {', '.join(match.cited_ids)}" if match.cited_ids else ""
    return (
        f"     {mark} {match.probability:.2f}  {fit(_who(match.instance, match.date), 19)} "
        f"{clean(match.id, one_line=True)}{ids}{cites}\n"
        f"{'':8}{clean(match.title, one_line=True)[:80]} — {'; '.join(match.reasons)}; cosine {match.score:.2f}"
    )


def _flag_line(flag: Flag) -> str:
    return f"   ! {clean(flag.message, one_line=True)}"


def item_text(item: ItemResult) -> str:
    lines = [
        f"{item.verdict.value:<9} {clean(item.id, one_line=True)}  {clean(item.title, one_line=True)[:80]}",
        f"   {clean(item.reason, one_line=True)}",
    ]
    if item.first_seen:
        lines.append(
            f"   first seen: {_who(item.first_seen.instance, item.first_seen.date)} "
            f"{clean(item.first_seen.id, one_line=True)}"
        )
    lines += [_flag_line(f) for f in item.flags]
    if item.matches:
        lines.append("   matches (same-item probability; ≡ same item):")
        lines += [_match_line(m) for m in item.matches]
    if item.claims:
        lines.append("   claims:")
        for claim in item.claims:
            status = "known" if claim.known else "NEW  "
            mark = "≥" if claim.score >= claim.threshold else "<"
            said = f"says the same {claim.score:.2f} {mark} {claim.threshold:.2f}"
            if claim.said_by_another_item:
                said += ", but is not the same item"
            where = f" ← {clean(claim.best_id or '', one_line=True)} {said}" if claim.best_id else ""
            numbers = f" [new numbers: {', '.join(claim.new_numbers)}]" if claim.new_numbers else ""
            lines.append(f"     {status} {clean(claim.text, one_line=True)[:70]}{where}{numbers}")
    return "\n".join(lines)


def check_text(result: CheckResult) -> str:
    counts = {v: sum(1 for i in result.items if i.verdict.value == v) for v in ("NEW", "UPDATE", "DUPLICATE")}
    parts = [item_text(item) for item in result.items]
    if result.flags:
        parts.append("input flags:\n" + "\n".join(_flag_line(f) for f in result.flags))
    summary = (
        f"{counted(len(result.items), 'item')}: {counts['NEW']} NEW, {counts['UPDATE']} UPDATE, "
        f"{counts['DUPLICATE']} DUPLICATE (model {result.model}"
        + (f", as of {result.as_of}" if result.as_of else "")
        + ")"
    )
    if result.accepted:
        summary += f"; accepted {len(result.accepted)}"
    return "\n\n".join([*parts, summary])


def audit_text(result: AuditResult) -> str:
    lines = [f"{counted(len(result.clusters), 'cluster')} of the same item among {counted(result.records, 'record')}"]
    for number, cluster in enumerate(result.clusters, 1):
        first = cluster.first_seen
        ids = f"  arXiv {', '.join(cluster.shared_ids)}" if cluster.shared_ids else ""
        lines.append(
            f"\n#{number}  {counted(cluster.size, 'record')}, {counted(len(cluster.instances), 'instance')}{ids}"
        )
        lines.append(
            f"   first  {fit(_who(first.instance, first.date), 19)} {clean(first.id, one_line=True)}  "
            f"{clean(first.title, one_line=True)[:70]}"
        )
        for member in cluster.repeats:
            anchor = f" [{clean(member.anchor, one_line=True)}]" if member.anchor else ""
            lines.append(
                f"   again  {fit(_who(member.instance, member.date), 19)} "
                f"{clean(member.id, one_line=True)}{anchor}  {clean(member.title, one_line=True)[:60]}"
            )
            if member.same_as:
                lines.append(f"{'':10}same item as {clean(member.same_as, one_line=True)}: {member.reason or ''}")
    if result.claimed_new_seen_before:
        lines.append("\nclaimed new but seen before:")
        lines += [_flag_line(f) for f in result.claimed_new_seen_before]
    return "\n".join(lines)


def calibration_text(result: Calibration) -> str:
    lines = [f"model {result.model}"]
    for fitted in result.fitted:
        lines.append(
            f"\n{fitted.decision}: fitted on {fitted.scorer.fitted_on}; threshold {fitted.scorer.threshold:.2f}"
        )
        lines.append(f"{'':10} {'n':>7} {'P':>6} {'R':>6} {'F1':>6}")
        rows = [("fitted", fitted.fitted), ("held out", fitted.held_out)]
        lines += [
            f"{name:10} {s.examples:7d} {s.precision:6.3f} {s.recall:6.3f} {s.f1:6.3f}"
            for name, s in rows
            if s is not None
        ]
        lines += [
            f"{'':10} {name:>16} {w:+.3f}"
            for name, w in zip(fitted.scorer.features, fitted.scorer.weights, strict=True)
        ]
    return "\n".join(lines)


def doctor_text(report: DoctorReport) -> str:
    lines = [f"index    {clean(report.index, one_line=True)}"]
    for finding in report.findings:
        mark = "ok     " if finding.ok else "PROBLEM"
        lines.append(f"{mark}  {finding.check}: {clean(finding.message, one_line=True)}")
        if finding.fix:
            lines.append(f"{'':9}fix: {finding.fix}")
    problems = sum(not f.ok for f in report.findings)
    lines.append("healthy" if report.healthy else f"{counted(problems, 'problem')} found")
    return "\n".join(lines)


def neighbours_text(result: Neighbours) -> str:
    record = result.record
    lines = [
        f"nearest to {clean(record.id, one_line=True)}  {_who(record.instance, record.date)}  "
        f"{clean(record.title, one_line=True)[:70]}",
        "   matches (≡ same item):",
    ]
    lines += [_match_line(m) for m in result.matches] or ["     none"]
    same = sum(m.same_item for m in result.matches)
    lines.append(f"({len(result.matches)} records, {same} the same item; model {result.model})")
    return "\n".join(lines)


def explanation_text(result: Explanation) -> str:
    verdict = "the same item" if result.match.same_item else "different items"
    lines = [
        f"A  {clean(result.a.id, one_line=True)}  {_who(result.a.instance, result.a.date)}  "
        f"{clean(result.a.title, one_line=True)[:70]}",
        f"B  {clean(result.b.id, one_line=True)}  {_who(result.b.instance, result.b.date)}  "
        f"{clean(result.b.title, one_line=True)[:70]}",
        f"{verdict}: {'; '.join(clean(r, one_line=True) for r in result.match.reasons)}",
        f"cosine {result.match.score:.3f}, lexical overlap {result.match.lexical:.3f} (model {result.model})",
        "rules, in order (the first with a say decides):",
    ]
    decided = False
    for finding in result.rules:
        says = {True: "same", False: "different", None: "no say"}[finding.says]
        mark = "→" if finding.says is not None and not decided else " "
        decided = decided or finding.says is not None
        lines.append(f"  {mark} {finding.rule:<18} {says:<9} {clean(finding.detail, one_line=True)}")
    return "\n".join(lines)


def removal_text(result: Removal) -> str:
    removed = ", ".join(clean(r, one_line=True) for r in result.removed)
    plural = "record" if len(result.removed) == 1 else "records"
    return f"removed {len(result.removed)} {plural}: {removed} ({result.records} left, generation {result.generation})"
