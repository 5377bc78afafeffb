"""A JSONL file is ingested as a stream: a chunk of records at a time, in one transaction."""

from __future__ import annotations

import json
import tracemalloc
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fake_encoder import FakeEncoder
from kbsearch.errors import KbError
from kbsearch.ingest import IngestReport, ingest_parsed, read_inputs
from kbsearch.parse.jsonl import MAX_WARNINGS, JsonlFile, iter_jsonl
from kbsearch.store import Store, writer


def write_rows(path: Path, count: int, *, start: int = 0, text: str = "note") -> Path:
    with path.open("w", encoding="utf-8") as out:
        for i in range(start, start + count):
            out.write(json.dumps({"id": f"r{i}", "title": f"record {i}", "text": f"{text} {i} about KV cache"}) + "\n")
    return path


CHUNK = 100  # records per part; small, so that a test file spans many


class CheapEncoder(FakeEncoder):
    """One seeded random vector per text: fast enough to trace memory over thousands."""

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        rows = [np.random.default_rng(zlib.crc32(t.encode())).standard_normal(self.dim) for t in texts]
        out = np.array(rows, dtype=np.float32).reshape(len(texts), self.dim)
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def ingest(index: Path, *paths: Path, prune: bool = False, chunk: int = CHUNK, cheap: bool = False) -> IngestReport:
    encoder = CheapEncoder() if cheap else FakeEncoder()
    report = IngestReport(model=encoder.model_id)
    parsed = read_inputs(list(paths), report)
    store = Store.open(index, create=True)
    try:
        ingest_parsed(store, parsed, report, list(paths), load_encoder=lambda: encoder, prune=prune, chunk=chunk)
    finally:
        store.close()
    return report


def test_lines_are_read_one_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text('{"title": "first"}\n{"title": "second"}\n{broken\n', encoding="utf-8")
    records = iter_jsonl(path, [])
    assert next(records).title == "first"  # given before the bad line is read
    assert next(records).title == "second"
    with pytest.raises(KbError, match=r"in.jsonl:3: invalid JSON"):
        next(records)


def test_warnings_are_capped_per_file(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps({"title": f"t{i}", "colour": "red"}) + "\n" for i in range(50)), "utf-8")
    checked = JsonlFile.checked(path)
    assert checked.count == 50
    assert len(checked.warnings) == MAX_WARNINGS + 1
    assert checked.warnings[-1] == f"and {50 - MAX_WARNINGS} more warnings like these"


def test_a_file_changed_after_its_check_is_not_written(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "in.jsonl", 3)
    checked = JsonlFile.checked(path)
    write_rows(path, 4)
    with pytest.raises(KbError, match="changed while it was being ingested"):
        next(checked.iter_records())


def test_many_chunks_are_one_ingest(tmp_path: Path) -> None:
    count = CHUNK * 3 + 10
    path = write_rows(tmp_path / "bulk.jsonl", count)
    index = tmp_path / "idx"
    first = ingest(index, path)
    assert (first.records, first.added, first.embedded) == (count, count, count * 2)
    store = Store.open(index)
    assert store.count() == count and store.generation == 1  # one transaction
    assert store.vector_index.count == count * 2
    store.close()
    # Edit one record in the last chunk and drop one from the first: only they change.
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[-1] = json.dumps({"id": f"r{count - 1}", "title": "edited", "text": "a new text"})
    del lines[5]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    again = ingest(index, path, prune=True)
    # The records after the dropped line moved up one position (updated, not
    # re-embedded); only the edited record's new text is embedded.
    assert (again.unchanged, again.updated, again.added, again.removed) == (5, count - 6, 0, 1)
    assert again.embedded == 2
    store = Store.open(index)
    assert store.count() == count - 1 and store.get("r5") is None and store.generation == 2
    assert store.get(f"r{count - 1}").title == "edited"  # type: ignore[union-attr]
    store.close()


def test_an_id_in_two_files_refuses_the_later_file_past_its_first_chunk(tmp_path: Path) -> None:
    one = write_rows(tmp_path / "a-one.jsonl", 250)
    two = write_rows(tmp_path / "b-two.jsonl", 250, start=500, text="other")
    with two.open("a", encoding="utf-8") as out:  # the clash comes in the third chunk
        out.write(json.dumps({"id": "r100", "title": "record 100", "text": "other 100 about KV cache"}) + "\n")
    three = write_rows(tmp_path / "c-three.jsonl", 1, start=500, text="third")
    report = ingest(tmp_path / "idx", one, two, three)
    assert [p.path for p in report.refused] == [str(two)]
    assert "record id 'r100' also comes from" in report.refused[0].message
    store = Store.open(tmp_path / "idx")
    assert store.get("r100").text.startswith("note")  # type: ignore[union-attr]
    # The ids of b-two.jsonl noted before the clash are forgotten: c-three.jsonl may give r500.
    assert store.get("r500").text.startswith("third")  # type: ignore[union-attr]
    assert store.get("r501") is None
    store.close()


def peak_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, count: int, chunk: int) -> int:
    """Python's peak allocation while the input is planned, embedded and
    written; the vector index built afterwards grows with the index, not the file."""
    path = write_rows(tmp_path / f"rows-{count}.jsonl", count)
    peak: list[int] = []
    refresh = writer._refresh_index

    def noted(*args: Any) -> None:
        peak.append(tracemalloc.get_traced_memory()[1])
        refresh(*args)

    monkeypatch.setattr(writer, "_refresh_index", noted)
    tracemalloc.start()
    try:
        ingest(tmp_path / f"idx-{count}-{chunk}", path, chunk=chunk, cheap=True)
    finally:
        tracemalloc.stop()
    return peak[0]


def test_memory_does_not_grow_with_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The peak for 3x the lines stays near that of 1x: the records are
    planned and written a chunk at a time, never all held."""
    peak_bytes(tmp_path, monkeypatch, 50, CHUNK)  # one-time allocations (compiled patterns, caches)
    small, large = (peak_bytes(tmp_path, monkeypatch, n, CHUNK) for n in (500, 1_500))
    assert large < 1.3 * small, (small, large)
    # The measure can fail: with the whole file as one chunk, memory grows with it.
    whole = peak_bytes(tmp_path, monkeypatch, 1_500, 1_500)
    assert whole > 2 * small, (small, whole)
