"""A search hit shows its record's category (a paper card's primary category, an
increment's 主分类: what ``--category`` filters on) on its line, and carries it in
``--json``; a researcher saw cards' categories nowhere in the results (stop 60).
Project-written records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from serve_support import write_rows

from kbsearch.cli import main
from kbsearch.render.records import search_text

ROWS = [
    {"id": "card/7", "kind": "paper_card", "title": "Paged KV cache for many tenants",
     "text": "page tables share prefixes across tenants", "category": "cs.DC", "date": "2026-11-01"},
    {"id": "card/8", "kind": "paper_card", "title": "KV cache with no category", "text": "uncategorised",
     "date": "2026-11-02"},
    {"id": "inc/1", "title": "KV cache offload in the serving engine", "text": "offload to host memory",
     "instance": "lola", "topic": "inference", "category": "inference", "date": "2026-11-04"},
]  # fmt: skip


@pytest.fixture
def index(fake_models: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "idx"
    assert main(["ingest", str(write_rows(tmp_path / "rows.jsonl", ROWS)), "--index", str(folder)]) == 0
    return folder


def test_a_hit_line_shows_the_category(index: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["search", "KV cache", "-k", "5", "--index", str(index)]) == 0
    out = capsys.readouterr().out.splitlines()
    lines = {line.split("  id ")[-1]: i for i, line in enumerate(out)}
    assert out[lines["card/7  arXiv -"] - 1].endswith("[cs.DC] Paged KV cache for many tenants")
    assert out[lines["inc/1  arXiv -"] - 1].endswith("[inference] KV cache offload in the serving engine")
    assert out[lines["card/8  arXiv -"] - 1].endswith("  KV cache with no category")
    assert all(len(line) <= 120 for line in out)


def test_a_json_hit_carries_the_category(index: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["search", "KV cache", "-k", "5", "--index", str(index), "--json"]) == 0
    hits = {hit["id"]: hit["category"] for hit in json.loads(capsys.readouterr().out)["results"]}
    assert hits == {"card/7": "cs.DC", "card/8": None, "inc/1": "inference"}


def test_a_long_category_keeps_the_line_short() -> None:
    from kbsearch.responses import SearchHit, SearchResponse

    nothing = dict.fromkeys(("instance", "date", "topic", "section", "source"))
    hit = SearchHit(
        rank=1, id="card/9", score=0.5, kind="paper_card", title="T" * 200, text="", arxiv_ids=[], cited_ids=[],
        category="c" * 80, **nothing,
    )  # fmt: skip
    response = SearchResponse(query="q", model="m", mode="hybrid", k=1, filters={}, results=[hit], seconds=0.0)
    first = search_text(response).plain.splitlines()[1]
    assert f"[{'c' * 20}] " in first and len(first) == 45 + 90  # as long as a line without a category
