"""Is a claim (要点) of an item known? Each claim against the passages of the records the item
was judged the same item as, and the closest passages of any record: known when a same-item
record says it (for an item with none, a living-doc section), and no result number in it is unseen.

Two summaries of different papers on one topic read alike sentence by
sentence; counting those would call a new paper a duplicate.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kbsearch.dedupe import claim_numbers
from kbsearch.dedupe.agreeing import Figures, agrees, contradicts, stage_moved, told_texts
from kbsearch.dedupe.claim_decision import ClaimDecision
from kbsearch.dedupe.claim_digits import digits_unstated
from kbsearch.dedupe.claim_names import unnamed_by
from kbsearch.dedupe.claim_numbers import derived, figure_changed, numbers_make_new, replaced_for, stated_by, stated_for
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.features import latin_names
from kbsearch.dedupe.passage_reader import PassageHit, PassageReader, coverage
from kbsearch.dedupe.results import ClaimEvidence, ClaimStatus
from kbsearch.dedupe.rules import Embedded
from kbsearch.dedupe.scorer import Scorer
from kbsearch.dedupe.ties import nearest_by_judge, passage_key
from kbsearch.records import Kind
from kbsearch.text.quantities import added_counts, figure_readings, new_figures, unstated
from kbsearch.text.textsim import jaccard, language, lexical_tokens, substantive_numbers


def claim_features(cosine: float, cross: bool, lexical: float) -> dict[str, float]:
    """What the claim decision reads of a (claim, passage) pair."""
    return {
        "cosine": cosine,
        "cross_cosine": cosine if cross else 0.0,
        "cross_lingual": 1.0 if cross else 0.0,
        "lexical": 0.0 if cross else lexical,
    }


def judge_claim(
    claim: str,
    vector: np.ndarray,
    hits: list[PassageHit],
    same_items: list[Embedded],
    config: DedupeConfig,
    restatement: bool = False,
    judged: list[PassageHit] | None = None,
    theirs: frozenset[str] = frozenset(),
) -> ClaimStatus:
    """Known when a passage of a same-item record says the same, and no result
    number in it is unseen.

    Only a record judged the same item can make a claim known: two summaries
    of different papers on one topic read alike sentence by sentence, and
    counting those would call a new paper a duplicate. ``hits`` (from a search
    over everything known) are shown as the closest passage when no same-item
    passage says the same. With ``restatement`` (a card of a paper that already
    has one) only an unseen number makes the claim new. ``theirs``: its figures that are
    another system's (``their_figures``), never new.
    """
    same_ids = {k.record.id for k in same_items}
    # Every passage of a same-item record but its title (``Embedded.facts``): a title says no fact.
    own = sorted((PassageHit(k, i, s) for k in same_items for i, s in k.facts(k.vectors @ vector)), key=passage_key)
    scored = _scored(claim, own + [h for h in hits if h.known.record.id not in same_ids], config.claim_known)
    if judged and config.judge_claim_known is not None:
        # The same-item passages once more, by the judge's cosine and its own scorer.
        judged = sorted(judged, key=passage_key)  # of one probability, the first id (``ties``)
        scored = sorted(scored + _scored(claim, judged, config.judge_claim_known), key=lambda pair: -pair[0])
    known_best = next((pair for pair in scored if pair[1].known.record.id in same_ids), None)
    scorer = config.claim_known
    stated = stated_for(claim, same_items)
    numbers, replaced, rough = substantive_numbers(claim), replaced_for(claim, same_items), figure_readings(claim)
    unseen = new_figures(numbers - theirs, stated, replaced, rough)
    unnamed = unnamed_by(claim, same_items) or digits_unstated(claim, same_items)
    said = known_best is not None and ((scorer.decide(known_best[0]) and not unnamed) or restatement)
    if said and not unseen and known_best is not None:
        figures = numbers, replaced, rough  # the nearest may contradict what another record states (``agreeing``)
        known_best = _agreeing_pair(claim, known_best, scored, same_ids, (scorer, restatement), figures)
    shown = known_best if said else (scored[0] if scored else None)
    if shown is None:
        return _weighed_none(claim, scorer, unseen, ClaimDecision.claim_known)
    probability, hit, features = shown
    # The judge's scorer read the pair when it is one of the judge's hits (the thresholds are one).
    by = ClaimDecision.judge_claim_known if any(hit is h for h in judged or []) else ClaimDecision.claim_known
    moved = stage_moved(claim, _text(hit), told_texts(same_items)) if said else None
    if said:
        unseen = sorted(unstated(unseen, stated_for(claim, [hit.known]), rough))
    known = said and not unseen and moved is None
    record = hit.known.record
    return ClaimStatus(
        text=claim,
        known=known,
        moved_on=moved,
        extra_numbers=sorted(unstated(numbers, stated, rough)) if known else [],
        score=round(probability, 4),
        threshold=scorer.threshold,
        restated=known and not scorer.decide(probability),
        decided_by=ClaimDecision.restated if known and not scorer.decide(probability) else by,
        cosine=round(min(1.0, hit.cosine), 4),
        best_id=record.id,
        best_kind=record.kind,
        best_instance=record.instance,
        best_date=record.date,
        best_text=hit.known.passages[hit.index][:300],
        new_numbers=unseen,
        features={name: round(value, 6) for name, value in features.items()},
    )


def _weighed_none(claim: str, form: Scorer, unseen: list[str], by: ClaimDecision) -> ClaimStatus:
    """A new claim no passage was weighed for: no record is named, the score is 0."""
    return ClaimStatus(text=claim, known=False, score=0.0, threshold=form.threshold, new_numbers=unseen, decided_by=by)


Scored = tuple[float, PassageHit, dict[str, float]]
Said = tuple[Scorer, bool]
"""A decision's form and whether the item restates its paper (``restatement``: any passage says it)."""

