"""An MCP tool refuses what the JSON API refuses, and says it so that an agent can act
(a new user's probe): an unknown or misspelt argument was ignored (`search {"sinse": …}`
ran unfiltered; `check {"accept": true}` answered `accepted: []` and stored nothing,
silently); a busy server said no retry time over MCP (the JSON API: 503, Retry-After),
and a writer lock's timeout named an environment variable a remote agent cannot set.
Fake encoder."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock
from mcp import Client
from serve_support import BRIEFING, AsgiClient, build_index, service_for

import kbsearch
from kbsearch.kb import LOCK_NAME, KnowledgeBase
from kbsearch.serve.failures import CODES, META_KEY
from kbsearch.serve.http import build_app
from kbsearch.serve.service import Service
from kbsearch.serve.tokens import READ_TOKEN, WRITE_TOKEN, Access, Tokens
from kbsearch.serve.tools import build_mcp
from kbsearch.serve.words import PHRASES

NEW = "Zorblax serves seven adapters\n- Zorblax serves 7 LoRA adapters on one GPU"


@pytest.fixture
def service(fake_models: Path, tmp_path: Path) -> Iterator[Service]:
    service = service_for(build_index(tmp_path), lock_timeout=0.2)
    yield service
    service.close()


def mcp(service: Service, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    async def run() -> list[Any]:
        async with Client(build_mcp(service, lambda ctx: Access.write)) as client:
            return [await client.call_tool(name, arguments) for name, arguments in calls]

    return asyncio.run(run())


def post(service: Service, operation: str, body: dict[str, Any], token_file: str = READ_TOKEN) -> Any:
    tokens, _ = Tokens.in_folder(service.root)
    client = AsgiClient(build_app(service, tokens, host="127.0.0.1", max_body=64 * 1024))
    token = (service.root / token_file).read_text().strip()
    return client.post(f"/api/{operation}", json=body, headers={"Authorization": f"Bearer {token}"})


def said(result: Any) -> dict[str, Any]:
    assert result.is_error and result.meta is not None, result
    return result.meta[META_KEY]


@pytest.mark.parametrize(
    ("operation", "body", "message", "hint"),
    [
        ("search", {"query": "KV", "sinse": "2026-09-01"}, "sinse: no such field", "did you mean since?"),
        ("check", {"text": NEW, "pth": "a.md"}, "pth: no such field", "did you mean path?"),
        ("explain", {"a": "tri-jay", "b": "tri-spark", "asof": "2026-09-18"}, "asof: no such field", "as_of"),
    ],
)
def test_a_misspelt_argument_is_refused_as_the_json_api_refuses_it(
    service: Service, operation: str, body: dict[str, Any], message: str, hint: str
) -> None:
    (called,) = mcp(service, [(operation, body)])
    error = said(called)
    assert error["code"] == "bad_request" and error["error"] == message and hint in error["hint"]
    assert called.content[0].text == f"bad_request: {message}; {error['hint']}"
    answer = post(service, operation, body)
    assert answer.status_code == 422 and answer.json()["error"] == message and hint in answer.json()["hint"]


def test_check_with_accept_points_to_the_accept_tool_and_stores_nothing(service: Service) -> None:
    accept_in_check, replace_in_check, extra = mcp(
        service,
        [("check", {"text": NEW, "accept": True}), ("check", {"text": NEW, "replace": True}), ("stats", {"x": 1})],
    )
    for refused in (accept_in_check, replace_in_check):
        assert said(refused)["code"] == "bad_request" and "accept tool" in said(refused)["hint"]
    assert said(extra)["error"] == "x: no such field"
    with KnowledgeBase.open(service.root) as kb:
        assert kb.stats().records == 4


def test_a_busy_writer_says_when_to_retry_and_the_servers_setting(service: Service) -> None:
    body = {"text": BRIEFING, "path": "inbox/stephen/2026-09-21-inference-e1prep.md"}
    with FileLock(str(service.root / LOCK_NAME)):
        (busy,) = mcp(service, [("accept", body)])
    error, text = said(busy), busy.content[0].text
    assert error["code"] == "busy" and error["status"] == 503 and isinstance(error["retry_after"], int)
    assert text.startswith("busy: ") and f"retry in {error['retry_after']}s" in text and "\n" not in text
    # A remote agent cannot set the server's environment: the server's own setting, named.
    assert "KBSEARCH_LOCK_TIMEOUT" not in text and "waits 0.2s" in text and "--lock-timeout" in text
    with FileLock(str(service.root / LOCK_NAME)):
        answer = post(service, "check", {**body, "accept": True}, WRITE_TOKEN)
    assert answer.status_code == 503 and answer.headers["Retry-After"] == str(error["retry_after"])
    assert answer.json() == {"error": error["error"], "hint": error["hint"]}  # the JSON API says the same
    with KnowledgeBase.open(service.root) as kb:
        assert kb.stats().records == 4


def test_every_tool_error_starts_with_its_code_and_names_no_cli_command(service: Service) -> None:
    missing, unknown_pair, empty, bound = mcp(
        service,
        [
            ("show", {"id": "nope"}),
            ("explain", {"a": "tri-jay", "b": "nope"}),
            ("check", {"text": "  \n"}),
            ("search", {"query": "KV", "k": 5000}),
        ],
    )
    assert [said(r)["code"] for r in (missing, unknown_pair, empty, bound)] == [
        "not_found", "not_found", "bad_request", "bad_request"
    ]  # fmt: skip
    for result in (missing, unknown_pair, empty, bound):
        text = result.content[0].text
        assert text.split(":")[0] in CODES and "\n" not in text, text
        assert "kbsearch " not in text and "stdin" not in text, text  # the CLI's words, not an agent's
    assert "list tool" in missing.content[0].text and empty.content[0].text.startswith("bad_request: text is empty")


def test_the_cli_words_the_server_rewords_are_still_said() -> None:
    """Each CLI wording ``words.PHRASES`` replaces is still in the source: a hint reworded
    there must be reworded here too, or it reaches the agent naming a CLI command."""
    package = Path(kbsearch.__file__).parent
    source = "\n".join(p.read_text(encoding="utf-8") for p in package.rglob("*.py") if p.name != "words.py")
    for cli, _, _ in PHRASES:
        assert re.search(cli, source), cli


def test_the_tools_describe_this_index_and_the_fields_an_agent_reads(service: Service) -> None:
    async def listing() -> tuple[list[Any], str]:
        async with Client(build_mcp(service, lambda ctx: Access.read)) as client:
            return (await client.list_tools()).tools, client.instructions or ""

    tools, instructions = asyncio.run(listing())
    search = next(tool for tool in tools if tool.name == "search")
    # Each index has its own writers: no fixed list of them, but where to find them.
    for described in (instructions, search.input_schema["properties"]["instance"]["description"]):
        assert "tom, jay" not in described and "stats" in described
    check = next(tool for tool in tools if tool.name == "check")
    claim = check.output_schema["$defs"]["ClaimStatus"]["properties"]
    for field in ("known", "score", "threshold", "restated", "cosine_known", "decided_by"):
        assert claim[field].get("description"), field
    assert "cosine_known" in claim["known"]["description"]
