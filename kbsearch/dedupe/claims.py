"""Is a claim (要点) of an item known? Each claim against the passages of the
records the item was judged the same item as, and the closest passages of
any record: known only when a same-item record says it, and no result
number in it is unseen.

Two summaries of different papers on one topic read alike sentence by
sentence; counting those would call a new paper a duplicate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.results import ClaimStatus
from kbsearch.dedupe.rules import Embedded
from kbsearch.dedupe.scorer import Scorer
from kbsearch.textsim import jaccard, language, lexical_tokens, substantive_numbers


@dataclass
class PassageHit:
    """A known passage found for one claim of the item."""

    known: Embedded
    index: int
    cosine: float


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
) -> ClaimStatus:
    """Known when a passage of a same-item record says the same, and no result
    number in it is unseen.

    Only a record judged the same item can make a claim known: two summaries
    of different papers on one topic read alike sentence by sentence, and
    counting those would call a new paper a duplicate. ``hits`` (from a search
    over everything known) are shown as the closest passage when no same-item
    passage says the same. With ``restatement`` (a card of a paper that already
    has one) only an unseen number makes the claim new.
    """
    own = [PassageHit(k, i, float(s)) for k in same_items for i, s in enumerate(k.vectors @ vector)]
    scored = _scored(claim, own + hits, config.claim_known)
    if judged and config.judge_claim_known is not None:
        # The same-item passages once more, by the judge's cosine and its own scorer.
        scored = sorted(scored + _scored(claim, judged, config.judge_claim_known), key=lambda pair: -pair[0])
    same_ids = {k.record.id for k in same_items}
    known_best = next((pair for pair in scored if pair[1].known.record.id in same_ids), None)
    scorer = config.claim_known
    unseen = sorted(substantive_numbers(claim) - set().union(*(k.numbers for k in same_items)))
    said = known_best is not None and (scorer.decide(known_best[0]) or restatement)
    shown = known_best if said else (scored[0] if scored else None)
    if shown is None:
        return ClaimStatus(text=claim, known=False, score=0.0, threshold=scorer.threshold, new_numbers=unseen)
    probability, hit, features = shown
    if said:
        unseen = sorted(set(unseen) - hit.known.numbers)
    record = hit.known.record
    return ClaimStatus(
        text=claim,
        known=said and not unseen,
        score=round(probability, 4),
        threshold=scorer.threshold,
        cosine=round(min(1.0, hit.cosine), 4),
        best_id=record.id,
        best_instance=record.instance,
        best_date=record.date,
        best_text=hit.known.passages[hit.index][:300],
        new_numbers=unseen,
        features={name: round(value, 6) for name, value in features.items()},
    )


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