Context = tuple[set[str], Said, Figures]
"""The same-item records' ids, the decision and the claim's figures."""


def _says(said: Said, probability: float) -> bool:
    form, restatement = said
    return form.decide(probability) or restatement


def _agreeing_pair(
    claim: str, best: Scored, scored: list[Scored], same_ids: set[str], said: Said, figures: Figures
) -> Scored:
    """The cosine decision's best same-item passage, unless it contradicts the claim (an
    earlier stage, another figure) while another one it says states what the claim does."""
    if not contradicts(claim, _text(best[1]), best[1].known.stated_numbers, figures):
        return best
    agreeing = (
        pair
        for pair in scored
        if pair[1].known.record.id in same_ids
        and _says(said, pair[0])
        and agrees(claim, _text(pair[1]), figures, _text(best[1]))
    )
    return next(agreeing, best)


def _text(hit: PassageHit) -> str:
    return hit.known.passages[hit.index]


def _scored(claim: str, hits: list[PassageHit], scorer: Scorer) -> list[tuple[float, PassageHit, dict[str, float]]]:
    """Each passage with the probability that it says what the claim says (and what that read), best first."""
    claim_language, claim_tokens = language(claim), lexical_tokens(claim)
    scored = []
    for hit in hits:
        passage_language, passage_tokens = hit.known.passage_features(hit.index)
        cross = passage_language != claim_language
        features = claim_features(min(1.0, hit.cosine), cross, jaccard(claim_tokens, passage_tokens))
        scored.append((scorer.probability(features), hit, features))
    return sorted(scored, key=lambda pair: -pair[0])


