"""``kbsearch serve --http``: the MCP server at ``/mcp`` plus a JSON API.

``POST /api/<operation>`` takes a body that mirrors the CLI's flags and
answers with exactly the document ``--json`` prints; ``GET /health`` needs
no token; ``GET /api/openapi.json`` describes the API. Every error is a
status and ``{"error": "…", "hint": "…"}``: what is wrong, and what to do (or
null), each one line, apart as the CLI's ``--json`` prints them (``path`` and
``line`` too, when a file is named); the process goes on serving.
A request whose client goes away before the answer is stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from kbsearch.errors import Busy, KbError, RecordNotFound, Stopped, TooLarge
from kbsearch.limits import DEFAULT_LIMITS, body_bytes
from kbsearch.serve.failures import failure_of
from kbsearch.serve.mcp_calls import McpCalls
from kbsearch.serve.openapi import openapi_document
from kbsearch.serve.operations import OPERATIONS, Operation
from kbsearch.serve.options import MAX_BODY
from kbsearch.serve.requests import problem
from kbsearch.serve.service import Forbidden, Service
from kbsearch.serve.tokens import READ_TOKEN, WRITE_TOKEN, Access, Tokens
from kbsearch.serve.tools import build_mcp
from kbsearch.serve.words import CLI_HEADER, Words
from kbsearch.serve.words import said as words_said

log = logging.getLogger("kbsearch.serve")
# The server's own warnings (refused tokens, budgets run out) are its audit trail:
# they must not vanish because a library lowered the root logger's level.
log.setLevel(logging.INFO)
T = TypeVar("T")
ACCESS_KEY = "kbsearch.access"
PUBLIC_PATHS = frozenset({"/health"})


class HttpError(Exception):
    def __init__(
        self, status: int, message: str, headers: dict[str, str] | None = None, *, hint: str | None = None
    ) -> None:
        super().__init__(message)
        self.status, self.message, self.headers, self.hint = status, message, headers or {}, hint
        self.where: dict[str, str | int] = {}

    @classmethod
    def of(cls, status: int, err: KbError, headers: dict[str, str] | None = None, words: Words = "api") -> HttpError:
        """``err`` as the CLI's ``--json`` says it: message, hint, and the file it names; in
        the /api's words (the field or route instead of a CLI flag or command), or the CLI's."""
        said = cls(status, words_said(err.message, words) or err.message, headers, hint=words_said(err.hint, words))
        said.where = {name: value for name, value in (("path", err.path), ("line", err.line)) if value is not None}
        return said

    def response(self) -> Response:
        body = {"error": self.message, "hint": self.hint, **self.where}
        return JSONResponse(body, self.status, headers=self.headers)


def build_app(service: Service, tokens: Tokens, *, host: str, max_body: int = MAX_BODY) -> ASGIApp:
    """The whole HTTP side: bearer tokens in front of the MCP transport and the JSON API.

    MCP keeps no sessions: every request stands alone. A session lives in one process's
    memory, so a restarted server answered a connected agent's next call with 404
    "Session not found" (the SDK client's task group died with it), and with workers a
    session one of them kept was unknown to the others. The tools keep no state between
    calls and send nothing unasked, so nothing is lost."""

    def access_of_tool(ctx: Any) -> Access:
        headers = ctx.headers or {}
        return tokens.access(headers.get("authorization"))

    mcp = build_mcp(service, access_of_tool)
    for operation in OPERATIONS:
        mcp.custom_route(f"/api/{operation.name}", methods=["POST"])(_endpoint(service, operation, max_body))

    @mcp.custom_route("/health", methods=["GET"])
    async def health(request: Request) -> Response:
        stats = await service.stats()
        body = {
            "status": "ok",
            "records": stats.records,
            "model": stats.model,
            "generation": stats.generation,
            "pid": os.getpid(),  # which process answered, with --workers
        }
        return JSONResponse(body)

    document = openapi_document(OPERATIONS)

    @mcp.custom_route("/api/openapi.json", methods=["GET"])
    async def openapi(request: Request) -> Response:
        return JSONResponse(document)

    # An MCP call's largest body is a check's.
    largest = min(max_body, body_bytes(DEFAULT_LIMITS.input_chars) or max_body)
    app = mcp.streamable_http_app(host=host, max_request_body_size=largest, stateless_http=True)
    app.add_exception_handler(HTTPException, _http_exception)  # type: ignore[arg-type]
    return AccessGate(McpCalls(app, service, largest), tokens)


async def _http_exception(request: Request, err: HTTPException) -> Response:
    """Starlette's own 404 (no such path) and 405 (wrong method), as every other error: JSON."""
    if err.status_code == 404:
        message = f"no such path: {request.url.path} (POST /api/<operation>; GET /api/openapi.json lists them)"
    elif err.status_code == 405:
        allowed = (err.headers or {}).get("Allow", "POST")
        message = f"{request.method} is not allowed on {request.url.path}; use {allowed}"
    else:
        message = err.detail
    return JSONResponse({"error": message, "hint": None}, err.status_code, headers=err.headers)


def _endpoint(service: Service, operation: Operation, max_body: int) -> Callable[[Request], Awaitable[Response]]:
    limit, why = _body_limit(operation, max_body)

    async def endpoint(request: Request) -> Response:
        started = time.monotonic()
        try:
            body = _parse(operation.request, await _read_body(request, limit, why))
            result = await _unless_gone(request, operation.call(service, body, request.scope[ACCESS_KEY]))
        except HttpError as err:
            return err.response()
        except (ClientGone, ClientDisconnect):
            log.info("%s stopped after %.1f s: the client went away", operation.name, time.monotonic() - started)
            return Response(status_code=CLIENT_GONE)
        except (ServerStopping, asyncio.CancelledError):
            # uvicorn cancels what still runs once its grace period is over: not a 500 with a traceback
            log.warning("%s: stopped before it began: the server is stopping", operation.name)
            return HttpError(503, STOPPED_BEFORE, {"Retry-After": "10"}).response()
        except Exception as err:
            words: Words = "cli" if request.headers.get(CLI_HEADER) == "cli" else "api"
            return _error_response(err, operation.name, service.lock_timeout, words)
        return Response(result.model_dump_json(indent=2), media_type="application/json")

    return endpoint


STOPPED_BEFORE = (
    "stopped: the server is stopping; nothing was done "
    "(send it again once the server is back, or run it without the server)"
)
CLIENT_GONE = 499
"""What the log and any proxy see for a request whose client left (nginx's code); no one reads the answer."""


class ServerStopping(Exception):
    """The server stopped the request before its work began (reading its body, or queued)."""


class ClientGone(Exception):
    """The client closed the connection before its answer was ready (Starlette's
    ``ClientDisconnect``: before it had sent the whole body)."""


async def _unless_gone(request: Request, work: Awaitable[T]) -> T:
    """``work``'s result; cancelled, and ``ClientGone``, if the client disconnects first.

    Cancelled itself (the server stopping, its grace period over), it cancels
    ``work`` and answers with what ``work`` then says (``Service._run``: stopped,
    nothing written; or its result, had it finished), never a traceback."""
    task = asyncio.ensure_future(work)
    gone = asyncio.ensure_future(_disconnected(request))
    try:
        await asyncio.wait({task, gone}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        gone.cancel()
        task.cancel()
        while not task.done():
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait({task})
        if task.cancelled():
            raise ServerStopping from None
        return task.result()
    finally:
        gone.cancel()
        if not task.done():
            task.cancel()  # the service stops the job at its next checkpoint
    if not task.done() or task.cancelled():
        raise ClientGone
    return task.result()


async def _disconnected(request: Request) -> None:
    """Returns when the client disconnects: once the body is read, the next
    message the server sends the app is ``http.disconnect``."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


def _body_limit(operation: Operation, max_body: int) -> tuple[int, str]:
    """The largest body ``operation`` reads, and why: --max-body, or less when
    the operation's text limit bounds it (an abusive 10 MB check is refused
    on its Content-Length, never read or parsed)."""
    if operation.text_limit is not None:
        chars = getattr(DEFAULT_LIMITS, operation.text_limit)
        bound = body_bytes(chars)
        if bound is not None and bound < max_body:
            return bound, f"{operation.text_limit}: {chars:,} characters of text"
    return max_body, "serve --max-body"


async def _read_body(request: Request, limit: int, why: str) -> bytes:
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise HttpError(413, f"the body is {int(declared):,} bytes; the limit is {limit:,} ({why})")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise HttpError(413, f"the body is over the limit of {limit:,} bytes ({why})")
        chunks.append(chunk)
    return b"".join(chunks)


def _parse(model: type[BaseModel], raw: bytes) -> BaseModel:
    try:
        data = json.loads(raw or b"{}")
    except (ValueError, UnicodeDecodeError) as err:
        raise HttpError(400, f"the body is not JSON: {err}") from err
    except RecursionError as err:
        raise HttpError(400, "the body is not JSON this server reads: it is nested too deeply") from err
    if not isinstance(data, dict):
        raise HttpError(400, f"the body must be a JSON object, not {type(data).__name__}")
    try:
        return model.model_validate(data)
    except ValidationError as err:
        message, hint = problem(err, model.model_fields)
        raise HttpError(422, message, hint=hint) from err


def _error_response(err: Exception, name: str, lock_timeout: float, words: Words = "api") -> Response:
    if isinstance(err, Busy):
        # As over MCP: "retry in Ns", and the server's --lock-timeout, not the CLI's variable.
        said = failure_of(err, lock_timeout=lock_timeout, words=words)
        return HttpError(503, said.message, {"Retry-After": str(said.retry_after)}, hint=said.hint).response()
    if isinstance(err, Stopped):
        log.warning("%s: %s", name, err.one_line())
        again = {} if err.retry_after is None else {"Retry-After": str(max(1, round(err.retry_after)))}
        return HttpError.of(503, err, again, words=words).response()
    if isinstance(err, TooLarge):
        return HttpError.of(413, err, words=words).response()
    if isinstance(err, Forbidden):
        return HttpError.of(403, err, words=words).response()
    if isinstance(err, RecordNotFound):
        return HttpError.of(404, err, words=words).response()
    if isinstance(err, KbError):
        return HttpError.of(400, err, words=words).response()
    log.exception("%s failed", name)
    message = f"internal error in {name}: {type(err).__name__}; the server's log has the details"
    return HttpError(500, message).response()


TOKEN_HINT = (
    f"send 'Authorization: Bearer TOKEN' with the content of {READ_TOKEN} (to read) or {WRITE_TOKEN} (to accept) "
    "from the server's index folder; the kbsearch CLI reads it from --token-file or $KBSEARCH_TOKEN"
)


class AccessGate:
    """Every request but ``/health`` needs ``Authorization: Bearer TOKEN``.

    A missing or wrong token gets 401 and one log line, nothing else: the
    request never reaches the API or the MCP transport.
    """

    def __init__(self, app: ASGIApp, tokens: Tokens) -> None:
        self.app, self.tokens = app, tokens

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in PUBLIC_PATHS:
            await self.app(scope, receive, send)
            return
        access = self.tokens.access(Headers(scope=scope).get("authorization"))
        if access is Access.none:
            client = scope.get("client") or ("?", 0)
            log.warning("401 %s %s from %s: missing or wrong bearer token", scope["method"], scope["path"], client[0])
            refused = {"error": "missing or wrong bearer token", "hint": TOKEN_HINT}
            response = JSONResponse(refused, 401, headers={"WWW-Authenticate": "Bearer"})
            await response(scope, receive, send)
            return
        scope[ACCESS_KEY] = access
        await self.app(scope, receive, send)
