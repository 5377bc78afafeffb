"""The MCP tools: the same operations as the JSON API, described for an agent.

Each tool returns the document the CLI prints with ``--json`` (as structured
content, and as JSON text for clients that read only text), but for ``check``
and ``accept``, which answer a summary of it (``summary``). A ``KbError``
becomes a tool error carrying its code, one-line message and hint in the
server's words (``failures``), which is what an agent needs to correct the
call or to know when to send it again.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import CallToolResult, InputRequiredResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field, ValidationError

from kbsearch import __version__
from kbsearch.dedupe.results import Explanation, Neighbours
from kbsearch.errors import KbError
from kbsearch.limits import DEFAULT_LIMITS
from kbsearch.records import Kind, Record
from kbsearch.responses import Listing, SearchMode, SearchResponse, Stats
from kbsearch.serve.failures import META_KEY, Failure, bad_request, failure_of
from kbsearch.serve.requests import (
    MAX_K,
    CheckRequest,
    ExplainRequest,
    ListRequest,
    SearchRequest,
    ShowRequest,
    SimilarRequest,
    problem,
    unknown_field,
)
from kbsearch.serve.service import Service
from kbsearch.serve.summary import CheckSummary, DetailField, tool_answer
from kbsearch.serve.tokens import Access

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)
LIMITS = DEFAULT_LIMITS

INSTRUCTIONS = f"""\
kbsearch is the team's knowledge base of E1 briefings (预消化简报) written by the team's writers (instances: \
each index has its own, and `stats` lists them), of paper cards and of living-document sections, \
searchable in Chinese and English alike. Use `search` to find what is known about a topic, paper or \
number; `check` before writing an increment, to learn whether it is NEW, an UPDATE of something known, \
or a DUPLICATE, with the evidence and who said it first; `show` for one record; `similar` for a stored \
record's neighbours; `explain` for why two records are or are not the same item; `list` and `stats` for \
an overview. Only `accept` changes the knowledge base: it checks and then stores the NEW and UPDATE \
items (it needs write access); every other tool only reads. Record ids look like \
`jay/2026-09-17-jay-inference-e1prep#1` (an increment: the writer, the briefing's file name, the item's \
number) or `card/1093` (a paper card, by its number). A query takes at most {LIMITS.query_chars:,} \
characters; a check at most {LIMITS.input_items:,} items, {LIMITS.item_claims:,} claims an item and \
{LIMITS.input_chars:,} characters: split a larger input."""

READS = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
"""Every tool but accept: it reads the knowledge base, and only it (no outside world)."""
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False)
"""accept: it may replace a stored record under an item's id (an earlier version of the same item, or with
replace); accepting the same text again changes nothing."""

AccessOf = Callable[[Context], Access]

Kinds = Annotated[
    list[Kind] | Kind, Field(description="only these kinds (one, or a list): increment, paper_card, doc_section")
]
Instance = Annotated[
    str | None, Field(description="only records by this writer (an instance, as `stats` lists this index's writers)")
]
Topic = Annotated[str | None, Field(description="only this topic (inference, llm-infra, agents, …)")]
Category = Annotated[
    str | None, Field(description="only this category, any case: a paper card's primary category (inference, cs.CL)")
]
Section = Annotated[str | None, Field(description="only records whose section contains this text")]
Since = Annotated[dt.date | None, Field(description="only records dated on or after this day (YYYY-MM-DD)")]
Until = Annotated[dt.date | None, Field(description="only records dated on or before this day (YYYY-MM-DD)")]
Text = Annotated[str, Field(description="a whole briefing, a paper card, JSONL lines, or the text of one increment")]
Path = Annotated[
    str | None,
    Field(
        description="the briefing's file name or path, e.g. 2026-09-20-jay-engineering-e1prep.md: picks the "
        "format and names the items (one writer's items of one day are not compared with each other); the "
        "writer and day come from the briefing (its file name, its signature), or a JSONL line's instance and "
        "date (path ending .jsonl). One bare item (a title and key points) takes them from a path "
        "inbox/WRITER/YYYY-MM-DD-….md; without path it is stored with no writer or day"
    ),
]
AsOf = Annotated[
    dt.date | None, Field(description="compare only with records dated on or before this day, and undated ones")
]


