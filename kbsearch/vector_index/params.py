"""The numbers that shape the vector index, passed in rather than read from globals."""

from __future__ import annotations

from dataclasses import dataclass

import faiss

CODES = {8: faiss.ScalarQuantizer.QT_8bit, 6: faiss.ScalarQuantizer.QT_6bit, 4: faiss.ScalarQuantizer.QT_4bit}
"""Scalar quantizer types by bits per dimension."""


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
    hnsw_m: int = 24
    """Graph neighbours per vector (twice that on the bottom layer, 4 bytes
    each). At 1.44M passage vectors, 16 needed ``efSearch`` 256 (0.8-1 ms) to
    find 0.95 of the exact top 10, in a graph that took a search session
    past 1.5 GB; 24 over 6-bit codes finds 0.97 at 128 in 100 MB less
    (docs/performance.md, "The index")."""
    ef_construction: int = 120
    """Candidates weighed per insertion while building. With ``hnsw_m`` 24
    the build takes about 2.2 times the CPU of 16 and 80 (300k vectors)."""
    ef_search: int = 128
    """Candidates kept per query; fitted on held-apart queries at a million
    records (docs/performance.md, "The index")."""
    code_bits: int = 6
    """Bits per dimension of the codes the graph is searched with: 8, 6 or 4.
    6-bit codes take 384 bytes per 512-d vector instead of 512; the hits are
    scored again from the float32 vectors in SQLite, so a coarser code only
    changes which candidates are found, never a score shown."""
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
    """Vectors sampled to learn the scalar quantizer's range per dimension."""

    def __post_init__(self) -> None:
        if not 0 < self.exact_below <= self.approximate_from:
            raise ValueError(f"need 0 < exact_below ({self.exact_below}) <= approximate_from ({self.approximate_from})")
        if not 0 < self.compact_share < 1:
            raise ValueError(f"compact_share must be between 0 and 1, not {self.compact_share}")
        if self.code_bits not in CODES:
            raise ValueError(f"code_bits must be one of {sorted(CODES)}, not {self.code_bits}")
