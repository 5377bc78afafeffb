"""The gate's results as terminal text: check, audit, similar and explain."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.cells import cell_len

from kbsearch.dedupe.item_words import tag
from kbsearch.records import Kind
from kbsearch.render.cells import counted, fit, who
from kbsearch.render.records import unknown_filters_text
from kbsearch.text.polarity import moved_label
from kbsearch.text.terminal import clean
from kbsearch.text.written_figures import as_written

if TYPE_CHECKING:
    from kbsearch.dedupe.audit_results import AuditResult, Cluster, ClusterMember
    from kbsearch.dedupe.claim_explanation import ClaimExplanation
    from kbsearch.dedupe.results import (
        CheckResult,
        ClaimStatus,
        Explanation,
        Flag,
        ItemResult,
        Match,
        Neighbours,
    )


def _match_line(match: Match) -> str:
    mark = "≡" if match.same_item else " "
    ids = f"  shares {', '.join(match.shared_ids)}" if match.shared_ids else ""
    cites = f"  cite-only {', '.join(match.cited_ids)}" if match.cited_ids else ""
    return (
        f"     {mark} {match.decided_by:>4}  {fit(who(match.instance, match.date), 19)} "
        f"{clean(match.id, one_line=True)}{ids}{cites}\n"
        f"{'':8}{clean(match.title, one_line=True)[:80]} — {'; '.join(match.reasons)}{evidence_words(match)}; "
        f"cosine {match.score:.2f}" + (f"\n{'':8}{first_text_words(match.date)}" if match.first_text else "")
    )


def evidence_words(match: Match) -> str:
    """What a living-doc section that is not the item states of it: the claims, by number, or none."""
    if match.relation != "evidence":
        return ""
    stated = ", ".join(map(str, match.states_claims))
    plural = "s" * (len(match.states_claims) > 1)
    return f" (states claim{plural} {stated} of the item)" if stated else " (states none of the item's claims)"


def first_text_words(day: object) -> str:
    """What a match or claim line read from a section's first text says (``sections_as_of``)."""
    return f"(the section's text as of its first date {day}, not today's: it changed after the check's day)"


def held_text(section_id: str, day: object) -> str:
    """A living-doc section that held the item before its first seen record (``flags.held_words``)."""
    return clean(f"held by {section_id.replace('#', ' ', 1)} since {day or 'an unknown day'}", one_line=True)


OUTCOME_WORDS = {
    "stored": "stored as a new record",
    "replaced": "replaced its own earlier version in place (an edit)",
    "unchanged": "unchanged: stored so already",
    "refused": "not stored: the accept was refused",
    "skipped": "not stored: skipped as a DUPLICATE (--skip-duplicates)",
}
"""What an accepting run did with an item (``ItemResult.outcome``), as the CLI and the TUI say it;
``checked`` (no accept) says nothing."""


def item_lines(item: ItemResult) -> list[str]:
    """How the item was compared (beside its ``outcome``), a line each: the CLI and the TUI say these alike."""
    lines = []
    if item.resubmitted:
        lines.append("this very text is stored under this id already (accepted before); not compared with itself")
    if item.edited:
        lines.append("an edit of its own earlier version, no new fact: not a repeat; --accept replaces it in place")
    if item.as_of:
        own = ", its own date" if item.as_of == item.date else ""
        lines.append(f"compared with records dated up to {item.as_of}{own}")
    return lines


def _flag_line(flag: Flag) -> str:
    return f"   ! {clean(flag.message, one_line=True)}"


def item_text(item: ItemResult) -> str:
    lines = [
        f"{item.verdict.value:<9} {clean(item.id, one_line=True)}  {clean(item.title, one_line=True)[:80]}",
        f"   {clean(item.reason, one_line=True)}",
    ]
    if item.first_seen:
        own = " (its own earlier version)" if item.first_seen.id == item.id else ""
        lines.append(
            f"   first seen: {who(item.first_seen.instance, item.first_seen.date)} "
            f"{clean(item.first_seen.id, one_line=True)}{own}"
            + (f", {held_text(item.held_in_doc.id, item.held_in_doc.date)}" if item.held_in_doc else "")
        )
    elif item.held_in_doc:  # no record is the item, a section listing its paper held it
        lines.append(f"   {held_text(item.held_in_doc.id, item.held_in_doc.date)}")
    if item.outcome in OUTCOME_WORDS:
        lines.append(f"   outcome: {OUTCOME_WORDS[item.outcome]}")
    lines += [f"   {line}" for line in item_lines(item)]
    lines += [f"   note: {clean(note, one_line=True)}" for note in item.notes]
    lines += [_flag_line(f) for f in item.flags]
    if item.matches:
        lines.append("   matches (same-item probability, or the rule that settled it; ≡ same item):")
        lines += [_match_line(m) for m in item.matches]
    if item.claims:
        # explain --claim had each rule's say, but no line of check's output led to it (probes 43, 44).
        lines.append(
            "   claims (why claim N is known or new, rule by rule: kbsearch explain FILE#ITEM RECORD --claim N):"
        )
        lines += [line for claim in item.claims for line in _claim_lines(claim)]
    return "\n".join(lines)


