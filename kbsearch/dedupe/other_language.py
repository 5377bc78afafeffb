"""Audit's candidates across languages: each record's nearest records in the other language.

A repeat told in the other language sits far from its original under USE,
and in a large store a record's nearest records are nearly all in its own
language: with its ten nearest alone, audit put 0.42 of the cross-language
same-paper pairs of the bench corpus's first 30k records in one cluster with
the judge on, 0.34 of those of 100k with it off. So each record is also
paired with its ``audit_other_language`` nearest records written in the
other language (Chinese or not, by ``textsim.language``), found in the
judge's space when the config has a judge (across languages e5 keeps a
retelling near its original, where USE does not).

Finding them was not enough: a pair across languages was judged against the
later record's neighbourhood, its nearest records, all in its own language
and all far closer than any retelling across the language gap, so the
relative features sank it. Such a pair is judged against the later record's
``neighbourhood`` nearest records in the earlier one's language instead
(``judging.Candidates.around_reader``), as ``check`` judges an English item
against a Chinese store. docs/dedupe.md ("audit") has the measurements.

The vectors are spilled to files as the roster is read (a record's language
is known only once its text is read, and each language's records are spread
over every chunk), then one language is searched for the other's records, a
batch at a time: exactly up to ``EXACT_UP_TO`` records, through a graph
over 8-bit codes built for the audit past that.
"""

from __future__ import annotations

from dataclasses import dataclass

import faiss
import numpy as np

from kbsearch.dedupe.neighbours import BATCH, NeighbourPairs, default_threads, unique_pairs
from kbsearch.dedupe.roster import Roster
from kbsearch.dedupe.spilled import SpilledVectors
from kbsearch.vector_index.threads import omp_threads

EXACT_UP_TO = 100_000
"""Records of one language searched exactly; past this, through an HNSW graph
(an exact scan of a million records against half a million is hours)."""
GRAPH_M, GRAPH_EF_CONSTRUCTION, GRAPH_EF_SEARCH = 16, 40, 64


@dataclass(frozen=True)
class OtherLanguage:
    """What audit reads of each record's nearest records in the other language."""

    candidates: NeighbourPairs
    """Each record with its ``k`` nearest: pairs to judge."""
    nearby: NeighbourPairs
    """Each record with its ``neighbourhood`` nearest, by the index encoder's
    cosine: the neighbourhood a pair across languages is judged against."""
    nearby_judged: np.ndarray
    """The judge's cosine of each ``nearby`` pair (zeros without a judge)."""


class OtherLanguagePairs:
    """Finds each audited record's nearest records of the other language, in
    the judge's space when ``judges`` holds its vectors, else in the index
    encoder's (``wholes``); both one row per roster row."""

    def __init__(self, wholes: SpilledVectors, judges: SpilledVectors | None, k: int) -> None:
        self.wholes, self.judges, self.k = wholes, judges, k
        self.space = judges or wholes

    def pairs(self, roster: Roster, nearby: int) -> OtherLanguage | None:
        """Each record's ``k`` nearest as candidates, its ``nearby`` nearest as
        its neighbourhood; None when there are none to find."""
        if not self.k or not self.space.dim:
            return None
        chinese = roster.chinese & roster.present
        other = ~roster.chinese & roster.present
        ranked = [
            self._nearest(np.flatnonzero(mine), np.flatnonzero(theirs), max(self.k, nearby))
            for mine, theirs in ((chinese, other), (other, chinese))
            if mine.any() and theirs.any()
        ]
        if not ranked:
            return None
        rank = np.concatenate([r[1] for r in ranked])
        found = NeighbourPairs(
            left=np.concatenate([r[0].left for r in ranked]),
            right=np.concatenate([r[0].right for r in ranked]),
            cosine=np.concatenate([r[0].cosine for r in ranked]),
        )
        candidates = unique_pairs([_subset(found, rank < self.k)], len(roster))
        near = unique_pairs([found], len(roster))
        # Exact cosines from the spilled vectors: a graph scores 8-bit codes.
        judged = np.zeros(len(near), np.float32) if self.judges is None else self.judges.cosines(near.left, near.right)
        by_encoder = NeighbourPairs(left=near.left, right=near.right, cosine=self.wholes.cosines(near.left, near.right))
        return OtherLanguage(candidates, by_encoder, judged)

    def _nearest(self, rows: np.ndarray, targets: np.ndarray, most: int) -> tuple[NeighbourPairs, np.ndarray]:
        """Each row with its ``most`` nearest targets, and each pair's rank among the row's (0: nearest)."""
        with omp_threads(default_threads()):
            searched = _searchable(self.space, targets)
            fetch = min(most, len(targets))
            lefts, rights, scores, ranks = [], [], [], []
            for start in range(0, len(rows), BATCH):
                mine = rows[start : start + BATCH]
                found_scores, found = searched.search(self.space.rows_of(mine), fetch)
                keep = found >= 0
                lefts.append(np.broadcast_to(mine[:, None], found.shape)[keep])
                rights.append(targets[found[keep]])
                scores.append(found_scores[keep])
                ranks.append(np.broadcast_to(np.arange(fetch)[None, :], found.shape)[keep])
        left, right = np.concatenate(lefts), np.concatenate(rights)
        pairs = NeighbourPairs(
            left=np.minimum(left, right), right=np.maximum(left, right), cosine=np.concatenate(scores)
        )
        return pairs, np.concatenate(ranks)


def _subset(pairs: NeighbourPairs, keep: np.ndarray) -> NeighbourPairs:
    return NeighbourPairs(left=pairs.left[keep], right=pairs.right[keep], cosine=pairs.cosine[keep])


def _searchable(vectors: SpilledVectors, targets: np.ndarray) -> faiss.Index:
    """The target rows' vectors in a faiss index, positions in ``targets`` as ids."""
    if len(targets) <= EXACT_UP_TO:
        index: faiss.Index = faiss.IndexFlatIP(vectors.dim)
    else:
        # 8-bit codes: a quarter of the float32 vectors' memory (a million
        # records' USE vectors would be 2 GB); they only rank, never score.
        code = faiss.ScalarQuantizer.QT_8bit
        index = faiss.IndexHNSWSQ(vectors.dim, code, GRAPH_M, faiss.METRIC_INNER_PRODUCT)  # type: ignore[arg-type]
        index.hnsw.efConstruction = GRAPH_EF_CONSTRUCTION
        index.hnsw.efSearch = GRAPH_EF_SEARCH
        index.train(vectors.rows_of(targets[:: max(1, len(targets) // 20_000)]))
    for start in range(0, len(targets), BATCH * 4):
        index.add(vectors.rows_of(targets[start : start + BATCH * 4]))
    return index
