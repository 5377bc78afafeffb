"""The server survives any one request: inputs over a limit are refused at once
(413), bad text gets 400 or 422 with one line, never a 500. Over HTTP and over
MCP (the SDK's client), with the fake encoder."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client
from serve_support import AsgiClient, briefing_with_claims, build_index, service_for

from kbsearch.serve.http import build_app
from kbsearch.serve.service import Service
from kbsearch.serve.tokens import READ_TOKEN, Access, Tokens
from kbsearch.serve.tools import build_mcp

ABUSE_CLAIMS = 200_000
"""The issue's abusive request: a briefing of 200,000 要点 lines, about 10 MB."""


@pytest.fixture
def index(fake_models: Path, tmp_path: Path) -> Path:
    return build_index(tmp_path)


@pytest.fixture
def make_service(index: Path) -> Iterator[Callable[..., Service]]:
    made: list[Service] = []

    def make(**options: Any) -> Service:
        made.append(service_for(index, **options))
        return made[-1]

    yield make
    for service in made:
        service.close()


def read_token(index: Path) -> str:
    return (index / READ_TOKEN).read_text().strip()


def http(service: Service, index: Path) -> tuple[AsgiClient, dict[str, str]]:
    tokens, _ = Tokens.in_folder(index)
    return AsgiClient(build_app(service, tokens, host="127.0.0.1")), {"Authorization": f"Bearer {read_token(index)}"}


def one_line_error(answer: httpx.Response) -> str:
    error = answer.json()["error"]
    assert isinstance(error, str) and "\n" not in error
    return error


def mcp_calls(service: Service, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    async def run() -> list[Any]:
        async with Client(build_mcp(service, lambda ctx: Access.write)) as client:
            return [await client.call_tool(name, arguments) for name, arguments in calls]

    return asyncio.run(run())


# -- limits ------------------------------------------------------------------------


def test_the_200000_claim_check_and_a_huge_query_are_refused_at_once(
    make_service: Callable[..., Service], index: Path
) -> None:
    service = make_service()
    client, auth = http(service, index)
    abuse = briefing_with_claims(ABUSE_CLAIMS)
    assert len(abuse.encode()) > 10_000_000
    cases = [
        ("/api/check", {"text": abuse}, "input_chars"),
        ("/api/check", {"text": briefing_with_claims(3_000), "path": "2026-09-21-inference-e1prep.md"}, "item_claims"),
        ("/api/search", {"query": "KV cache " * 100_000}, "query_chars"),
    ]
    for path, body, limit in cases:
        started = time.monotonic()
        answer = client.post(path, json=body, headers=auth)
        assert answer.status_code == 413, answer.text[:300]
        assert limit in one_line_error(answer) and time.monotonic() - started < 5
    assert client.post("/api/search", json={"query": "TriAttention"}, headers=auth).status_code == 200


def test_limits_over_mcp(make_service: Callable[..., Service]) -> None:
    check, search, fine = mcp_calls(
        make_service(),
        [
            ("check", {"text": briefing_with_claims(3_000), "path": "2026-09-21-inference-e1prep.md"}),
            ("search", {"query": "KV cache " * 1_000}),
            ("search", {"query": "TriAttention"}),
        ],
    )
    assert check.is_error and "item_claims" in check.content[0].text and "3,001 claims" in check.content[0].text
    assert search.is_error and "query_chars" in search.content[0].text
    assert not fine.is_error


# -- bad text ----------------------------------------------------------------------

DEEP = b"[" * 100_000 + b"]" * 100_000
BAD_BODIES = [
    ("/api/search", b'{"query": "\\ud800 KV"}', 422, "query: not valid Unicode"),
    ("/api/search", DEEP, 400, "nested too deeply"),
    ("/api/search", b'{"query": ' + DEEP + b"}", 400, "nested too deeply"),
    ("/api/check", b'{"text": "\\ud800 KV cache"}', 422, "text: not valid Unicode"),
    ("/api/check", b'{"text": "x", "path": "a\\udfff.md"}', 422, "path: not valid Unicode"),
    ("/api/check", b'{"text": ' + DEEP + b"}", 400, "nested too deeply"),
    ("/api/show", b'{"id": "\\udc00"}', 422, "id: not valid Unicode"),
    ("/api/list", b'{"instance": "jay\\ud800"}', 422, "instance: not valid Unicode"),
    ("/api/similar", b'{"id": "tri-jay", "kind": ["increment"], "section": "\\ud800"}', 422, "section"),
    ("/api/nowhere", b"{}", 404, "no such path: /api/nowhere"),
]


def test_bad_text_gets_one_line_never_a_500(
    make_service: Callable[..., Service], index: Path, caplog: pytest.LogCaptureFixture
) -> None:
    client, auth = http(make_service(), index)
    for path, body, status, words in BAD_BODIES:
        answer = client.post(path, content=body, headers=auth)
        assert answer.status_code == status, (path, body[:40], answer.text[:200])
        assert words in one_line_error(answer), answer.text[:200]
    wrong_method = client.get("/api/search", headers=auth)
    assert wrong_method.status_code == 405 and "use POST" in one_line_error(wrong_method)
    for mode in ("lexical", "hybrid"):  # a NUL is a space: FTS5 would read it as the end of the string
        found = client.post("/api/search", json={"query": "TriAttention\0KV", "mode": mode}, headers=auth)
        assert found.status_code == 200 and found.json()["results"][0]["id"].startswith("tri-")
    nul = client.post("/api/check", json={"text": "TriAttention\0KV cache compression\n10x less"}, headers=auth)
    assert nul.status_code == 200 and nul.json()["items"]
    assert not [r for r in caplog.records if r.levelname == "ERROR"]  # no traceback in the log


def test_bad_text_over_mcp(make_service: Callable[..., Service]) -> None:
    surrogate, nul, check, show = mcp_calls(
        make_service(),
        [
            ("search", {"query": "\ud800 KV"}),
            ("search", {"query": "TriAttention\0KV", "mode": "lexical"}),
            ("check", {"text": "TriAttention \udfff KV cache"}),
            ("show", {"id": "tri-\udc00"}),
        ],
    )
    assert surrogate.is_error and "not valid Unicode" in surrogate.content[0].text
    assert show.is_error and "id: not valid Unicode" in show.content[0].text
    assert not nul.is_error and nul.structured_content["results"][0]["id"].startswith("tri-")
    assert check.is_error and "not valid Unicode" in check.content[0].text