@dataclass
class Weighed:
    """One candidate passage with what the decision read of it."""

    hit: PassageHit
    same_item: bool
    features: dict[str, float]
    probability: float = 0.0
    new_numbers: list[str] = field(default_factory=list)
    added_counts: bool = False
    changes_a_figure: bool = False
    moved_on: str | None = None

    @property
    def key_point(self) -> bool:
        return self.hit.known.is_key_point(self.hit.index)

    def evidence(self) -> ClaimEvidence:
        rounded = {name: round(value, 6) for name, value in self.features.items()}
        return ClaimEvidence(
            id=self.hit.known.record.id,
            same_item=self.same_item,
            probability=round(self.probability, 4),
            features=rounded,
            new_numbers=self.new_numbers,
            key_point=self.key_point,
            changes_a_figure=self.changes_a_figure,
            added_counts=self.added_counts,
            moved_on=self.moved_on,
        )


def judge_said(
    claim: str,
    hits: list[PassageHit],
    same_ids: set[str],
    reader: PassageReader,
    form: Scorer,
    restatement: bool = False,
    theirs: frozenset[str] = frozenset(),
) -> ClaimStatus:
    """Known when the passage of a same-item record that covers most of the claim says it
    (``form``), or when a living-doc section's passage says that very fact, and in either
    case no number of the claim is a new figure to the record
    (``quantities.new_figures``).

    Of each kind the passage covering most of the claim is weighed (a fixed choice,
    so the form is fitted on what it decides). A section surveying the field shares the
    claim's words but not what it says; its coverage of the claim's names, numbers and
    tokens is what tells the two apart. Another item's record is shown, "not the same
    item", and leaves the claim new (``other_item_says``). ``theirs``: as ``judge_claim``'s."""
    same_records = [h.known for h in hits if h.known.record.id in same_ids]
    numbers, replaced, rough = substantive_numbers(claim), replaced_for(claim, same_records), figure_readings(claim)
    weighed = _weigh(claim, (numbers, replaced, rough), hits, same_ids, reader)
    same = _best([w for w in weighed if w.same_item])
    other = _best([w for w in weighed if not w.same_item])
    for chosen in (w for w in (same, other) if w is not None):
        chosen.probability = form.probability(chosen.features)
        records = same_records if chosen.same_item else [chosen.hit.known]
        chosen.moved_on = stage_moved(claim, _text(chosen.hit), told_texts(records))
    # A result number none of the same item's records states, unless it only adds detail
    # to figures they do state, makes the claim new (``quantities.new_figures``).
    stated = stated_for(claim, same_records)
    unseen = new_figures(numbers - theirs, stated, replaced, rough)
    figures = numbers, replaced, rough
    if same is not None and not unseen and contradicts(claim, _text(same.hit), same.hit.known.stated_numbers, figures):
        # It tells an earlier stage or a replaced figure: another same-item passage may state what the claim does.
        same = _agreeing(claim, same, hits, reader, (same_ids, (form, restatement), figures))
    if same is not None:
        # A count beside a shared figure is weighed as a count alone is (``claim_numbers.counts_beside``).
        unseen = unseen or claim_numbers.counts_beside(numbers - theirs, stated, rough)
        same.new_numbers = unseen  # of the item's records, any of them: what the decision goes by
        same.added_counts = added_counts(unseen, numbers, stated, replaced)
        passage, whole = _text(same.hit), same.hit.known.text_and_claims
        same.changes_a_figure = figure_changed(claim, unseen, (numbers, stated, replaced), passage, whole)
        if not numbers_make_new(same, form):
            unseen = []  # counts as detail: shown beside the known claim (``extra_numbers``), not lost
    # A passage telling an earlier stage reads as the claim's own sentence (``stages``).
    said_same = same is not None and (form.decide(same.probability) or restatement) and not unseen and not same.moved_on
    said_other = other is not None and form.decide(other.probability) and other_item_says(other)
    known = said_same or said_other
    if known:
        shown = same if said_same else other
    else:
        shown = max((w for w in (same, other) if w is not None), key=lambda w: w.probability, default=None)
    if shown is None:
        return _weighed_none(claim, form, unseen, ClaimDecision.claim_said)
    record, restated = shown.hit.known.record, said_same and not form.decide(shown.probability)
    # Detail, not a changed figure: a known claim's numbers its records do not state.
    detail = unstated(numbers, stated if said_same else shown.hit.known.stated_numbers, rough) if known else set()
    return ClaimStatus(
        text=claim,
        known=known,
        score=round(shown.probability, 4),
        threshold=form.threshold,
        restated=restated,
        decided_by=ClaimDecision.restated if restated else ClaimDecision.claim_said,
        cosine=round(min(1.0, shown.hit.cosine), 4),
        best_id=record.id,
        best_kind=record.kind,
        best_instance=record.instance,
        best_date=record.date,
        best_text=shown.hit.known.passages[shown.hit.index][:300],
        new_numbers=[] if known else (unseen if same is not None else shown.new_numbers),
        moved_on=None if known else shown.moved_on,
        extra_numbers=sorted(detail),
        features={name: round(value, 6) for name, value in shown.features.items()},
        evidence=[w.evidence() for w in (same, other) if w is not None],
    )