def _claim_lines(claim: ClaimStatus) -> list[str]:
    """The claim, where it is said, and (when it is known) the passage that says it."""
    status = "known" if claim.known else "NEW  "
    said = claim.how_said
    where = f" ← {clean(claim.best_id or '', one_line=True)} {said}" if claim.best_id else ""
    # Each figure as the claim writes it ("14 days"), not the key it is compared by ("2wk").
    numbers = f" [new numbers: {', '.join(as_written(claim.text, claim.new_numbers))}]" if claim.new_numbers else ""
    if claim.extra_numbers:
        numbers += f" [also: {', '.join(as_written(claim.text, claim.extra_numbers))}]"
    if claim.moved_on:
        numbers += f" [{clean(moved_label(claim.moved_on), one_line=True)}]"
    lines = [f"     {status} {tag(claim)}{clean(claim.text, one_line=True)[:70]}{where}{numbers}"]
    if claim.best_first_text and claim.best_id:
        lines.append(f"           {first_text_words(claim.best_date)}")
    if claim.passage_shown:
        lines.append(f"           “{fit(clean(claim.best_text, one_line=True), 100).rstrip()}”")
    return lines


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
    if result.warnings:  # the warnings themselves go to stderr (check_warnings), where a gate's log sees them
        summary += f"; {counted(len(result.warnings), 'input warning')} on stderr"
    if edits := edits_text(result):
        summary += f"; {edits}"
    if result.accepted:
        done = accepted_parts(result)
        summary += f"; accepted {len(result.accepted)}" + (f" ({', '.join(done)})" if done else "")
    if result.skipped:
        summary += f"; skipped {counted(len(result.skipped), 'DUPLICATE')}"
    if result.created_index:
        summary += f" into a new index at {result.created_index}"
    for skip in result.skipped:  # what each repeats, a line each: the pipeline's log says what was left out
        repeats = ", ".join(skip.repeats) or "a known record"
        summary += f"\n{clean(f'skipped {skip.id}: repeats {repeats}', one_line=True)}"
    if result.accept_refused:
        summary += f"\n{clean(result.accept_refused, one_line=True)}"
    summary += "".join(f"\nnote: {clean(note, one_line=True)}" for note in result.notes)
    return "\n\n".join([*parts, summary])


def edits_text(result: CheckResult) -> str | None:
    """How many DUPLICATEs only reword their own earlier version (edits, which pass), if any."""
    edits = sum(item.edited for item in result.items)
    one = edits == 1
    return (
        f"{edits} DUPLICATE{'' if one else 's'} only reword{'s' if one else ''} an own earlier version"
        if edits
        else None
    )


def accepted_parts(result: CheckResult) -> list[str]:
    """Of the items accepted, those edited in place and those stored so already, when any."""
    edits, unchanged = sum(item.edited for item in result.items), len(result.unchanged)
    return [f"{edits} edited in place"] * bool(edits) + [f"{unchanged} unchanged"] * bool(unchanged)


UNNAMED = "no file name: "
NAME_IT = {
    "cli": ("name that file with --path FILE", "'kbsearch remove ID' undoes this accept"),
    "server": (
        "send the briefing's file name as path (like 2026-10-11-spark-agents-e1prep.md), or one item as a "
        "JSONL line with title, text, instance and date and a path ending in .jsonl",
        "whoever runs this server can undo this accept with 'kbsearch remove ID'",
    ),
}


def warn_unnamed(result: CheckResult, surface: str = "cli") -> None:
    """Say in ``result.warnings`` that the text it accepted was read without a file name (stdin, or
    a call without path): stored under ids no file has, with no writer or day, which an ingest of the
    file published from the text does not find, and stores again. One warning, in ``surface``'s words:
    the CLI's client replaces the server's."""
    if not result.accepted:
        return
    shown = result.accepted[0] + (f" and {len(result.accepted) - 1} more" if len(result.accepted) > 1 else "")
    name_it, undo = NAME_IT[surface]
    result.warnings = [w for w in result.warnings if not w.startswith(UNNAMED)] + [
        f"{UNNAMED}accepted as {shown}, ids no file has, so ingesting the file it is published "
        f"as stores it again: {name_it} ({undo})"
    ]