class _Server(MCPServer):
    """The SDK's server, but a refused call says so as the JSON API does, in one line
    starting with a stable code (``failures``): arguments its schema refuses name the
    field as ``requests.problem`` says it (``k must be at most 1000, not 5000; ask for
    fewer``), not pydantic's report of several lines; an argument the tool does not
    take is refused (``sinse: no such field; did you mean since?``), never ignored."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            self._known_arguments(name, arguments)
            return await super().call_tool(name, arguments, context)
        except ToolError as err:
            failure = _failure(err)
            if failure is None:
                raise
            text = TextContent(type="text", text=failure.one_line())
            return CallToolResult(content=[text], is_error=True, _meta={META_KEY: failure.meta()})

    def _known_arguments(self, name: str, arguments: dict[str, Any]) -> None:
        tool = self._tool_manager.get_tool(name)
        if tool is None:  # said as every other refusal is, with the tools there are
            named = [tool.name for tool in self._tool_manager.list_tools()]
            raise Refused(bad_request(f"{name}: no such tool", "the tools are " + ", ".join(named)))
        fields = list(tool.parameters.get("properties") or {})
        unknown = [argument for argument in arguments if argument not in fields]
        if not unknown:
            return
        if name == "check" and unknown[0] in {"accept", "replace", "skip_duplicates"}:
            raise Refused(bad_request(f"{unknown[0]}: no such field", ACCEPT_INSTEAD))
        raise Refused(bad_request(*unknown_field(unknown[0], fields)))


ACCEPT_INSTEAD = "check never stores: call the accept tool with the same text and path to store the items"


class Refused(ToolError):
    """A call refused with a ``Failure``: its code, message and hint."""

    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.one_line())
        self.failure = failure


def _failure(err: ToolError) -> Failure | None:
    """What the call's error says to the agent; None for one the SDK says best (a crash, no such tool)."""
    for cause in (err, err.__cause__):
        if isinstance(cause, Refused):
            return cause.failure
    if isinstance(err, UnexpectedToolError) or not isinstance(err.__cause__, ValidationError):
        return None
    return bad_request(*problem(err.__cause__))


