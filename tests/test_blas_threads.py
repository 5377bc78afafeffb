"""A check puts NumPy's BLAS at one thread (``kbsearch.runtime.blas``): its
products are small, and split over busy cores each one waited."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.files import write_jsonl
from threadpoolctl import threadpool_info, threadpool_limits

import kbsearch.runtime.blas as blas
from fake_encoder import FakeEncoder
from kbsearch.kb import KnowledgeBase
from kbsearch.models import resolve_model


def _blas_threads() -> set[int]:
    return {pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"}


@pytest.fixture
def two_blas_threads(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """BLAS at two threads, as a fresh process on two cores has it, and the module not yet set."""
    if not _blas_threads():
        pytest.skip("NumPy here links no BLAS that threadpoolctl can see")
    with threadpool_limits(limits=2, user_api="blas"):
        if _blas_threads() != {2}:
            pytest.skip("this BLAS does not take a thread count")
        monkeypatch.setattr(blas, "_SET", type(blas._SET)())
        yield


def test_a_check_leaves_blas_at_one_thread(fake_models: Path, two_blas_threads: None, tmp_path: Path) -> None:
    known = [{"id": "k", "instance": "jay", "date": "2026-09-17", "text": "TriAttention cuts KV memory by 6x"}]
    with KnowledgeBase(tmp_path / "idx", resolve_model("fake"), create=True, encoder=FakeEncoder()) as kb:
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", known)])
        assert _blas_threads() == {2}  # ingest and its model leave it as it was
        kb.check(str(write_jsonl(tmp_path / "item.jsonl", [{**known[0], "id": "i", "instance": "tom"}])))
    assert _blas_threads() == {1}
