"""An error the server returns names the field or the route (/api) or the tool (MCP) to
use, never a CLI command or flag (a probe: /api and MCP hints said "run 'kbsearch list
--json'", "pass --replace", "use 'kbsearch check'", which a script or an agent cannot
run); the CLI through the server keeps its own words, as a local run says them. Fake
encoder."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from serve_support import AsgiClient, build_index, service_for

from kbsearch.dedupe.config import FIT_HINT
from kbsearch.kb.reading import LIST_IDS_HINT
from kbsearch.limits import BULK_HINT, DEFAULT_LIMITS
from kbsearch.serve.http import build_app
from kbsearch.serve.service import Service
from kbsearch.serve.tokens import WRITE_TOKEN, Access, Tokens
from kbsearch.serve.tools import build_mcp
from kbsearch.serve.words import CLI_HEADER, said

# A stored id for another item: accepting it is refused, "or pass --replace".
CLASH = json.dumps({"id": "tri-spark", "title": "Sourdough starter feeding schedule", "text": "flour and water"})
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("show", {"id": "nope"}),
    ("explain", {"a": "tri-jay", "b": "nope"}),
    ("search", {"query": "KV " * DEFAULT_LIMITS.query_chars}),
    ("accept", {"text": CLASH, "path": "clash.jsonl"}),
]
CLI_WORDS = re.compile(r"(?<![\w-])--?[a-z]|kbsearch ")


@pytest.fixture
def service(fake_models: Path, tmp_path: Path) -> Iterator[Service]:
    service = service_for(build_index(tmp_path), lock_timeout=0.2)
    yield service
    service.close()


def post(service: Service, operation: str, body: dict[str, Any], headers: dict[str, str] | None = None) -> Any:
    if operation == "accept":
        operation, body = "check", {**body, "accept": True}
    tokens, _ = Tokens.in_folder(service.root)
    client = AsgiClient(build_app(service, tokens, host="127.0.0.1"))
    token = (service.root / WRITE_TOKEN).read_text().strip()
    return client.post(f"/api/{operation}", json=body, headers={"Authorization": f"Bearer {token}", **(headers or {})})


def mcp(service: Service) -> list[Any]:
    async def run() -> list[Any]:
        async with Client(build_mcp(service, lambda ctx: Access.write)) as client:
            return [await client.call_tool(name, arguments) for name, arguments in CALLS]

    return asyncio.run(run())


def test_api_and_mcp_errors_name_fields_routes_and_tools_not_the_clis_commands(service: Service) -> None:
    hints = []
    for (operation, body), tool in zip(CALLS, mcp(service), strict=True):
        answer = post(service, operation, body)
        assert answer.status_code in {400, 404, 413}, answer.text
        for text in (answer.json()["error"], answer.json()["hint"], tool.content[0].text):
            assert text and not CLI_WORDS.search(text), (operation, text)
        hints.append((answer.json()["hint"], tool.content[0].text))
    assert hints[0][0].startswith("POST /api/list lists the ids") and "the list tool" in hints[0][1]
    assert hints[2][0] == "search for a sentence or a title, not a whole text; POST a text to /api/check"
    assert hints[2][1].endswith("; use the check tool for a text")
    assert hints[3][0].endswith('or send "replace": true to overwrite the stored record')
    assert hints[3][1].endswith("or pass replace: true to the accept tool to overwrite the stored record")


def test_the_clis_client_gets_the_clis_words(service: Service) -> None:
    answer = post(service, "show", {"id": "nope"}, {CLI_HEADER: "cli"})
    assert answer.status_code == 404 and answer.json()["hint"] == LIST_IDS_HINT
    answer = post(service, "accept", {"text": CLASH, "path": "clash.jsonl"}, {CLI_HEADER: "cli"})
    assert "pass --replace" in answer.json()["hint"]


@pytest.mark.parametrize(
    "hint",
    [
        LIST_IDS_HINT,
        BULK_HINT,
        FIT_HINT,
        "run 'kbsearch reindex --model e5' to switch it",
        "run 'kbsearch reindex' (embeds what the judge lacks)",
        "ids are listed by 'kbsearch list --json' and 'search --json'",
        "compare as of that day with --as-of, or --since and -k 5",
    ],
)
def test_every_worded_hint_loses_the_clis_words_on_both_sides(hint: str) -> None:
    for words in ("api", "mcp"):
        assert not CLI_WORDS.search(said(hint, words) or ""), (words, said(hint, words))
    assert said(hint, "cli") == hint
