"""A bare item (a title and key points, no file) sent to the server (a new user's probe):
accepted without path it was stored as ``stdin#…``, with no writer or day, and the answer
said ``warnings: []`` where the CLI warns; sent with a briefing's path (``.md``) it was
refused as "unrecognised format", with no word of what to send instead. Fake encoder."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from serve_support import AsgiClient, build_index, service_for

from kbsearch.serve.failures import META_KEY
from kbsearch.serve.http import build_app
from kbsearch.serve.service import Service
from kbsearch.serve.tokens import WRITE_TOKEN, Access, Tokens
from kbsearch.serve.tools import build_mcp

NOTE = "Zorblax adds spot failover\n- Zorblax sandboxes migrate within 40 s when a spot instance is reclaimed"


@pytest.fixture
def service(fake_models: Path, tmp_path: Path) -> Iterator[Service]:
    service = service_for(build_index(tmp_path))
    yield service
    service.close()


def mcp(service: Service, name: str, arguments: dict[str, Any]) -> Any:
    async def run() -> Any:
        async with Client(build_mcp(service, lambda ctx: Access.write)) as client:
            return await client.call_tool(name, arguments)

    return asyncio.run(run())


def test_a_bare_item_accepted_over_mcp_without_path_is_warned_of(service: Service) -> None:
    answer = mcp(service, "accept", {"text": NOTE}).structured_content
    assert answer["accepted"] and answer["accepted"][0].startswith("stdin")
    (warning,) = answer["warnings"]
    assert warning.startswith(f"no file name: accepted as {answer['accepted'][0]}")
    assert "as path" in warning and ".jsonl" in warning and "--path" not in warning


def test_a_bare_item_accepted_over_the_json_api_without_path_is_warned_of(service: Service) -> None:
    tokens, _ = Tokens.in_folder(service.root)
    client = AsgiClient(build_app(service, tokens, host="127.0.0.1", max_body=64 * 1024))
    token = (service.root / WRITE_TOKEN).read_text().strip()
    body = {"text": NOTE, "accept": True}
    answer = client.post("/api/check", json=body, headers={"Authorization": f"Bearer {token}"}).json()
    assert [w.split(":")[0] for w in answer["warnings"]] == ["no file name"]


def test_a_checked_bare_item_is_not_warned_of_nothing_being_stored(service: Service) -> None:
    assert mcp(service, "check", {"text": NOTE}).structured_content["warnings"] == []


def test_a_bare_item_named_by_a_path_of_no_writer_and_day_says_what_to_send_instead(service: Service) -> None:
    result = mcp(service, "accept", {"text": NOTE, "path": "notes/2026-10-11-note.md"})
    said = result.content[0].text
    assert result.is_error and result.meta[META_KEY]["code"] == "bad_request" and "writer and day" in said
    assert "give a path naming both (inbox/WRITER/YYYY-MM-DD-" in said
    assert "leave path out" in said and "JSONL line with title, text, instance and date" in said
    assert "--path" not in said


def test_a_bare_item_as_a_jsonl_line_gets_its_writer_and_day(service: Service) -> None:
    line = json.dumps({"title": "Zorblax failover", "text": "in 40 s", "instance": "spark", "date": "2026-10-11"})
    answer = mcp(service, "accept", {"text": line, "path": "inbox/spark/2026-10-11-note.jsonl"}).structured_content
    assert answer["accepted"] == ["2026-10-11-note#1"] and answer["warnings"] == []
    record = mcp(service, "show", {"id": "2026-10-11-note#1"}).structured_content
    assert (record["instance"], record["date"]) == ("spark", "2026-10-11")