def other_item_says(other: Weighed) -> bool:
    """Whether another item's passage the form says the claim of makes it known: a doc section's
    with no new figure or stage; not an increment's or card's (dev: 44 of 410 were known)."""
    kind = other.hit.known.record.kind
    return kind is Kind.doc_section and not (other.new_numbers or other.moved_on)


def _agreeing(claim: str, same: Weighed, hits: list[PassageHit], reader: PassageReader, context: Context) -> Weighed:
    """``same``, said but contradicting the claim, or the same-item passage covering most of
    the claim among those that state what it does (``agreeing.agrees``) and are said too.
    They are read here, only then: one the judge put past the nearest three may be one."""
    same_ids, said, figures = context
    if not _says(said, same.probability):
        return same
    agreeing = [
        h
        for h in hits
        if h.known.record.id in same_ids
        and _text(h) != _text(same.hit)
        and agrees(claim, _text(h), figures, _text(same.hit))
    ]
    weighed = _weigh(claim, figures, agreeing, same_ids, reader) if agreeing else []
    for candidate in sorted(weighed, key=_covering):
        candidate.features["record_coverage"] = same.features["record_coverage"]  # pooled over the passages read
        candidate.probability = said[0].probability(candidate.features)
        if _says(said, candidate.probability):
            return candidate
    return same


def either_says(by_form: ClaimStatus, by_cosine: ClaimStatus) -> ClaimStatus:
    """Known when either decision says so. ``claim_said`` reads coverage, names and numbers;
    the cosine decision reads the judge's cosine of the same-item passages alone, which
    carries a point-by-point retelling in the other language that the form, fitted on
    new facts about one paper, takes for one (its features do not tell the two apart).

    A claim neither calls known is shown by the passage the form weighed: of a same-item
    record when the item has one (what the record it would repeat says instead), else the
    nearest passage of any record, a doc section's or another item's. The cosine decision's
    own closest passage was shown before, scored by USE's form, which across languages put
    unrelated titles first and printed them as saying the claim ("LMCache …" for a claim
    about TriAttention's memory, 0.56 ≥ 0.50). It is shown only when the form weighed
    nothing. The form's evidence is kept either way, so a refit re-decides from the same inputs."""
    if by_form.known:
        return by_form.model_copy(update={"cosine_known": by_cosine.known})
    if not by_cosine.known and by_form.best_id is not None:
        return by_form.model_copy(update={"cosine_known": False})
    return by_cosine.model_copy(update={"cosine_known": by_cosine.known, "evidence": by_form.evidence})


COVERAGE_CANDIDATES = 3
"""Same-item passages, nearest by the judge's cosine, whose token coverage of a claim
is read: the token graph was most of a check's added cost on records of many
passages (an abstract read sentence by sentence)."""