def check_warnings(result: CheckResult) -> list[str]:
    """What the parser skipped or could not tell in the input, a line each, naming
    the input as ``ingest``'s warnings name the file: for stderr."""
    name = "<stdin>" if result.input == "-" else result.input
    return [f"warning: {clean(name, one_line=True)}: {clean(w, one_line=True)}" for w in result.warnings]


def audit_scope(result: AuditResult) -> str:
    """How many clusters, among which records: a filter chooses the records reported, not those compared."""
    clusters = f"{counted(len(result.clusters), 'cluster')} of the same item"
    if result.one_instance_left_out:
        clusters += f" across instances ({result.one_instance_left_out} of one instance left out: --across)"
    if result.records == result.compared:
        return f"{clusters} among {counted(result.records, 'record')}"
    return f"{clusters} holding any of the {counted(result.records, 'record')} chosen ({result.compared} compared)"


def cut(text: str, width: int) -> str:
    """``text`` on one line, cut to ``width`` terminal cells with "…" when longer (not padded)."""
    line = clean(text, one_line=True)
    return fit(line, width).rstrip() if cell_len(line) > width else line


def cluster_heading(cluster: Cluster) -> str:
    """What a cluster is about: its shared arXiv ids, else its first record's title, cut (probe 26)."""
    if cluster.shared_ids:
        return f"arXiv {', '.join(cluster.shared_ids)}"
    return cut(cluster.first_seen.title or cluster.first_seen.id, 60)


def same_as_text(member: ClusterMember, cluster: Cluster) -> str | None:
    """``same item as ID: reason`` (or how a living-doc section relates) of a cluster's repeat."""
    if not member.same_as:
        return None
    kinds = {m.id: m.kind for m in [cluster.first_seen, *cluster.repeats]}
    relation = _relation(member, kinds.get(member.same_as))
    return f"{relation} {clean(member.same_as, one_line=True)}: {clean(member.reason or '', one_line=True)}"


def same_day_text(cluster: Cluster) -> str | None:
    """``same day as ID; signed first (09:10)`` when other writers' items share the day of the
    cluster's first (``Cluster.same_day``): every one gave its signing time and the first's is
    the earliest; else ``…; order of loading decides``: the one stored first is first, a tie
    the lead should know of (probe 28: a backfill loads in copy order). One writer's own
    copies of a day credit that writer either way."""
    tie = cluster.same_day
    if tie is None:
        return None
    more = f" and {len(tie.ids) - 3} more" if len(tie.ids) > 3 else ""
    signed = cluster.first_seen.signed_at
    how = f"signed first ({signed})" if tie.decided_by == "signed time" and signed else "order of loading decides"
    return clean(f"same day as {', '.join(tie.ids[:3])}{more}; {how}", one_line=True)


def audit_text(result: AuditResult) -> str:
    lines = [audit_scope(result)]
    if result.unknown_filters:
        lines.append(unknown_filters_text(result.unknown_filters))
    for number, cluster in enumerate(result.clusters, 1):
        first = cluster.first_seen
        lines.append(
            f"\n#{number}  {counted(cluster.size, 'record')}, {counted(len(cluster.instances), 'instance')}"
            f"  {cluster_heading(cluster)}"
        )
        lines.append(
            f"   first  {fit(who(first.instance, first.date), 19)} {clean(first.id, one_line=True)}  "
            f"{cut(first.title, 70)}"
        )
        if cluster.held_in_doc:
            lines.append(f"{'':10}{held_text(cluster.held_in_doc.id, cluster.held_in_doc.date)}")
        if tied := same_day_text(cluster):
            lines.append(f"{'':10}{tied}")
        for member in cluster.repeats:
            anchor = f" [{clean(member.anchor, one_line=True)}]" if member.anchor else ""
            lines.append(
                f"   {member.role:<6} {fit(who(member.instance, member.date), 19)} "
                f"{clean(member.id, one_line=True)}{anchor}  {cut(member.title, 60)}"
            )
            if same := same_as_text(member, cluster):
                lines.append(f"{'':10}{same}")
    lines += _by_instance_lines(result)
    if result.claimed_new_seen_before:
        lines.append("\nclaimed new but seen before:")
        lines += [_flag_line(f) for f in result.claimed_new_seen_before]
    return "\n".join(lines)


