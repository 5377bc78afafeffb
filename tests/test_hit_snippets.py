"""A hit's snippet is a passage of its text, never its title again (probe 16: a fifth
of the hits printed the title line twice when the query matched the title best)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from support.cli import ingest_rows, run, run_json

from fake_encoder import FakeEncoder
from kbsearch.ingest import ingest_records
from kbsearch.records import Kind, Record
from kbsearch.search import SearchMode, search
from kbsearch.store import ChangeSet, Store

TITLE = "Zero-copy KV cache offloading"
TEXT = "Moves attention state between GPU and host memory without copies."
CLAIMS = ["Mechanism: attention state moves to host memory without copies", "Result: 2x longer contexts on one H100"]


def record(**extra: object) -> Record:
    fields: dict[str, object] = {
        "id": "tom/2026-09-03#1",
        "kind": Kind.increment,
        "title": TITLE,
        "text": TEXT,
        "instance": "tom",
        "date": dt.date(2026, 9, 3),
    }
    return Record.model_validate(fields | extra)


def snippet_of(tmp_path: Path, encoder: FakeEncoder, stored: Record, mode: SearchMode) -> str:
    store = Store.open(tmp_path / "idx", create=True)
    ingest_records(store, ChangeSet(upserts=[stored]), model=encoder.model_id, load_encoder=lambda: encoder)
    hit = search(store, encoder, TITLE, 1, mode=mode).results[0]
    assert hit.id == stored.id
    return "".join(span.text for span in hit.snippet)


@pytest.mark.parametrize("mode", [SearchMode.hybrid, SearchMode.dense])
def test_a_query_matching_the_title_best_shows_the_nearest_claim(
    tmp_path: Path, encoder: FakeEncoder, mode: SearchMode
) -> None:
    shown = snippet_of(tmp_path, encoder, record(claims=CLAIMS), mode)
    assert shown in CLAIMS


def test_a_record_without_claims_shows_the_start_of_its_text(tmp_path: Path, encoder: FakeEncoder) -> None:
    assert snippet_of(tmp_path, encoder, record(), SearchMode.hybrid) == TEXT


def test_the_cli_and_json_print_the_text_under_the_title(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = str(ingest_rows(capsys, tmp_path, [record().model_dump(mode="json")]))
    hit = run_json(capsys, "search", TITLE, "-k", "1", "--index", index)["results"][0]
    assert "".join(span["text"] for span in hit["snippet"]) == TEXT
    code, out, _ = run(capsys, "search", TITLE, "-k", "1", "--index", index)
    assert code == 0 and out.count(TITLE) == 1 and TEXT in out
