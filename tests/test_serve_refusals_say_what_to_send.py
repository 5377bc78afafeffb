"""Refusals that said too little (a new user's probe): an unknown tool's error lacked the
``bad_request:`` code every other refusal starts with; ``check`` with path and no text said
``text: Field required``; ``accept`` of an empty text with a path said "unrecognised format"
where ``check`` says "text is empty"; ``show`` of an empty id looked it up. Fake encoder."""

from __future__ import annotations

import pytest
from test_serve_mcp_errors import mcp, post, said, service  # noqa: F401 (a fixture)

from kbsearch.serve.service import Service
from kbsearch.serve.tokens import WRITE_TOKEN


def test_an_unknown_tool_is_a_bad_request_naming_the_tools(service: Service) -> None:  # noqa: F811
    (called,) = mcp(service, [("nosuchtool", {})])
    error = said(called)
    assert error["code"] == "bad_request" and error["error"] == "nosuchtool: no such tool"
    assert "search" in error["hint"] and "accept" in error["hint"]
    assert called.content[0].text.startswith("bad_request: nosuchtool: no such tool; the tools are ")


@pytest.mark.parametrize("tool", ["check", "accept"])
def test_a_path_without_text_says_to_send_the_files_content(service: Service, tool: str) -> None:  # noqa: F811
    (called,) = mcp(service, [(tool, {"path": "inbox/spark/2026-10-08-spark-agents-e1prep.md"})])
    assert said(called)["error"] == "text is missing" and "content as text" in said(called)["hint"]
    answer = post(service, "check", {"path": "a.md"})
    assert answer.json()["error"] == "text is missing" and "content as text" in answer.json()["hint"]


def test_an_empty_text_with_a_path_is_said_as_without_one(service: Service) -> None:  # noqa: F811
    named = {"text": "", "path": "x.md"}
    calls = [("check", {"text": ""}), ("accept", named), ("check", {**named, "text": " "})]
    unnamed, accepted, checked = (said(called) for called in mcp(service, calls))
    assert unnamed["error"] == "text is empty" and accepted == unnamed and checked == unnamed
    answer = post(service, "check", {"text": "", "path": "x.md", "accept": True}, WRITE_TOKEN)
    assert answer.status_code == 400 and answer.json()["error"] == "text is empty"


def test_an_empty_id_is_said_so(service: Service) -> None:  # noqa: F811
    (called,) = mcp(service, [("show", {"id": " "})])
    assert said(called)["code"] == "bad_request" and said(called)["error"] == "id is empty"
    assert "search and list" in said(called)["hint"]
    assert post(service, "show", {"id": ""}).json()["error"] == "id is empty"