def _by_instance_lines(result: AuditResult) -> list[str]:
    """The per-writer table (``by_instance``): items, repeats, own repeats, claimed new but seen before."""
    if not result.by_instance:
        return []
    width = max(8, *(cell_len(clean(s.instance, one_line=True)) for s in result.by_instance))
    lines = [f"\nper instance:\n   {fit('instance', width)}  items  repeats  of own  claimed new, seen before"]
    for s in result.by_instance:
        lines.append(
            f"   {fit(clean(s.instance, one_line=True), width)}  {s.items:>5}  {s.repeats:>7}  "
            f"{s.own_repeats:>6}  {s.claimed_new_seen_before:>24}"
        )
    return lines


def _relation(member: ClusterMember, other: Kind | None) -> str:
    """How a cluster's record relates to the one it joined by: a living-doc section
    holds an increment's or a card's item, and is never the same item (``rules``)."""
    if (member.kind is Kind.doc_section) == (other is Kind.doc_section):
        return "same item as"
    return "holds the item of" if member.kind is Kind.doc_section else "held in"


def _forms_read(matches: list[Match]) -> str:
    """Which learned forms ``similar``'s probabilities are, read from stored vectors: never the
    judge's token alignment check reads of an incoming item (probe 26: a pair check decided same
    0.79 by the aligned key-point form was listed here as 0.00 by the summary form)."""
    forms = sorted({m.form for m in matches})
    only = f"the {' and '.join(forms)} form{'s' * (len(forms) > 1)}"
    only = "the summary form only (whole texts)" if forms == ["summary"] else only
    return (
        f"scores: {only}, read from the stored vectors; check reads an incoming item by its key points "
        "and the judge's token alignment, so may score a pair otherwise ('kbsearch explain A B' reads it as check)"
    )


def neighbours_text(result: Neighbours) -> str:
    record = result.record
    lines = [
        f"nearest to {clean(record.id, one_line=True)}  {who(record.instance, record.date)}  "
        f"{clean(record.title, one_line=True)[:70]}",
        "   matches (≡ same item, first; then by cosine):",
    ]
    if result.matches:
        lines.insert(1, f"   {_forms_read(result.matches)}")
    lines += [_match_line(m) for m in result.matches] or ["     none"]
    same = sum(m.same_item for m in result.matches)
    lines.append(f"({counted(len(result.matches), 'record')}, {same} the same item; model {result.model})")
    return "\n".join(lines)


def explanation_text(result: Explanation) -> str:
    verdict = "the same item" if result.match.same_item else "different items"
    lines = [
        f"A  {clean(result.a.id, one_line=True)}  {who(result.a.instance, result.a.date)}  "
        f"{clean(result.a.title, one_line=True)[:70]}",
        f"B  {clean(result.b.id, one_line=True)}  {who(result.b.instance, result.b.date)}  "
        f"{clean(result.b.title, one_line=True)[:70]}",
        f"{verdict}: {'; '.join(clean(r, one_line=True) for r in result.match.reasons)}",
        f"cosine {result.match.score:.3f}, lexical overlap {result.match.lexical:.3f} (model {result.model}); "
        f"learned form read: {clean(result.form_why, one_line=True) or result.match.form}",
        *(
            [f"as of {result.as_of}: records dated later, and A, hidden (as check --as-of read the index)"]
            * bool(result.as_of)
        ),
        *(f"note: {clean(note, one_line=True)}" for note in result.notes),
        "rules, in order (the first with a say decides):",
    ]
    decided = False
    for finding in result.rules:
        says = {True: "same", False: "different", None: "no say"}[finding.says]
        mark = "→" if finding.says is not None and not decided else " "
        decided = decided or finding.says is not None
        lines.append(f"  {mark} {finding.rule:<18} {says:<9} {clean(finding.detail, one_line=True)}")
    return "\n".join(lines + _why_claim(result.claim))


def _why_claim(why: ClaimExplanation | None) -> list[str]:
    """``explain --claim N``: check's decision of A's claim and what each claim rule said."""
    if why is None:
        return []
    lines = [
        f"claim {why.n} of {why.claims}: {'KNOWN' if why.known else 'NEW'} (decided by {why.decided_by}), "
        f"as check decides it when A comes in again",
        f"  {clean(why.text, one_line=True)[:200]}",
    ]
    for step in why.steps:
        says = {True: "said", False: "new", None: "no say"}[step.says]
        mark = "→" if step.rule == why.decided_by else " "
        lines.append(f"  {mark} {step.rule:<18} {says:<7} {clean(step.detail, one_line=True)}")
    return lines + [f"note: {clean(note, one_line=True)}" for note in why.notes]