def build_mcp(service: Service, access_of: AccessOf) -> MCPServer:
    """An MCP server whose tools call ``service``; ``access_of`` says what a call may do."""
    mcp: MCPServer = _Server("kbsearch", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")

    @mcp.tool(annotations=READS)
    async def search(
        query: Annotated[str, Field(description="words, a title, a sentence (zh or en) or an arXiv id")],
        k: Annotated[int, Field(ge=1, le=MAX_K, description="number of results")] = 10,
        mode: Annotated[SearchMode, Field(description="dense: by meaning; lexical: exact words; hybrid: both")] = (
            SearchMode.hybrid
        ),
        kind: Kinds | None = None,
        instance: Instance = None,
        topic: Topic = None,
        category: Category = None,
        section: Section = None,
        since: Since = None,
        until: Until = None,
    ) -> SearchResponse:
        """Search the knowledge base by meaning and by words, across Chinese and English. Records carrying an
        arXiv id, GitHub repo or URL from the query come first. Each result has its id, kind, writer, date,
        title, text, arXiv ids and a snippet. Read-only: changes nothing."""
        filters = {"kind": kind or [], "instance": instance, "topic": topic, "category": category, "section": section}
        request = _valid(SearchRequest, query=query, k=k, mode=mode, since=since, until=until, **filters)
        return await _call(lambda: service.search(request))

    @mcp.tool(annotations=READS)
    async def check(
        text: Text, ctx: Context, path: Path = None, as_of: AsOf = None, detail: DetailField = "summary"
    ) -> Annotated[CallToolResult, CheckSummary]:
        """The dedupe gate: judge each item of a briefing (or one increment's text) against the knowledge base
        as NEW, UPDATE (the same item is known, but something in it is new, such as numbers or a status) or
        DUPLICATE, with the matching records, which claims are already known and from where, who said it
        first, and flags for items marked new (首次锚入, 本次新增) that were seen before. Read-only: changes
        nothing (use `accept` to store the items)."""
        request = _valid(CheckRequest, text=text, path=path, as_of=as_of, accept=False)
        return tool_answer(await _call(lambda: service.check(request, access_of(ctx))), detail)

    @mcp.tool(annotations=WRITES)
    async def accept(
        text: Text,
        ctx: Context,
        path: Path = None,
        as_of: AsOf = None,
        replace: Annotated[
            bool, Field(description="let an item overwrite a stored record of another item under the same id")
        ] = False,
        skip_duplicates: Annotated[
            bool, Field(description="store the other items and leave out the DUPLICATEs (listed in `skipped`)")
        ] = False,
        detail: DetailField = "summary",
    ) -> Annotated[CallToolResult, CheckSummary]:
        """Check like `check`, then store every item in the knowledge base, or none when any is a DUPLICATE
        (then `accept_refused` names them; drop them and accept again, or pass `skip_duplicates` to store the
        others and have `skipped` list each DUPLICATE left out with the records it repeats). Needs write access.
        Returns the check result with `accepted` listing the stored ids. Changes the knowledge base: adds the
        items as records; replaces a stored record under an item's id only when it is an earlier version of the
        same item (or with `replace`), also for a DUPLICATE of that version alone (`edited`: reworded, no new
        fact); removes nothing. Accepting the same text again changes nothing more. Each item's `outcome`:
        stored, replaced, unchanged (stored before: do not publish it again), refused or skipped."""
        request = _valid(
            CheckRequest,
            text=text,
            path=path,
            as_of=as_of,
            accept=True,
            replace=replace,
            skip_duplicates=skip_duplicates,
        )
        return tool_answer(await _call(lambda: service.check(request, access_of(ctx)), service.lock_timeout), detail)

    @mcp.tool(annotations=READS)
    async def show(id: Annotated[str, Field(description="a record id, as search and list give it")]) -> Record:
        """One record in full: title, text, claims (要点), sources, arXiv ids it is about and cites, writer,
        date, topic and section. Read-only: changes nothing."""
        request = _valid(ShowRequest, id=id)
        return await _call(lambda: service.show(request))

    @mcp.tool(annotations=READS)
    async def similar(
        id: Annotated[str, Field(description="a stored record's id")],
        k: Annotated[int, Field(ge=1, le=MAX_K, description="number of records")] = 10,
        kind: Kinds | None = None,
        instance: Instance = None,
        since: Since = None,
        until: Until = None,
    ) -> Neighbours:
        """The records nearest to a stored one, each judged by the dedupe rules: the same item or not, the
        cosine score and the reason. Use it to find where else an item was reported. Read-only: changes
        nothing."""
        request = _valid(SimilarRequest, id=id, k=k, kind=kind or [], instance=instance, since=since, until=until)
        return await _call(lambda: service.similar(request))

    @mcp.tool(annotations=READS)
    async def explain(
        a: Annotated[str, Field(description="the first record's id")],
        b: Annotated[str, Field(description="the second record's id")],
        as_of: Annotated[
            dt.date | None, Field(description="judge as a check that day did: records dated later, and A, hidden")
        ] = None,
        claim: Annotated[
            int | None, Field(ge=1, description="why check calls A's claim N (from 1, as n in new_claims) known or new")
        ] = None,
    ) -> Explanation:
        """Why two stored records are, or are not, the same item: the judgement and what every rule saw
        (shared or cited arXiv ids, identical text, paper titles, rare names, cosine against its threshold).
        With `claim` N (from 1, as `n` in check's new_claims): why check calls A's claim N known or new, rule
        by rule (the passage weighed, its score against the threshold, names and numbers). Read-only: changes
        nothing."""
        request = _valid(ExplainRequest, a=a, b=b, as_of=as_of, claim=claim)
        return await _call(lambda: service.explain(request))

    @mcp.tool(name="list", annotations=READS)
    async def list_records(
        kind: Kinds | None = None,
        instance: Instance = None,
        topic: Topic = None,
        category: Category = None,
        section: Section = None,
        since: Since = None,
        until: Until = None,
        limit: Annotated[int, Field(ge=1, description="at most this many records")] = 100,
    ) -> Listing:
        """Records oldest first, with id, kind, writer, date, title and arXiv ids; `total` counts the whole
        knowledge base. Read-only: changes nothing."""
        filters = {"kind": kind or [], "instance": instance, "topic": topic, "category": category, "section": section}
        request = _valid(ListRequest, since=since, until=until, limit=limit, **filters)
        return await _call(lambda: service.listing(request))

    @mcp.tool(annotations=READS)
    async def stats() -> Stats:
        """What the knowledge base holds: records by kind, writer, topic and category, the model, vectors, last ingest.
        Read-only: changes nothing."""
        return await _call(service.stats)

    return mcp


def _valid(model: type[M], **fields: object) -> M:
    try:
        return model.model_validate(fields)
    except ValidationError as err:
        raise Refused(bad_request(*problem(err))) from err


async def _call(operation: Callable[[], Awaitable[T]], lock_timeout: float | None = None) -> T:
    try:
        return await operation()
    except KbError as err:
        raise Refused(failure_of(err, lock_timeout=lock_timeout)) from err
