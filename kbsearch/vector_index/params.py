"""The numbers that shape the vector index, passed in rather than read from globals."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class IndexParams:
    """How the index is built and searched. Tests pass small values; the
    defaults were measured with ``bench/scale.py`` on real sentence vectors
    (see docs/performance.md)."""

    approximate_from: int = 100_000
    """At this many vectors the index turns approximate (HNSW). Below it an
    exact scan answers in a few milliseconds and needs no graph."""
    exact_below: int = 50_000
    """An HNSW index that shrinks below this goes back to exact; the gap keeps
    an index near the boundary from flipping back and forth."""
    hnsw_m: int = 16
    """Graph neighbours per vector (twice that on the bottom layer): 128 bytes
    of links per vector. 32 finds a few more true neighbours at equal search
    effort but adds 128 bytes per vector, memory a million-record session
    does not have beside the model."""
    ef_construction: int = 80
    """Candidates weighed per insertion while building: 40 builds in half the
    time but loses about 0.025 of recall@10 at equal search effort."""
    ef_search: int = 128
    """Candidates kept per query. Recall against exact search falls as the
    graph grows; this holds recall@10 at 0.95 on real passage vectors at a
    million (docs/performance.md), where 64 does not."""
    compact_share: float = 0.2
    """Deleted vectors stay in the graph as tombstones, skipped at search
    time, until they are this share of it; then a background compaction
    rebuilds the graph without them."""
    background_compaction: bool = True
    """Start the compaction in its own process when it is due (tests run it themselves)."""
    exact_subset_max: int = 20_000
    """A filter that keeps at most this many vectors is answered by scoring
    them all: a graph search would walk mostly filtered-out vectors."""
    train_size: int = 100_000
    """Vectors sampled to learn the 8-bit quantizer's range per dimension."""

    def __post_init__(self) -> None:
        if not 0 < self.exact_below <= self.approximate_from:
            raise ValueError(f"need 0 < exact_below ({self.exact_below}) <= approximate_from ({self.approximate_from})")
        if not 0 < self.compact_share < 1:
            raise ValueError(f"compact_share must be between 0 and 1, not {self.compact_share}")
