"""What the maintenance commands report: stats, ingest, reindex, models, doctor, calibrate, remove."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from kbsearch.render.cells import counted
from kbsearch.text.terminal import clean

if TYPE_CHECKING:
    from kbsearch.dedupe.calibrate_results import Calibration, RuleErrors
    from kbsearch.ingest import IngestReport, ReindexReport
    from kbsearch.kb.doctor import DoctorReport
    from kbsearch.models import ModelSpec
    from kbsearch.responses import Removal, Stats


_INDEX_TYPES = {
    "flat": "exact search",
    "hnsw": "HNSW approximate search",
    "milvus": "Milvus HNSW search",
    "unreadable": "manifest.json unreadable: 'kbsearch reindex' rewrites it",
}


def stats_text(stats: Stats) -> str:
    kinds = ", ".join(f"{k} {n}" for k, n in stats.by_kind.items())
    instances = ", ".join(f"{k} {n}" for k, n in stats.by_instance.items()) or "-"
    topics = ", ".join(f"{k} {n}" for k, n in stats.by_topic.items()) or "-"
    categories = ", ".join(f"{k} {n}" for k, n in stats.by_category.items()) or "-"
    return "\n".join(
        [
            f"index        {stats.index}",
            f"records      {stats.records} ({kinds})",
            f"instances    {clean(instances, one_line=True)}",
            f"topics       {clean(topics, one_line=True)}",
            f"categories   {clean(categories, one_line=True)}",
            f"model        {stats.model or '-'} ({stats.dim or '?'}-d, normalized, inner product = cosine)",
            f"judge        {stats.judge or '-'}"
            + (" (one vector per record's whole text, read by check and audit)" if stats.judge else ""),
            f"vectors      {stats.vectors if stats.vectors is not None else '-'} "
            f"({stats.passages} passages: titles, whole texts, claims; "
            f"{_INDEX_TYPES.get(stats.index_type or '', 'no cache yet')})",
            f"kept in      {stats.vector_store or '-'}"
            + (" (vectors.faiss in the index folder)" if stats.vector_store == "faiss" else ""),
            f"full text    {_fulltext(stats.fulltext_segments, stats.fulltext_merge_in)}",
            f"last ingest  {stats.last_ingest or 'never'} (generation {stats.generation}, "
            f"format {stats.format_version})",
        ]
    )


def _fulltext(segments: int, merge_in: int) -> str:
    """The word index's shape in a user's words: FTS5's segments are pieces, merged by
    the writes themselves (``store/lexical_merge.py``), so there is nothing to do."""
    if segments <= 1:
        return "in one piece (nothing to do)"
    return (
        f"in {segments} pieces, merged into one by an ingest once about {merge_in:,} more records "
        "have been added, changed or removed (nothing to do)"
    )


def ingest_text(report: IngestReport) -> str:
    lines = [
        f"{counted(report.files, 'file')}, {counted(report.records, 'record')}: {report.added} added, "
        f"{report.updated} updated, "
        + (f"{report.moved} moved, " if report.moved else "")
        + f"{report.unchanged} unchanged, "
        + (f"{len(report.skipped)} skipped, " if report.skipped else "")
        + f"{report.removed} removed; "
        + (f"{counted(len(report.refused), 'file')} refused (on stderr); " if report.refused else "")
        + f"{counted(report.embedded, 'text')} embedded with {report.model}"
        + (f", {report.judge_embedded} with the judge" if report.judge_embedded else "")
        + f" in {report.seconds:.2f}s"
        + (f"; {report.judge_deferred} left to the judge's background fill" if report.judge_deferred else "")
        + (f" (waited {report.waited:.2f}s for another writer)" if report.waited else "")
        # The warnings themselves go to stderr (ingest_warnings), as check's do: a cron log sees them.
        + (f"; {counted(len(report.warnings), 'input warning')} on stderr" if report.warnings else "")
    ]
    lines += [f"note: {clean(n, one_line=True)}" for n in report.notes]
    lines += [clean(s.one_line(), one_line=True) for s in report.skipped]
    lines += _ids_line("updated", report.updated_ids, report.updated)
    lines += _moved_lines(report)
    lines += _ids_line("removed", report.removed_ids, report.removed)
    return "\n".join(lines)


def _ids_line(what: str, ids: list[str], total: int, shown: int = 20) -> list[str]:
    """``updated: a, b and 3 more``: the ids changed, the first ``shown`` of them; none when none."""
    if not ids:
        return []
    more = total - min(len(ids), shown)
    listed = ", ".join(clean(r, one_line=True) for r in ids[:shown])
    return [f"{what}: {listed}" + (f" and {more:,} more" if more else "")]


def _moved_lines(report: IngestReport) -> list[str]:
    """One line per file records moved to, naming the file they were read from before."""
    by_file: dict[tuple[str, str | None], list[str]] = {}
    for moved in report.moved_ids:
        by_file.setdefault((moved.to, moved.was), []).append(moved.id)
    lines = []
    for (to, was), ids in by_file.items():
        head = f"moved to {clean(to, one_line=True)} ({counted(len(ids), 'record')} unchanged, read from "
        lines += _ids_line(head + f"{clean(was or '-', one_line=True)} before)", ids, len(ids))
    if report.moved > len(report.moved_ids):
        lines.append(f"moved: {report.moved - len(report.moved_ids):,} more (--json lists the first ones)")
    return lines


def ingest_warnings(report: IngestReport) -> list[str]:
    """What the parser skipped or could not tell in the files, each naming its file: for stderr."""
    return [f"warning: {clean(w, one_line=True)}" for w in report.warnings]


def refused_text(report: IngestReport) -> str:
    return "\n".join(f"kbsearch: {clean(p.one_line(), one_line=True)}" for p in report.refused)


def reindex_text(report: ReindexReport) -> str:
    return (
        f"reindexed {counted(report.records, 'record')} with {report.model}"
        + (f" and judge {report.judge}" if report.judge else " (no judge)")
        + f": {counted(report.embedded, 'text')} embedded"
        + (f", {report.judge_embedded} by the judge" if report.judge else "")
        + f" in {report.seconds:.2f}s"
        + _again(report)
    )


def _again(report: ReindexReport) -> str:
    """What ``--force`` embedded every text again with, and whose vectors it kept."""
    if not report.again:
        return ""
    again = " and ".join(report.again)
    if not report.kept:
        return f"; --force: every text embedded again with {again}"
    kept = " and ".join(report.kept)
    return f"; --force: every text embedded again with {again} (its folder changed), {kept}'s vectors kept (unchanged)"


def models_text(specs: list[ModelSpec], active: str | None) -> str:
    lines = []
    for spec in specs:
        mark = "*" if spec.name == active else " "
        extra = f" prompt={spec.prompt!r}" if spec.prompt else ""
        extra += f" backend={spec.backend}" if spec.backend else ""
        extra += f" judge={spec.judge}" if spec.judge else ""
        extra += f" dedupe={_dedupe_named(spec.dedupe)}" if spec.dedupe else ""
        default = " (default)" if spec.default else ""
        problem = spec.folder_problem() or _dedupe_problem(spec.dedupe)
        extra += f"  ← {problem} (line {spec.line})" if problem else ""
        lines.append(f"{mark} {spec.name:24} {spec.source:34} dim={spec.dim or '?'}{extra}{default}")
    if active:
        lines.append("* = the model of the index")
    return "\n".join(lines)


def _dedupe_named(dedupe: str) -> str:
    """A dedupe config file by its name (models.txt gives it relative to itself), else the model named."""
    return Path(dedupe).name if dedupe.endswith(".json") else dedupe


def _dedupe_problem(dedupe: str | None) -> str | None:
    """A dedupe config file that is not there: check, audit and explain would refuse the model."""
    if dedupe is None or not dedupe.endswith(".json") or Path(dedupe).is_file():
        return None
    return f"dedupe config {dedupe} not found"


def calibration_text(result: Calibration) -> str:
    lines = [f"model {result.model}"]
    for fitted in result.fitted:
        lines.append(
            f"\n{fitted.decision}: fitted on {fitted.scorer.fitted_on}; threshold {fitted.scorer.threshold:.2f}"
        )
        counted_as = "pairs" if fitted.decision == "claim_known" else "items"
        lines.append(f"{'':10} {counted_as:>7} {'P':>6} {'R':>6} {'F1':>6}")
        rows = [("fitted", fitted.fitted), ("held out", fitted.held_out)]
        lines += [
            f"{name:10} {s.examples:7d} {s.precision:6.3f} {s.recall:6.3f} {s.f1:6.3f}"
            for name, s in rows
            if s is not None
        ]
        if (s := fitted.start_held_out) is not None:
            lines.append(
                f"{'start':10} {s.examples:7d} {s.precision:6.3f} {s.recall:6.3f} {s.f1:6.3f}"
                "  the starting config, on the same held-out part"
            )
        lines += _rule_errors_lines(fitted.held_out_errors)
        lines += [
            f"{'':10} {name:>16} {w:+.3f}"
            for name, w in zip(fitted.scorer.features, fitted.scorer.weights, strict=True)
        ]
    lines += ["", *(f"note: {clean(note, one_line=True)}" for note in result.notes)] if result.notes else []
    if result.written:
        lines.append(
            f"wrote {clean(result.written, one_line=True)}: use it with --config FILE or dedupe=FILE in models.txt"
        )
    return "\n".join(lines)


def _rule_errors_lines(errors: RuleErrors | None) -> list[str]:
    """How many held-out errors a fixed rule settled: no refit of the decision moves those."""
    if errors is None or not errors.missed + errors.false_matches:
        return []
    fixed = sum(errors.by_rule.values())
    rules = ", ".join(f"{rule} {n}" for rule, n in sorted(errors.by_rule.items(), key=lambda kv: -kv[1]))
    false = counted(errors.false_matches, "false match", "false matches")
    wrong = f"{counted(errors.missed, 'missed repeat')} and {false}"
    return [
        f"{'':10} held out: {wrong}; {fixed} of them settled by a fixed rule"
        + (f" ({rules}), which no fit changes" if fixed else ", so the fitted decision made them all")
    ]


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


def removal_text(result: Removal) -> str:
    removed = ", ".join(clean(r, one_line=True) for r in result.removed)
    plural = "record" if len(result.removed) == 1 else "records"
    return f"removed {len(result.removed)} {plural}: {removed} ({result.records} left, generation {result.generation})"
