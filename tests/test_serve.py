"""`kbsearch serve`: the MCP tools in process, the JSON API with and without tokens, bad bodies."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLES
from filelock import FileLock
from mcp import Client
from serve_support import BRIEFING, AsgiClient, build_index, service_for

from kbsearch.cli import main
from kbsearch.kb import LOCK_NAME, KnowledgeBase
from kbsearch.serve import is_loopback, parse_address
from kbsearch.serve.http import build_app
from kbsearch.serve.requests import EMPTY_NAME, EMPTY_SECTION
from kbsearch.serve.service import Service
from kbsearch.serve.tokens import READ_TOKEN, WRITE_TOKEN, Access, Tokens
from kbsearch.serve.tools import build_mcp


@pytest.fixture
def index(fake_models: Path, tmp_path: Path) -> Path:
    return build_index(tmp_path)


def cli_json(*argv: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main([*argv, "--json"]) in (0, 1)
    return json.loads(capsys.readouterr().out)


def same_document(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Equal but for the time each run took."""
    return {**a, "seconds": 0} == {**b, "seconds": 0}


# -- MCP, in process ---------------------------------------------------------


def call_tools(service: Service, access: Access, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    async def run() -> list[Any]:
        async with Client(build_mcp(service, lambda ctx: access)) as client:
            listed = await client.list_tools()
            assert {t.name for t in listed.tools} == {
                "search", "check", "accept", "show", "similar", "explain", "list", "stats"
            }  # fmt: skip
            assert all(t.description and len(t.description) > 60 for t in listed.tools)
            return [await client.call_tool(name, arguments) for name, arguments in calls]

    return asyncio.run(run())


def test_every_mcp_tool_answers_with_the_clis_document(
    service: Service, index: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    at = ["--index", str(index)]
    results = call_tools(
        service,
        Access.write,
        [
            ("search", {"query": "TriAttention KV cache", "k": 3, "instance": "spark"}),
            ("show", {"id": "card"}),
            ("similar", {"id": "tri-jay", "k": 2}),
            ("explain", {"a": "tri-jay", "b": "tri-spark", "as_of": "2026-09-18"}),
            ("list", {"kind": ["paper_card"]}),
            ("stats", {}),
            ("check", {"text": "TriAttention frequency-domain KV cache compression\n10.7x less KV memory"}),
        ],
    )
    assert not any(r.is_error for r in results), [r.content for r in results if r.is_error]
    search, show, similar, explain, listing, stats, check = (r.structured_content for r in results)
    assert json.loads(results[0].content[0].text) == search  # text content: the same JSON
    expected = cli_json("search", "TriAttention KV cache", "-k", "3", "--instance", "spark", *at, capsys=capsys)
    assert same_document(search, expected)
    assert show == cli_json("show", "card", *at, capsys=capsys)
    assert same_document(similar, cli_json("similar", "tri-jay", "-k", "2", *at, capsys=capsys))
    assert explain == cli_json("explain", "tri-jay", "tri-spark", "--as-of", "2026-09-18", *at, capsys=capsys)
    assert explain["as_of"] == "2026-09-18"
    assert listing == cli_json("list", "--kind", "paper_card", *at, capsys=capsys)
    assert {**stats, "last_ingest": None} == {**cli_json("stats", *at, capsys=capsys), "last_ingest": None}
    assert check["items"][0]["verdict"] == "DUPLICATE" and check["accepted"] == []
    with KnowledgeBase.open(index) as kb:
        assert kb.stats().records == 4  # check never writes


def test_mcp_accept_stores_new_items_and_needs_write_access(service: Service, index: Path) -> None:
    arguments = {"text": BRIEFING, "path": "inbox/stephen/2026-09-21-inference-e1prep.md"}
    refused, checked = call_tools(service, Access.read, [("accept", arguments), ("check", arguments)])
    assert refused.is_error and "write token" in refused.content[0].text
    assert not checked.is_error and checked.structured_content["accepted"] == []
    (accepted,) = call_tools(service, Access.write, [("accept", arguments)])
    assert not accepted.is_error
    stored = accepted.structured_content["accepted"]
    assert stored and all(i.startswith("stephen/") for i in stored)
    with KnowledgeBase.open(index) as kb:
        assert {r.id for r in kb.listing().records} >= set(stored)


def test_mcp_tools_say_what_they_may_change(service: Service, index: Path) -> None:
    async def listing() -> tuple[Any, str]:
        async with Client(build_mcp(service, lambda ctx: Access.read)) as client:
            return (await client.list_tools()).tools, client.instructions or ""

    tools, instructions = asyncio.run(listing())
    for tool in tools:
        hints = tool.annotations
        assert hints is not None and hints.open_world_hint is False, tool.name
        writes = tool.name == "accept"
        assert hints.read_only_hint is not writes and hints.destructive_hint is writes, tool.name
        assert hints.idempotent_hint is True, tool.name
        assert ("Changes the knowledge base" if writes else "Read-only: changes nothing") in " ".join(
            tool.description.split()
        )
    # The instructions' example ids have the shape of the ids the parsers give.
    from kbsearch.parse import parse_file

    card = parse_file(EXAMPLES / "cards" / "card-1093-c2kv.md").records[0]
    assert card.id == "card/1093" and f"`{card.id}`" in instructions and "2607.17715" not in instructions
    assert (
        main(["ingest", str(EXAMPLES / "briefings" / "2026-09-17-jay-inference-e1prep.md"), "--index", str(index)]) == 0
    )
    with KnowledgeBase.open(index) as kb:
        assert "`jay/2026-09-17-jay-inference-e1prep#1`" in instructions and kb.show(
            "jay/2026-09-17-jay-inference-e1prep#1"
        )


def test_accepting_the_same_text_twice_changes_nothing_more(service: Service, index: Path) -> None:
    arguments = {"text": BRIEFING, "path": "inbox/stephen/2026-09-21-inference-e1prep.md"}
    first, second = call_tools(service, Access.write, [("accept", arguments), ("accept", arguments)])
    assert first.structured_content["accepted"] and not second.is_error
    with KnowledgeBase.open(index) as kb:
        assert kb.stats().records == 4 + len(first.structured_content["accepted"])


def test_mcp_tool_errors_say_what_to_fix(service: Service) -> None:
    missing, bad_k = call_tools(service, Access.write, [("show", {"id": "nope"}), ("search", {"query": "x", "k": 0})])
    assert missing.is_error and "no record with id 'nope'" in missing.content[0].text
    assert bad_k.is_error and "k" in bad_k.content[0].text


# -- the JSON API --------------------------------------------------------------


@pytest.fixture
def api(service: Service, index: Path) -> Iterator[tuple[AsgiClient, Tokens]]:
    tokens, _ = Tokens.in_folder(index)
    yield AsgiClient(build_app(service, tokens, host="127.0.0.1", max_body=64 * 1024)), tokens


def bearer(index: Path, name: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {(index / name).read_text().strip()}"}


@pytest.fixture
def root_logger_at_error() -> Iterator[None]:
    """A library may leave the root logger at ERROR (in CI, after the first e5 build):
    the server's refusals must still be logged."""
    root = logging.getLogger()
    before = root.level
    root.setLevel(logging.ERROR)
    yield
    root.setLevel(before)


@pytest.mark.usefixtures("root_logger_at_error")
def test_api_needs_a_token_except_health(
    api: tuple[Any, Tokens], index: Path, caplog: pytest.LogCaptureFixture
) -> None:
    client, _ = api
    health = client.get("/health")
    assert health.status_code == 200 and health.json()["records"] == 4
    for headers in ({}, {"Authorization": "Bearer nope"}, {"Authorization": "Basic abc"}):
        refused = client.post("/api/search", json={"query": "KV"}, headers=headers)
        assert refused.status_code == 401 and refused.json()["error"] == "missing or wrong bearer token"
        assert "serve-read.token" in refused.json()["hint"] and "$KBSEARCH_TOKEN" in refused.json()["hint"]
        assert client.get("/api/openapi.json", headers=headers).status_code == 401
    assert "401 POST /api/search" in caplog.text
    found = client.post("/api/search", json={"query": "TriAttention", "k": 2}, headers=bearer(index, READ_TOKEN))
    assert found.status_code == 200 and found.json()["results"][0]["id"].startswith("tri-")
    missed = client.post("/api/search", json={"query": "zzqqxx", "mode": "lexical"}, headers=bearer(index, READ_TOKEN))
    assert missed.json()["results"] == [] and missed.json()["matched"] == 4  # why empty: the query, not the filters
    spec = client.get("/api/openapi.json", headers=bearer(index, READ_TOKEN)).json()
    assert set(spec["paths"]) >= {f"/api/{n}" for n in ("search", "check", "show", "similar", "stats")}
    assert "SearchRequest" in spec["components"]["schemas"] and "CheckResult" in spec["components"]["schemas"]


def test_read_token_cannot_accept(api: tuple[Any, Tokens], index: Path) -> None:
    client, _ = api
    body = {"text": BRIEFING, "path": "inbox/stephen/2026-09-21-inference-e1prep.md", "accept": True}
    refused = client.post("/api/check", json=body, headers=bearer(index, READ_TOKEN))
    assert refused.status_code == 403 and "write token" in refused.json()["error"]
    with KnowledgeBase.open(index) as kb:
        assert kb.stats().records == 4
    accepted = client.post("/api/check", json=body, headers=bearer(index, WRITE_TOKEN))
    assert accepted.status_code == 200 and accepted.json()["accepted"]


def test_bad_bodies_get_one_line_and_the_server_goes_on(api: tuple[Any, Tokens], index: Path) -> None:
    client, _ = api
    auth = bearer(index, READ_TOKEN)
    cases = [
        (b"x" * (65 * 1024), 413, "limit"),
        (b'{"query": ', 400, "not JSON"),
        (b"[1, 2]", 400, "JSON object"),
        (b'{"query": "KV", "kk": 3}', 422, "kk"),
        (b'{"query": "KV", "k": "many"}', 422, "k"),
        (b'{"k": 3}', 422, "query"),
        (b'{"query": "   "}', 400, "empty"),
    ]
    for body, status, words in cases:
        answer = client.post("/api/search", content=body, headers=auth)
        assert answer.status_code == status, (body[:30], answer.text)
        error = answer.json()["error"]
        assert words in error and "\n" not in error
    assert client.post("/api/show", json={"id": "nope"}, headers=auth).status_code == 404
    assert client.post("/api/search", json={"query": "KV"}, headers=auth).status_code == 200


@pytest.mark.parametrize(
    ("operation", "body", "field"),
    [
        ("search", {"query": "KV", "instance": ""}, "instance"),
        ("search", {"query": "KV", "instance": "  "}, "instance"),
        ("list", {"topic": ""}, "topic"),
        ("similar", {"id": "tri-jay", "instance": " "}, "instance"),
        ("list", {"section": ""}, "section"),
    ],
)
def test_an_empty_filter_is_refused_as_the_cli_refuses_it(
    api: tuple[Any, Tokens], service: Service, index: Path, operation: str, body: dict[str, Any], field: str
) -> None:
    """An empty instance filtered nothing (or, of spaces, everything) with a 200: `--instance ""` is exit 2."""
    client, _ = api
    answer = client.post(f"/api/{operation}", json=body, headers=bearer(index, READ_TOKEN))
    problem = f"{field}: {EMPTY_SECTION if field == 'section' else EMPTY_NAME}"
    assert answer.status_code == 422 and answer.json() == {"error": problem, "hint": None}
    (called,) = call_tools(service, Access.read, [(operation, body)])
    assert called.is_error and problem in called.content[0].text


def test_a_busy_writer_is_503_with_a_retry_hint(api: tuple[Any, Tokens], index: Path) -> None:
    client, _ = api
    body = {"text": BRIEFING, "path": "inbox/stephen/2026-09-21-inference-e1prep.md", "accept": True}
    with FileLock(str(index / LOCK_NAME)):
        busy = client.post("/api/check", json=body, headers=bearer(index, WRITE_TOKEN))
    assert busy.status_code == 503 and busy.headers["Retry-After"].isdigit()
    assert "nothing was written" in busy.json()["error"] and "retry" in busy.json()["hint"]
    with KnowledgeBase.open(index) as kb:
        assert kb.stats().records == 4


# -- tokens and binding ---------------------------------------------------------


def test_tokens_are_private_and_kept(tmp_path: Path) -> None:
    _, paths = Tokens.in_folder(tmp_path)
    assert [p.name for p in paths] == [READ_TOKEN, WRITE_TOKEN]
    assert all(p.stat().st_mode & 0o777 == 0o600 for p in paths)
    read, write = (p.read_text().strip() for p in paths)
    assert read != write and len(read) >= 32
    again, _ = Tokens.in_folder(tmp_path)
    assert again.access(f"Bearer {read}") is Access.read and again.access(f"Bearer {write}") is Access.write
    assert again.access(f"bearer {write} ") is Access.write
    assert again.access(None) is Access.none and again.access("Bearer ") is Access.none
    assert again.access(f"Bearer {read[:-1]}") is Access.none
    paths[1].chmod(0o644)
    with pytest.raises(Exception, match="readable by other users"):
        Tokens.in_folder(tmp_path)


def test_a_non_loopback_bind_needs_allow_remote(
    index: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.0.2.7") and not is_loopback("::")
    assert parse_address("[::1]:8765") == ("::1", 8765)
    started: list[str] = []
    monkeypatch.setattr("kbsearch.serve._serve_http", lambda options, host, port: started.append(host) or 0)
    code = main(["serve", "--http", "0.0.0.0:0", "--index", str(index)])
    err = capsys.readouterr().err
    assert code == 2 and "--allow-remote" in err and "TLS" in err and started == []
    assert main(["serve", "--http", "0.0.0.0:0", "--allow-remote", "--index", str(index)]) == 0
    assert started == ["0.0.0.0"]
    assert main(["serve", "--http", "nonsense", "--index", str(index)]) == 2


def test_readers_share_one_index_and_take_the_writers_after_an_accept(
    index: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import kbsearch.store.vector_cache as vector_cache
    from kbsearch.serve.requests import CheckRequest, SearchRequest

    loads: list[int] = []
    real = vector_cache.load_cache
    monkeypatch.setattr(vector_cache, "load_cache", lambda *a, **k: loads.append(k["generation"]) or real(*a, **k))
    service = service_for(index, readers=3)
    try:
        assert loads == [1]  # three readers and the writer opened the index, one loaded its vectors
        body = {"text": '{"id": "mooncake", "title": "Mooncake disaggregated KV transfer"}', "path": "new.jsonl"}

        async def run() -> list[str]:
            result = await service.check(CheckRequest(**body, accept=True), Access.write)
            assert result.accepted == ["mooncake"]
            found = await asyncio.gather(
                *(service.search(SearchRequest(query="Mooncake disaggregated KV transfer", k=1)) for _ in range(6))
            )
            return [f.results[0].id for f in found]

        assert asyncio.run(run()) == ["mooncake"] * 6
        assert loads == [1]  # generation 2 came from the writer, not from the file
    finally:
        service.close()


# A third increment beside BRIEFING's two: once BRIEFING is stored, two of its three items are repeats.
MIXED = BRIEFING.replace(
    "本报告由",
    "## 增量 3：Prefill 节点按队列长度扩缩容（⭐⭐⭐）\n\n- 来源：内部实践\n- 要点：\n"
    "  - 队列长度超过 64 时新增一个 prefill 副本\n- 可信度：中\n\n本报告由",
)


def test_accept_is_all_or_nothing_over_http_and_mcp(api: tuple[Any, Tokens], service: Service, index: Path) -> None:
    """The CLI's accept contract on the other surfaces: a DUPLICATE among the items stores none of them."""
    client, _ = api
    first = {"text": BRIEFING, "path": "inbox/stephen/2026-09-21-inference-e1prep.md", "accept": True}
    assert client.post("/api/check", json=first, headers=bearer(index, WRITE_TOKEN)).json()["accepted"]
    with KnowledgeBase.open(index) as kb:
        before = {r.id for r in kb.listing().records}
    mixed = {"text": MIXED, "path": "inbox/tom/2026-09-22-inference-e1prep.md"}
    answer = client.post("/api/check", json={**mixed, "accept": True}, headers=bearer(index, WRITE_TOKEN)).json()
    (tool,) = call_tools(service, Access.write, [("accept", mixed)])
    for result in (answer, tool.structured_content):
        assert [i["verdict"] for i in result["items"]].count("DUPLICATE") >= 1, result["items"]
        assert "NEW" in [i["verdict"] for i in result["items"]]
        assert result["accepted"] == [] and result["accept_refused"], result
    with KnowledgeBase.open(index) as kb:
        assert {r.id for r in kb.listing().records} == before


def test_the_log_says_when_an_accept_begins_and_not_when_a_check_does(
    service: Service, caplog: pytest.LogCaptureFixture
) -> None:
    """An accept is a write: the log says when each began, so a stop or a lost client that cuts
    one short is read beside its start (and a test can wait for it to run)."""
    from kbsearch.serve.requests import CheckRequest

    body = {"text": '{"id": "mooncake", "title": "Mooncake disaggregated KV transfer"}', "path": "new.jsonl"}
    with caplog.at_level(logging.INFO, "kbsearch.serve"):
        asyncio.run(service.check(CheckRequest(**body), Access.write))
        assert "started" not in caplog.text
        assert asyncio.run(service.check(CheckRequest(**body, accept=True), Access.write)).accepted == ["mooncake"]
    started = [r.getMessage() for r in caplog.records if "started" in r.getMessage()]
    assert started == ["check --accept of new.jsonl: started"]
