"""``--category``: a paper card's primary category (or an increment's 主分类) filters
search, list, the JSON API and the MCP tools as ``--topic`` and ``--instance`` do:
any case, combined with the others, an unknown value named with the known ones. A
researcher's ``--topic inference --kind paper_card`` (cards have a category, no
topic) is pointed to it. Project-written records, the shapes the parsers store."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from serve_support import AsgiClient, service_for, write_rows
from tui_support import SIZE, drive, search_for, search_screen, wait_for

from kbsearch.cli import main
from kbsearch.filters import SearchFilter
from kbsearch.serve.http import build_app
from kbsearch.serve.tokens import READ_TOKEN, Access, Tokens
from kbsearch.serve.tools import build_mcp
from kbsearch.store import Store
from kbsearch.store.migrations import ON_OPEN
from kbsearch.tui import make_app
from kbsearch.tui.app import KbApp
from kbsearch.tui.results_table import ResultsTable
from kbsearch.vector_index.predicate import Predicate

ROWS = [
    {"id": "card/1", "kind": "paper_card", "title": "Paged KV cache for many tenants",
     "text": "three-level page tables share prefixes across tenants", "category": "inference",
     "date": "2026-11-01"},
    {"id": "card/2", "kind": "paper_card", "title": "Tree drafts for speculative decoding of KV cache",
     "text": "a shared trunk of drafts, 2.9x faster decoding", "category": "Inference", "date": "2026-11-02"},
    {"id": "card/3", "kind": "paper_card", "title": "Length-aware KV cache for reading comprehension",
     "text": "a benchmark of long documents", "category": "cs.CL", "date": "2026-11-03"},
    {"id": "card/4", "kind": "paper_card", "title": "KV cache without a category", "text": "uncategorised",
     "date": "2026-11-03"},
    {"id": "inc/1", "title": "KV cache offload in the serving engine", "text": "offload to host memory",
     "instance": "lola", "topic": "inference", "category": "inference", "date": "2026-11-04"},
    {"id": "inc/2", "title": "KV cache agents memory", "text": "agents keep their memory in the KV cache",
     "instance": "mira", "topic": "agents", "category": "agents", "date": "2026-11-05"},
]  # fmt: skip


@pytest.fixture
def index(fake_models: Path, tmp_path: Path) -> Path:
    source = write_rows(tmp_path / "rows.jsonl", ROWS)
    folder = tmp_path / "idx"
    assert main(["ingest", str(source), "--index", str(folder)]) == 0
    return folder


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def found(capsys: pytest.CaptureFixture[str], index: Path, *argv: str) -> list[str]:
    code, out, _ = run(capsys, "search", "KV cache", "-k", "10", "--index", str(index), "--json", *argv)
    assert code == 0
    return sorted(hit["id"] for hit in json.loads(out)["results"])


def test_search_and_list_keep_the_category_in_any_case(index: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert found(capsys, index, "--category", "INFERENCE") == ["card/1", "card/2", "inc/1"]
    assert found(capsys, index, "--category", "inference", "--kind", "paper_card") == ["card/1", "card/2"]
    assert found(capsys, index, "--category", "cs.cl") == ["card/3"]
    assert found(capsys, index, "--category", "inference", "--instance", "lola") == ["inc/1"]
    assert found(capsys, index, "--category", "inference", "--since", "2026-11-02") == ["card/2", "inc/1"]
    for mode in ("lexical", "dense"):
        assert found(capsys, index, "--category", "Inference", "--mode", mode) == ["card/1", "card/2", "inc/1"]
    _, out, _ = run(capsys, "search", "KV cache", "--category", "cs.CL", "--index", str(index), "--json")
    assert json.loads(out)["filters"]["category"] == "cs.CL"
    _, out, _ = run(capsys, "list", "--category", "agents", "--index", str(index), "--json")
    assert [r["id"] for r in json.loads(out)["records"]] == ["inc/2"]
    _, out, _ = run(capsys, "stats", "--index", str(index))
    assert "categories   - 1, Inference 1, agents 1, cs.CL 1, inference 2" in out


def test_an_unknown_or_empty_category_is_said_with_the_known_ones(
    index: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "search", "KV cache", "--category", "robotics", "--index", str(index))
    assert code == 0 and out.strip() == (
        "no results for 'KV cache': no record has category 'robotics' (categories: Inference, agents, cs.CL, inference)"
    )
    code, out, _ = run(
        capsys, "search", "KV cache", "--category", "agents", "--kind", "paper_card", "--index", str(index)
    )
    assert out.strip() == (
        "no results for 'KV cache': no paper_card has category 'agents' (theirs: Inference, cs.CL, inference): "
        "leave out the category or the kind filter"
    )
    code, out, _ = run(capsys, "list", "--category", "agents", "--instance", "lola", "--index", str(index))
    assert out.splitlines()[-1] == (
        "no record by instance 'lola' has category 'agents' (theirs: inference): "
        "leave out the category or the instance filter"
    )
    code, _, err = run(capsys, "search", "KV cache", "--category", " ", "--index", str(index))
    assert code == 2 and "--category: the value is empty" in err and "categories" in err


def test_a_topic_cards_lack_points_to_their_category(index: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("search", "KV cache", "--topic", "inference", "--kind", "paper_card", "--index", str(index))
    code, out, _ = run(capsys, *argv)
    assert code == 0 and out.strip() == (
        "no results for 'KV cache': no paper_card has topic 'inference' (paper_card records have no topic "
        "but a category: try --category 'inference'): leave out the topic or the kind filter"
    )


def test_the_api_and_the_mcp_tools_filter_by_category(index: Path) -> None:
    service = service_for(index, lock_timeout=0.2)
    try:
        tokens, _ = Tokens.in_folder(index)
        client = AsgiClient(build_app(service, tokens, host="127.0.0.1", max_body=64 * 1024))
        auth = {"Authorization": f"Bearer {(index / READ_TOKEN).read_text().strip()}"}
        body = {"query": "KV cache", "k": 10, "category": "INFERENCE", "kind": "paper_card"}
        answer = client.post("/api/search", json=body, headers=auth)
        assert answer.status_code == 200
        assert sorted(hit["id"] for hit in answer.json()["results"]) == ["card/1", "card/2"]
        unknown = client.post("/api/search", json={"query": "KV", "category": "robotics"}, headers=auth).json()
        assert unknown["unknown_filters"][0]["filter"] == "category"
        assert unknown["unknown_filters"][0]["known"] == ["Inference", "agents", "cs.CL", "inference"]
        empty = client.post("/api/search", json={"query": "KV", "category": ""}, headers=auth)
        assert empty.status_code == 422 and "categories" in empty.text, empty.text

        async def calls() -> list[Any]:
            async with Client(build_mcp(service, lambda ctx: Access.read)) as mcp:
                return [
                    await mcp.call_tool("search", {"query": "KV cache", "k": 10, "category": "cs.cl"}),
                    await mcp.call_tool("list", {"category": "Agents"}),
                ]

        search, listing = asyncio.run(calls())
        assert [hit["id"] for hit in search.structured_content["results"]] == ["card/3"]
        assert [record["id"] for record in listing.structured_content["records"]] == ["inc/2"]
    finally:
        service.close()


def test_an_index_written_before_gets_its_categories_on_open(index: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = sqlite3.connect(index / "kb.sqlite")
    with db:  # as schema 8 left it: the category only inside each record's JSON
        db.execute("ALTER TABLE records DROP COLUMN category")
        db.execute(f"PRAGMA user_version = {ON_OPEN - 1}")
        kept = db.execute("SELECT id, data FROM records ORDER BY id").fetchall()
    db.close()
    assert found(capsys, index, "--category", "inference") == ["card/1", "card/2", "inc/1"]
    store = Store.open(index)
    try:
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == ON_OPEN
        assert store.db.execute("SELECT id, data FROM records ORDER BY id").fetchall() == kept
    finally:
        store.close()


@drive
async def test_the_tui_filters_by_category_from_the_bar_and_the_palette(index: Path) -> None:
    app = make_app(str(index))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.stats is not None, "the stats")
        screen = search_screen(app)
        commands = {c.title: c for c in app.get_system_commands(screen)}
        assert {"Filter category: cs.CL", "Filter category: agents"} <= set(commands)
        await search_for(pilot, "KV cache")
        commands["Filter category: cs.CL"].callback()
        await wait_for(pilot, lambda: shown_ids(app) == ["card/3"], "the category filter")
        screen.set_filter("category", "agents")
        await wait_for(pilot, lambda: shown_ids(app) == ["inc/2"], "another category")


def shown_ids(app: KbApp) -> list[str]:
    return [hit.id for hit in search_screen(app).query_one(ResultsTable).items]


def test_a_remote_vector_engine_leaves_the_category_to_the_allowed_ids() -> None:
    # Its points carry kind, instance, topic and date only: a category filter is the store's SQL.
    assert Predicate.of(SearchFilter(category="inference")) is None
    assert Predicate.of(SearchFilter(topic="inference")) is not None