def _nearest_by_judge(hits: list[PassageHit], cosines: list[float], same_ids: set[str]) -> list[int]:
    """The hits whose coverage is read: the ``COVERAGE_CANDIDATES`` same-item ones nearest by the judge, and others."""
    same = [i for i in nearest_by_judge(hits, cosines) if hits[i].known.record.id in same_ids]
    kept = set(same[:COVERAGE_CANDIDATES]) | {i for i, h in enumerate(hits) if h.known.record.id not in same_ids}
    return sorted(kept)


def _weigh(
    claim: str,
    figures: tuple[set[str], set[str], set[str]],
    hits: list[PassageHit],
    same_ids: set[str],
    reader: PassageReader,
) -> list[Weighed]:
    """Each kept passage with its features; ``figures``: the claim's numbers, the ones it
    gives as replaced and the ones it writes as rough (read once per claim)."""
    claim_judge, judged = reader.claim(claim), reader.passages(hits)
    cosines = [
        float(claim_judge @ vector) if claim_judge is not None and vector is not None else 0.0 for vector in judged
    ]
    chosen = _nearest_by_judge(hits, cosines, same_ids)
    hits, cosines = [hits[i] for i in chosen], [cosines[i] for i in chosen]
    claim_tokens, *tokened = reader.token_rows([claim, *(h.known.passages[h.index] for h in hits)])
    claim_language, claim_words = language(claim), lexical_tokens(claim)
    names, (numbers, replaced, rough) = latin_names(claim), figures
    pooled = _pooled_coverage(claim_tokens, hits, tokened, same_ids)
    out = []
    for hit, judge_cosine, token_rows in zip(hits, cosines, tokened, strict=True):
        is_same = hit.known.record.id in same_ids
        passage_language, passage_words = hit.known.passage_features(hit.index)
        cross = passage_language != claim_language
        features = claim_features(min(1.0, hit.cosine), cross, jaccard(claim_words, passage_words))
        covered = coverage(claim_tokens, token_rows)
        missing_numbers = unstated(numbers, hit.known.stated_numbers | derived(claim, [hit.known]), rough)
        features.update(
            judge_cosine=judge_cosine,
            cross_judge_cosine=judge_cosine if cross else 0.0,
            coverage=covered,
            cross_coverage=covered if cross else 0.0,
            names_missing=float(min(3, len(names - hit.known.side.names))),
            numbers_missing=float(len(missing_numbers)),
            numbers_shared=float(len(numbers) - len(missing_numbers)),
            same_item=1.0 if is_same else 0.0,
            record_coverage=pooled if is_same else covered,
            # Each language pair its own offset: a loose English retelling of a known claim
            # sits at judge cosines (0.87-0.92) where a Chinese one would be a new fact.
            english_pair=1.0 if not cross and claim_language == "en" else 0.0,
        )
        beside = claim_numbers.replaced_beside(claim, hit, replaced)
        changed = new_figures(numbers, stated_by(claim, hit.known), beside, rough)
        out.append(Weighed(hit, is_same, features, new_numbers=changed))
    return out


def _pooled_coverage(
    claim_tokens: np.ndarray | None, hits: list[PassageHit], tokened: list[np.ndarray | None], same_ids: set[str]
) -> float:
    """How much of the claim the same-item passages say between them: a writer who splits
    one fact over a summary and a key point says it all, though no passage alone does."""
    rows = [r for h, r in zip(hits, tokened, strict=True) if h.known.record.id in same_ids and r is not None and len(r)]
    return coverage(claim_tokens, np.vstack(rows)) if rows else 0.0


def _best(weighed: list[Weighed]) -> Weighed | None:
    """The passage covering most of the claim (the judge's cosine, USE's, then ``passage_key`` break ties)."""
    return min(weighed, key=_covering, default=None)


def _covering(w: Weighed) -> tuple[float, float, float, str, int]:
    return -w.features["coverage"], -w.features["judge_cosine"], -w.features["cosine"], *passage_key(w.hit)
