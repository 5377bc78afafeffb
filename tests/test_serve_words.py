"""The JSON API and the MCP tools take a call as the CLI takes its flags, and refuse
one in its words (a new user's probe): `"kind": "increment"` as `--kind increment`
(both wanted a list), a bound as `k must be at most 1000, not 5000; ask for fewer`
(not pydantic's "Input should be less than or equal to 1000"), over MCP in one line
like the JSON API's (it was pydantic's report of four lines); and MCP's
`serverInfo.version` is kbsearch's (it was empty). Fake encoder."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from serve_support import AsgiClient, build_index, service_for

from kbsearch import __version__
from kbsearch.serve.http import build_app
from kbsearch.serve.service import Service
from kbsearch.serve.tokens import READ_TOKEN, Access, Tokens
from kbsearch.serve.tools import build_mcp

TOO_MANY = "k must be at most 1000, not 5000; ask for fewer"
BAD_DAY = "since: '2026-13-01' is not a date (month value is outside expected range of 1-12); write YYYY-MM-DD"


@pytest.fixture
def service(fake_models: Path, tmp_path: Path) -> Iterator[Service]:
    service = service_for(build_index(tmp_path), lock_timeout=0.2)
    yield service
    service.close()


def post(service: Service, operation: str, body: dict[str, Any]) -> Any:
    tokens, _ = Tokens.in_folder(service.root)
    client = AsgiClient(build_app(service, tokens, host="127.0.0.1", max_body=64 * 1024))
    token = (service.root / READ_TOKEN).read_text().strip()
    return client.post(f"/api/{operation}", json=body, headers={"Authorization": f"Bearer {token}"})


def mcp(service: Service, calls: list[tuple[str, dict[str, Any]]]) -> tuple[Any, list[Any]]:
    async def run() -> tuple[Any, list[Any]]:
        async with Client(build_mcp(service, lambda ctx: Access.read)) as client:
            return client.server_info, [await client.call_tool(name, arguments) for name, arguments in calls]

    return asyncio.run(run())


def test_one_kind_as_a_string_is_taken_over_http_and_mcp(service: Service) -> None:
    for operation, body in [("search", {"query": "KV", "kind": "increment"}), ("list", {"kind": "paper_card"})]:
        answer = post(service, operation, body)
        assert answer.status_code == 200, answer.text
        _, [called] = mcp(service, [(operation, body)])
        assert not called.is_error, called.content[0].text
        for document in (answer.json(), called.structured_content):
            found = document["results" if operation == "search" else "records"]
            assert found and {hit["kind"] for hit in found} == {body["kind"]}


def test_a_bound_or_a_bad_value_is_refused_in_one_line_in_the_clis_words(service: Service) -> None:
    cases = [
        ("search", {"query": "KV", "k": 5000}, TOO_MANY),
        ("similar", {"id": "x", "k": 0}, "k must be at least 1, not 0"),
        (
            "search",
            {"query": "KV", "kind": "nokind"},
            "kind: 'nokind' is not one of increment, paper_card, doc_section",
        ),
        ("search", {"query": "KV", "since": "2026-13-01"}, BAD_DAY),
    ]
    _, called = mcp(service, [(operation, body) for operation, body, _ in cases])
    for (operation, body, said), tool in zip(cases, called, strict=True):
        answer = post(service, operation, body)
        said_over_http = "; ".join(filter(None, [answer.json()["error"], answer.json()["hint"]]))  # apart
        assert answer.status_code == 422 and said_over_http.startswith(said), answer.text
        text = tool.content[0].text
        assert tool.is_error and "\n" not in text and text.startswith(f"bad_request: {said}"), text


def test_the_mcp_server_names_its_version(service: Service) -> None:
    info, _ = mcp(service, [])
    assert info.name == "kbsearch" and info.version == __version__ != ""
