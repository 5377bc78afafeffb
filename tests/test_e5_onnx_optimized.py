"""e5's sessions from the graph onnxruntime optimized once (``e5_onnx.optimized_session``),
on a tiny random model: the same outputs to the bit as a session built from the
original, the copy written whole and only once, and no copy where the folder is read-only."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from q4_file import tiny_bert_tensors, write_model

from kbsearch.embed import e5_onnx
from kbsearch.embed.e5_graph import bert_graph
from kbsearch.embed.e5_onnx import optimized_session, pad
from kbsearch.embed.q4 import read_q4_model

ort = pytest.importorskip("onnxruntime")
TINY = {"hidden": 32, "layers": 2, "heads": 2, "intermediate": 64, "vocab": 10, "max_positions": 16, "type_vocab": 2}
OUTPUTS = ["sentence_embedding", "token_embeddings"]


@pytest.fixture(params=["fp32", "int8"])
def graph(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    weights = tmp_path / "tiny.bin"
    write_model(weights, TINY, tiny_bert_tensors(TINY, np.random.default_rng(7)))
    fp32 = tmp_path / "fp32.onnx"
    onnx.save(bert_graph(read_q4_model(weights)), str(fp32))
    if request.param == "fp32":
        return fp32
    target = tmp_path / "model.onnx"
    e5_onnx._quantize(fp32, target)
    return target


def _options() -> object:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    return options


def _outputs(session: object) -> list[np.ndarray]:
    ids, mask = pad([[0, 5, 6, 7, 2], [0, 8, 9, 2]])
    return session.run(OUTPUTS, {"input_ids": ids, "attention_mask": mask})  # type: ignore[attr-defined]


def _copies(graph: Path) -> list[str]:
    return sorted(p.name for p in graph.parent.iterdir() if "optimized" in p.name)


def test_the_optimized_copy_gives_the_originals_outputs_to_the_bit(graph: Path) -> None:
    original = ort.InferenceSession(str(graph), _options(), providers=e5_onnx.PROVIDERS)
    first = optimized_session(ort, graph, _options())  # builds from the original, saves the copy
    assert _copies(graph) == [f"{graph.stem}.optimized-ort{ort.__version__}.onnx"]
    options = _options()
    later = optimized_session(ort, graph, options)  # loads the copy
    assert options.graph_optimization_level == ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    want = _outputs(original)
    for got in (_outputs(first), _outputs(later)):
        assert all(np.array_equal(a, b) for a, b in zip(got, want, strict=True))


def test_a_read_only_folder_gets_no_copy_and_still_a_session(graph: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # os.access stands in for the folder's mode: as root, a chmod would not stop the write
    monkeypatch.setattr(e5_onnx.os, "access", lambda path, mode: False)
    session = optimized_session(ort, graph, _options())
    assert _copies(graph) == []
    assert len(_outputs(session)) == 2


def test_an_unwritable_copy_still_gives_a_session(graph: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(source: object, target: object) -> None:
        raise PermissionError("no")

    monkeypatch.setattr(e5_onnx.os, "replace", refuse)
    session = optimized_session(ort, graph, _options())
    assert _copies(graph) == []  # the temporary copy removed, none in place
    assert len(_outputs(session)) == 2


def test_a_damaged_copy_is_made_again(graph: Path) -> None:
    optimized_session(ort, graph, _options())
    (copy,) = [graph.parent / name for name in _copies(graph)]
    copy.write_bytes(copy.read_bytes()[:200])  # cut short, as by a full disk
    session = optimized_session(ort, graph, _options())
    assert len(_outputs(session)) == 2
    later = optimized_session(ort, graph, _options())  # the copy made again loads
    assert all(np.array_equal(a, b) for a, b in zip(_outputs(later), _outputs(session), strict=True))
    assert copy.stat().st_size > 200


def test_a_copy_onnxruntime_failed_to_write_is_never_put_in_place(graph: Path) -> None:
    class FailsWhileSaving:
        """onnxruntime, but the session that saves its copy fails halfway through writing it."""

        __version__ = ort.__version__
        GraphOptimizationLevel = ort.GraphOptimizationLevel

        @staticmethod
        def InferenceSession(path: str, options: object, providers: list[str]) -> object:
            target = options.optimized_model_filepath  # type: ignore[attr-defined]
            if target:
                Path(target).write_bytes(b"half a graph")
                raise RuntimeError("disk full")
            return ort.InferenceSession(path, options, providers=providers)

    session = optimized_session(FailsWhileSaving, graph, _options())
    assert len(_outputs(session)) == 2
    assert _copies(graph) == [] and not [p for p in graph.parent.iterdir() if p.name.startswith(".")]
