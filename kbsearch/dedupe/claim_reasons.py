"""Why ``check`` called one claim of an item known or new, rule by rule (``explain --claim N``).

Read from check's own result for the item (``ClaimStatus``: the passage weighed, its score
and threshold, the cosine, the numbers) and the same pure functions the claim decisions
call (``unnamed_by``, ``restates_same_paper``), never decided again: what it says is check's.
"""

from __future__ import annotations

from kbsearch.dedupe.claim_decision import ClaimDecision, compared
from kbsearch.dedupe.claim_explanation import ClaimExplanation, ClaimStep
from kbsearch.dedupe.claim_inputs import claims_of
from kbsearch.dedupe.claim_names import unnamed_by
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.results import ClaimEvidence, ClaimStatus, ItemResult
from kbsearch.dedupe.rules import Embedded, restates_same_paper
from kbsearch.records import Kind, Record
from kbsearch.text.written_figures import as_written

FORM_FEATURE = "coverage"
"""A feature only ``claim_said`` reads: a status carrying it was decided by that form
(``judge_said``, on a stored or a finer passage), else by the cosine decision (``judge_claim``)."""
NEW_FIRST = ("numbers", "stage", "another item", "coined names", "claim_said", "cosine")
KNOWN_FIRST = ("restated", "background", "claim_said", "cosine")
"""Which rule settled the claim: the first of these whose say is the decision."""


def explain_claim(
    item: ItemResult, n: int, record: Record, same: list[Embedded], b_id: str, config: DedupeConfig
) -> ClaimExplanation:
    """Claim ``n`` (from 1) of ``item``, check's result for ``record``; ``same``: the records
    check judged it the same item as, loaded; ``b_id``: the record the user asked about."""
    status = item.claims[n - 1]
    same_ids = [k.record.id for k in same]
    by_form = FORM_FEATURE in status.features
    unnamed = unnamed_by(status.text, same)
    sections = {m.id for m in item.matches if m.kind is Kind.doc_section}
    if status.best_kind is Kind.doc_section and status.best_id:
        sections.add(status.best_id)  # a claim's nearest passage may be of a section no match lists
    steps = [
        _same_step(same_ids),
        *_decision_steps(status, by_form, config, (same_ids, sections)),
        _restated_step(status, restates_same_paper(record, same)),
        _names_step(status, unnamed, by_form, config.claim_said is None),
        _numbers_step(status),
    ]
    if status.moved_on:
        steps.append(ClaimStep(rule="stage", says=False, detail=f"the claim moves its item on: {status.moved_on}"))
    if status.known and status.decided_by is ClaimDecision.background:
        detail = f"a key point recalling another item as background: {status.best_id}'s passage says it"
        detail += f" ({_score(status)}, read as another record's)"
        steps.append(ClaimStep(rule="background", says=True, detail=detail))
    if status.said_by_another_item:
        detail = f"{status.best_id}'s passage says it ({_score(status)}), but is not the same item as A"
        steps.append(ClaimStep(rule="another item", says=False, detail=detail))
    order = KNOWN_FIRST if status.known else NEW_FIRST
    says = {step.rule: step.says for step in steps}
    decided = next((rule for rule in order if says.get(rule) is status.known), order[-1])
    return ClaimExplanation(
        n=n,
        claims=len(claims_of(record)),
        text=status.text,
        known=status.known,
        decided_by=decided,
        same_item=same_ids,
        b_same_item=b_id in same_ids,
        steps=steps,
        status=status.model_dump(mode="json"),
        notes=_b_notes(status, b_id, same_ids),
    )


def _score(status: ClaimStatus) -> str:
    return compared(status.score, "≥" if status.score >= status.threshold else "<", status.threshold)


def _weighed(status: ClaimStatus) -> str:
    if status.best_id is None:
        return "no passage of any record was near enough to weigh"
    where = ", ".join(str(part) for part in (status.best_instance, status.best_date) if part)
    quoted = _quoted(status.best_text or "", 120)
    cosine = f", cosine {status.cosine:.2f}" if status.cosine is not None else ""
    return f'{status.best_id}{f" ({where})" if where else ""}: "{quoted}", {_score(status)}{cosine}'


def _quoted(text: str, chars: int) -> str:
    text = text.replace("\n", " ")
    return text if len(text) <= chars else text[: chars - 1] + "…"


def _same_step(same_ids: list[str]) -> ClaimStep:
    if not same_ids:
        detail = (
            "check judged A the same item as no record: only another record's passage, or a living-doc "
            "section's (evidence, never the item), saying that very fact (claim_said) can make a claim known"
        )
    else:
        detail = f"check judged A the same item as {', '.join(same_ids)}: their passages can make a claim known"
    return ClaimStep(rule="same-item records", says=None, detail=detail)


