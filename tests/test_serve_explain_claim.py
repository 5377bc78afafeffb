"""`explain`'s `claim` over MCP and the JSON API: the CLI's `explain A B --claim N` document,
and a claim number out of range refused as bad input naming the range. Fake encoder."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from serve_support import AsgiClient, build_index, service_for

from kbsearch.cli import main
from kbsearch.serve.http import build_app
from kbsearch.serve.service import Service
from kbsearch.serve.tokens import READ_TOKEN, Access, Tokens
from kbsearch.serve.tools import build_mcp


@pytest.fixture
def service(fake_models: Path, tmp_path: Path) -> Iterator[Service]:
    service = service_for(build_index(tmp_path))
    yield service
    service.close()


def explain_tool(service: Service, arguments: dict[str, Any]) -> Any:
    async def run() -> Any:
        async with Client(build_mcp(service, lambda ctx: Access.read)) as client:
            return await client.call_tool("explain", arguments)

    return asyncio.run(run())


def test_the_explain_tool_and_api_pass_the_claim_through(service: Service, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["explain", "tri-spark", "tri-jay", "--claim", "1", "--index", str(service.root), "--json"]) == 0
    expected = json.loads(capsys.readouterr().out)
    assert expected["claim"]["n"] == 1 and expected["claim"]["claims"] == 1  # no key points: its whole text
    answer = explain_tool(service, {"a": "tri-spark", "b": "tri-jay", "claim": 1})
    assert not answer.is_error and answer.structured_content == expected
    tokens, _ = Tokens.in_folder(service.root)
    client = AsgiClient(build_app(service, tokens, host="127.0.0.1", max_body=64 * 1024))
    auth = {"Authorization": f"Bearer {(service.root / READ_TOKEN).read_text().strip()}"}
    posted = client.post("/api/explain", json={"a": "tri-spark", "b": "tri-jay", "claim": 1}, headers=auth)
    assert posted.status_code == 200 and posted.json() == expected
    refused = client.post("/api/explain", json={"a": "tri-spark", "b": "tri-jay", "claim": 2}, headers=auth)
    assert refused.status_code == 400 and "claim 2: record 'tri-spark' has 1 claim, numbered 1 to 1" in refused.text


def test_the_explain_tool_refuses_a_claim_out_of_range_naming_it(service: Service) -> None:
    answer = explain_tool(service, {"a": "tri-spark", "b": "tri-jay", "claim": 3})
    text = answer.content[0].text
    assert answer.is_error and text.startswith("bad_request: claim 3: record 'tri-spark' has 1 claim, numbered 1 to 1")
    assert "\n" not in text
