"""What happens to an MCP call over stdio that its client gives up.

The JSON-RPC messages between the client's pipe and the SDK's server pass
through here, as they pass ``mcp_calls.McpCalls`` over HTTP: a call its client
cancels (``notifications/cancelled`` naming the call's id) is logged the same
way, which call, its id and after how long; so is a call still running when the
client closes the pipe ("the client went away"). A call answered is forgotten.
"""

from __future__ import annotations

import time
from typing import Any, Self

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from kbsearch.serve.mcp_calls import CANCELLED, Call, CallLog, key_of
from kbsearch.serve.service import Service


async def run_stdio(mcp: MCPServer, service: Service) -> None:
    """``mcp`` on this process's stdin and stdout, its calls watched as the module says."""
    async with stdio_server() as (read_stream, write_stream):
        await run_watched(mcp, service, read_stream, write_stream)


async def run_watched(mcp: MCPServer, service: Service, read_stream: Any, write_stream: Any) -> None:
    """``mcp`` on the two streams of SDK messages (as ``stdio_server`` yields them), watched."""
    calls = CallLog(service)
    server = mcp._lowlevel_server  # what MCPServer.run_stdio_async runs on the same streams
    options = server.create_initialization_options()
    await server.run(_Incoming(read_stream, calls), _Outgoing(write_stream, calls), options)


def _message(item: Any) -> dict[str, Any] | None:
    if not isinstance(item, SessionMessage):
        return None  # a line that was not JSON-RPC: the SDK answers it
    dumped = item.message.model_dump(by_alias=True, exclude_none=True)
    return dumped if isinstance(dumped, dict) else None


class _Wrapped:
    """One of the SDK's streams, passed through: what the SDK reads of it, closing, ``async with``."""

    def __init__(self, stream: Any, calls: CallLog) -> None:
        self._stream, self._calls = stream, calls

    def __getattr__(self, name: str) -> Any:  # last_context, and whatever else the SDK reads
        return getattr(self._stream, name)

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def __aenter__(self) -> Self:
        await self._stream.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> bool | None:
        return bool(await self._stream.__aexit__(*exc))


class _Incoming(_Wrapped):
    """The client's messages: each request is noted as running, a cancellation logged."""

    def __aiter__(self) -> _Incoming:
        return self

    async def __anext__(self) -> Any:
        try:
            item = await self._stream.__anext__()
        except StopAsyncIteration:
            self._ended()
            raise
        self._seen(item)
        return item

    async def receive(self) -> Any:
        try:
            item = await self._stream.receive()
        except anyio.EndOfStream:
            self._ended()
            raise
        self._seen(item)
        return item

    def _seen(self, item: Any) -> None:
        message = _message(item)
        if message is None or "method" not in message:
            return  # a response to the server's own request
        call = Call(time.monotonic())
        call.take(message)
        self._calls.arrived(call)
        if call.method == CANCELLED and call.params is not None:
            self._calls.running.pop(key_of(call.params.get("requestId")), None)  # never answered

    def _ended(self) -> None:
        for call in list(self._calls.running.values()):
            self._calls.given_up(call, "the client went away")


class _Outgoing(_Wrapped):
    """The server's messages: an answer (a result or an error with an id) ends its call."""

    async def send(self, item: Any, /) -> None:
        message = _message(item)
        if message is not None and "method" not in message and "id" in message:
            call = self._calls.running.pop(key_of(message["id"]), None)
            if call is not None:
                call.answered = True
        await self._stream.send(item)