def _decision_steps(
    status: ClaimStatus, by_form: bool, config: DedupeConfig, records: tuple[list[str], set[str]]
) -> list[ClaimStep]:
    """The learned decisions: ``claim_said`` (when the config has it) and the cosine decision, which
    says a claim whatever its numbers and names (the numbers and coined-names rules have their say),
    unless its passage is of no same-item record; ``records``: the same-item ids, the sections' ids."""
    same_ids, sections = records
    barred = status.best_id not in same_ids
    if config.claim_said is None:
        said = status.known or (status.score >= status.threshold and not barred)
        says = True if said and not status.restated else (None if status.restated else False)
        return [ClaimStep(rule="cosine", says=says, detail=f"the nearest passage weighed: {_weighed(status)}")]
    threshold = config.claim_said.threshold
    weighed = "; ".join(
        f"{e.id} ({_relation(e, same_ids, sections)}): "
        f"{compared(e.probability, '≥' if e.probability >= threshold else '<', threshold)}, "
        f"coverage {e.features.get('coverage', 0.0):.2f}, judge cosine {e.features.get('judge_cosine', 0.0):.2f}"
        + (f", numbers new to it: {', '.join(as_written(status.text, e.new_numbers))}" if e.new_numbers else "")
        for e in status.evidence
    )
    # Said: a same-item passage clears the threshold (the numbers or the stage may yet make it new);
    # a section's, scored as if A's record to pick it, by its score as what it is (``section_said``).
    said = any(e.id in same_ids and e.probability >= threshold for e in status.evidence)
    said = said or (status.best_id in sections and status.score >= status.threshold)
    form_says = (by_form and not status.restated if status.known else said) if status.evidence or by_form else None
    # A section's passage picked as if A's record's is decided as what it is: say which score shows.
    apart = any(e.id == status.best_id and e.id in sections and e.same_item for e in status.evidence)
    shown = f"shown{', scored as the section it is' * apart}: {_weighed(status)}"
    shown = shown if by_form else "the cosine decision's passage is shown"
    form = ClaimStep(rule="claim_said", says=form_says, detail=f"weighed {weighed or 'no passage'}; {shown}")
    cosine_says = status.cosine_known if status.cosine_known is not None else (status.known if not by_form else None)
    cosine_detail = f"{'known' if cosine_says else 'not known'} by the cosine of the same-item passages" + (
        "" if by_form else f": {_weighed(status)}"
    )
    return [form, ClaimStep(rule="cosine", says=cosine_says, detail=cosine_detail)]


def _relation(evidence: ClaimEvidence, same_ids: list[str], sections: set[str]) -> str:
    """What the weighed passage's record is to A, in check's words (``item_words.relation``): a
    living-doc section is evidence, never the same item, though its lines on A are read as if
    they were A's record's to pick the passage weighed (``section_said``; probe 48: "the same
    item as no record" above "weighed doc/speech#§1.3 (same item)")."""
    if evidence.id in sections:
        return "evidence: a living-doc section, never the item" + (
            "; scored as if A's record, to pick its passage" * evidence.same_item
        )
    return "same item" if evidence.id in same_ids else "another record"


def _restated_step(status: ClaimStatus, restatement: bool) -> ClaimStep:
    if not restatement:
        return ClaimStep(
            rule="restated",
            says=None,
            detail="A is no paper card of a paper that has one: a passage must say the claim",
        )
    detail = "A is a card of a paper that has one: a claim is known unless it brings a new number"
    return ClaimStep(rule="restated", says=True if status.restated else None, detail=detail)


def _names_step(status: ClaimStatus, unnamed: set[str], by_form: bool, by_cosine: bool) -> ClaimStep:
    """A coined name no same-item record gives bars the cosine decision (``unnamed_by``); ``claim_said``
    reads how many of the claim's names its passage lacks as a feature instead."""
    missing = status.features.get("names_missing") if by_form else None
    read = f"; claim_said read {missing:.0f} of its names missing from the passage" if missing else ""
    if not unnamed:
        return ClaimStep(
            rule="coined names", says=None, detail=f"no coined name of the claim is new to its records{read}"
        )
    names = ", ".join(sorted(unnamed))
    detail = f"the claim names {names}, which no same-item record gives: the cosine decision cannot call it known"
    barred = by_cosine and not status.known and status.score >= status.threshold  # else nothing said it anyway
    return ClaimStep(rule="coined names", says=False if barred else None, detail=detail + read)


def _numbers_step(status: ClaimStatus) -> ClaimStep:
    changed = next((e for e in status.evidence if e.changes_a_figure), None)
    if status.new_numbers:
        written = ", ".join(as_written(status.text, status.new_numbers))  # as the claim writes them, not their keys
        detail = f"new figures the same-item records do not state: {written}"
        if changed is not None:
            said = f': "{_quoted(status.best_text or "", 80)}"' if changed.id == status.best_id else ""
            detail += f" (a figure {changed.id} states, changed{said})"
        return ClaimStep(rule="numbers", says=False, detail=detail)
    if status.extra_numbers:
        also = ", ".join(as_written(status.text, status.extra_numbers))
        detail = f"{also}: detail beside figures its records state, not a changed figure"
        return ClaimStep(rule="numbers", says=None, detail=detail)
    return ClaimStep(rule="numbers", says=None, detail="no number of the claim is new to its records")


def _b_notes(status: ClaimStatus, b_id: str, same_ids: list[str]) -> list[str]:
    """Where the record the user asked about is not the one whose passage was weighed."""
    if b_id == status.best_id:
        return []
    weighed = f"{status.best_id}'s passage" if status.best_id else "no passage"
    if b_id not in same_ids:
        return [f"B ({b_id}) is not a record check judged A the same item as; the claim's decision weighed {weighed}"]
    return [f"the passage weighed is {status.best_id}'s, not B's ({b_id}); each same-item record's passages are read"]
