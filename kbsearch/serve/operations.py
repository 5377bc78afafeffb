"""The JSON API's operations: one ``POST /api/<name>`` each, its body, what it
calls on the service and what it answers.

Read by ``http`` (the routes) and ``openapi`` (their description), so that
neither imports the other.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from kbsearch.serve.requests import (
    CheckRequest,
    ExplainRequest,
    ListRequest,
    SearchRequest,
    ShowRequest,
    SimilarRequest,
    StatsRequest,
)
from kbsearch.serve.service import Service
from kbsearch.serve.summary import summarize
from kbsearch.serve.tokens import Access


@dataclass(frozen=True)
class Operation:
    """One ``POST /api/<name>``: its body, what it calls and what it answers."""

    name: str
    request: type[BaseModel]
    response: str
    call: Callable[[Service, Any, Access], Awaitable[BaseModel]]
    summary: str
    text_limit: str | None = None
    """The ``InputLimits`` field that bounds the body's text: a body too
    large to hold a text within it is refused before it is read."""


OPERATIONS = (
    Operation("search", SearchRequest, "SearchResponse", lambda s, r, a: s.search(r), "kbsearch search", "query_chars"),
    Operation(
        "check",
        CheckRequest,
        "CheckResult | CheckSummary",
        lambda s, r, a: _check(s, r, a),
        "kbsearch check (accept: write)",
        "input_chars",
    ),
    Operation("show", ShowRequest, "Record", lambda s, r, a: s.show(r), "kbsearch show"),
    Operation("similar", SimilarRequest, "Neighbours", lambda s, r, a: s.similar(r), "kbsearch similar"),
    Operation("explain", ExplainRequest, "Explanation", lambda s, r, a: s.explain(r), "kbsearch explain"),
    Operation("list", ListRequest, "Listing", lambda s, r, a: s.listing(r), "kbsearch list"),
    Operation("stats", StatsRequest, "Stats", lambda s, r, a: s.stats(), "kbsearch stats"),
)


async def _check(service: Service, request: CheckRequest, access: Access) -> BaseModel:
    """The whole result, or with ``"detail": "summary"`` what the MCP tools answer."""
    result = await service.check(request, access)
    return summarize(result) if request.detail == "summary" else result
