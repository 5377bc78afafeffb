"""What happens to an MCP call over HTTP that does not end with its answer
(over stdio: ``mcp_stdio``).

``McpCalls`` sits in front of the MCP transport at ``/mcp`` and reads each
POST's JSON-RPC request (its method, tool and id) as it passes:

- a call its client gives up (it closes the connection, or sends
  ``notifications/cancelled`` naming the call's id) is logged, as the JSON
  API logs a request whose client went away: which call, its id, and after
  how long;
- a call the server's stop cuts short (uvicorn cancels what still runs once
  its grace period is over) is answered on its stream before it closes, with
  the ``stopped`` error an agent gets when the stop reaches the call in time,
  never a stream that just ends (which an SDK client reports as a dropped
  connection).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass
from typing import Any

from mcp.types import CallToolResult, TextContent
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kbsearch.errors import Stopped
from kbsearch.serve.failures import META_KEY, Failure, failure_of
from kbsearch.serve.service import AFTER_STOPPING, STOPPING, Service

log = logging.getLogger("kbsearch.serve")
MCP_PATH = "/mcp"
CANCELLED = "notifications/cancelled"
STOPPED_CODE = -32000
"""The JSON-RPC error code of a call other than ``tools/call`` that the stop cut short (a server error)."""


@dataclass
class Call:
    """One POST to ``/mcp``: its JSON-RPC request, once read, and how far its answer got."""

    started: float
    method: str | None = None
    tool: str | None = None
    id: Any = None
    sse: bool = False
    began: bool = False
    answered: bool = False
    logged: bool = False
    params: dict[str, Any] | None = None

    @property
    def named(self) -> str:
        what = f"{self.method} {self.tool}" if self.tool else str(self.method)
        return f"MCP {what} (id {self.id!r})"

    def read(self, body: bytes) -> None:
        try:
            message = json.loads(body)
        except (ValueError, UnicodeDecodeError, RecursionError):
            return
        self.take(message)

    def take(self, message: Any) -> None:
        """The call's method, tool, id and params from its JSON-RPC ``message``."""
        if not isinstance(message, dict) or not isinstance(message.get("method"), str):
            return  # a batch, a response, or not JSON-RPC: the transport says what is wrong
        self.method, self.id = message["method"], message.get("id")
        params = message.get("params")
        self.params = params if isinstance(params, dict) else {}
        if self.method == "tools/call" and isinstance(self.params.get("name"), str):
            self.tool = self.params["name"]


class CallLog:
    """The MCP calls now running, and the log line of one its client gives up
    (over HTTP here, over stdio in ``mcp_stdio``)."""

    def __init__(self, service: Service) -> None:
        self.service = service
        self.running: dict[str, Call] = {}
        """The calls with an id now running, by id (as JSON), for ``notifications/cancelled``."""

    def arrived(self, call: Call) -> None:
        if call.id is not None:
            self.running[key_of(call.id)] = call
        if call.method == CANCELLED and call.params is not None:
            cancelled = self.running.get(key_of(call.params.get("requestId")))
            if cancelled is not None:
                reason = call.params.get("reason")
                self.given_up(cancelled, "the client cancelled it" + (f" ({reason})" if reason else ""))

    def given_up(self, call: Call, why: str) -> None:
        if call.logged or call.method is None or call.id is None or self.service.is_stopping:
            return
        call.logged = True
        log.info("%s cancelled after %.1f s: %s", call.named, _since(call), why)


class McpCalls(CallLog):
    """``app`` (the MCP transport and the JSON API), with the MCP calls watched as the module says."""

    def __init__(self, app: ASGIApp, service: Service, max_body: int) -> None:
        super().__init__(service)
        self.app, self.max_body = app, max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"].rstrip("/") != MCP_PATH:
            await self.app(scope, receive, send)
            return
        call = Call(time.monotonic())
        body = bytearray()

        async def receiving() -> Message:
            message = await receive()
            if message["type"] == "http.request" and call.method is None and len(body) <= self.max_body:
                body.extend(message.get("body", b""))
                if not message.get("more_body"):
                    call.read(bytes(body))
                    body.clear()
                    self.arrived(call)
            elif message["type"] == "http.disconnect" and not call.answered:
                self.given_up(call, "the client went away")
            return message

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                call.began = True
                headers = dict(message.get("headers") or [])
                call.sse = headers.get(b"content-type", b"").startswith(b"text/event-stream")
            elif message["type"] == "http.response.body" and not message.get("more_body"):
                call.answered = True
            await send(message)

        try:
            await self.app(scope, receiving, sending)
        except asyncio.CancelledError:
            if not (self.service.is_stopping and call.method is not None and call.id is not None):
                raise
            if not call.answered:
                await _answer_stopped(call, sending)
                log.warning("%s: stopped after %.1f s: the server is stopping", call.named, _since(call))
        finally:
            self.running.pop(key_of(call.id), None)


def key_of(request_id: Any) -> str:
    """A JSON-RPC id as ``CallLog.running`` keys it."""
    return json.dumps(request_id)


def _since(call: Call) -> float:
    return time.monotonic() - call.started


def stopped_failure(call: Call) -> Failure:
    """What a call the stop cut short is told. An accept may have stored its items meanwhile
    (its write was under way): sending it again changes nothing more if so."""
    if call.tool == "accept":
        message = f"stopped: {STOPPING} before the accept answered; its items may have been stored"
        hint = "send the same accept again once the server is back: if they were stored, it changes nothing more"
        return failure_of(Stopped(message, hint=hint, retry_after=AFTER_STOPPING[1]))
    message = f"stopped: {STOPPING}; nothing was written"
    return failure_of(Stopped(message, hint=AFTER_STOPPING[0], retry_after=AFTER_STOPPING[1]))


def stopped_answer(call: Call) -> dict[str, Any]:
    """The JSON-RPC answer to ``call``: a tool error as every other refused tool call
    (``failures``: code, message, hint and ``_meta``), or a JSON-RPC error carrying the same."""
    failure = stopped_failure(call)
    if call.method == "tools/call":
        text = TextContent(type="text", text=failure.one_line())
        result = CallToolResult(content=[text], is_error=True, _meta={META_KEY: failure.meta()})
        return {"jsonrpc": "2.0", "id": call.id, "result": result.model_dump(by_alias=True, exclude_none=True)}
    error = {"code": STOPPED_CODE, "message": failure.one_line(), "data": {META_KEY: failure.meta()}}
    return {"jsonrpc": "2.0", "id": call.id, "error": error}


async def _answer_stopped(call: Call, send: Send) -> None:
    """The stopped answer, on the call's event stream if it has begun, else as a JSON body."""
    data = json.dumps(stopped_answer(call), ensure_ascii=False)
    if call.began:
        chunk = f"event: message\ndata: {data}\n\n".encode() if call.sse else b""
        await send({"type": "http.response.body", "body": chunk, "more_body": False})
        return
    headers = [(b"content-type", b"application/json"), (b"retry-after", str(round(AFTER_STOPPING[1])).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": data.encode(), "more_body": False})
