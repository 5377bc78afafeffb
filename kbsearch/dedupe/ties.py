"""How check breaks a tie among equal scores: by the record's id, never by the order records came in.

One text stored twice (a paper as its card and as an increment, a story sent twice) scores
the same against an item, passage for passage, to the last bit. Which of the two a check
named as a claim's evidence (and so which match ``states_claims``), and which it listed
first, was whichever came first: faiss lists equal scores in its heap's order (the highest
vector id first, and which of them reach the top k depends on k), and the candidates, the
matches and a claim's passages kept that order through stable sorts, ``max`` and ``[:n]``.
Each such choice now falls, after every score, to the record's id, the smallest first (as
``verdict.first_seen`` breaks its ties), then the passage's place in its record: the same
index and input give the same result whatever order a search, a load, the records kept
between checks (``kept_records``) or those built ahead (``kb.warm_checks``) met them in.
A score that differs, by however little, still decides.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kbsearch.dedupe.passage_reader import PassageHit
    from kbsearch.dedupe.results import Match
    from kbsearch.dedupe.rules import Embedded


def in_id_order(found: dict[str, Embedded]) -> dict[str, Embedded]:
    """A check's candidates (record id → record) in one order whatever found them first:
    everything that reads them in turn (the comparisons, ``one_item``'s anchor, the
    candidates aligned) then breaks a tie the same way."""
    return dict(sorted(found.items()))


def match_order(match: Match) -> tuple[bool, float, float, str]:
    """The order check lists its matches in: the same item first, the surest, the nearest, then by id."""
    return not match.same_item, -match.probability, -match.score, match.id


def passage_key(hit: PassageHit) -> tuple[str, int]:
    """What tells two passages of one score apart: their record's id, then their place in it."""
    return hit.known.record.id, hit.index


def nearest_first(hits: list[PassageHit]) -> list[PassageHit]:
    """A claim's passages, the nearest first; of one cosine, by ``passage_key``."""
    return sorted(hits, key=lambda hit: (-hit.cosine, *passage_key(hit)))


def nearest_by_judge(hits: list[PassageHit], judge_cosines: list[float]) -> list[int]:
    """The places of ``hits``, the nearest by the judge's cosine first; of one judge's cosine (none
    without a judge), by USE's, then by ``passage_key``."""
    return sorted(range(len(hits)), key=lambda i: (-judge_cosines[i], -hits[i].cosine, *passage_key(hits[i])))
