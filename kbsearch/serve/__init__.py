"""``kbsearch serve``: one process holding the index and the model warm.

- ``service``: the operations over the ``KnowledgeBase`` facade, reads on a
  pool of threads, writes on one, under the CLI's writer lock.
- ``pool``: threads that each own a knowledge base, and the shared encoder.
- ``tools``: the MCP tools; ``http``: the JSON API, ``/health`` and the
  bearer-token gate; ``openapi``: the API's description.
- ``tokens``: the read and write tokens in the index folder.

Only ``kbsearch serve`` imports this package (and with it the MCP SDK,
Starlette and uvicorn, from the ``serve`` extra).
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import os
import signal
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kbsearch.errors import KbError
from kbsearch.serve.options import (
    BUDGET,
    CHECKERS,
    LOCK_TIMEOUT,
    MAX_BODY,
    QUEUE,
    READERS,
    WARMED_RECORDS,
    WORKERS,
    ServeOptions,
)

if TYPE_CHECKING:
    from kbsearch.kb import ModelSpec
    from kbsearch.serve.service import Service
    from kbsearch.serve.tokens import Tokens

SERVE_PIP = "pip install 'kbsearch[serve]'"

__all__ = [
    "BUDGET",
    "CHECKERS",
    "LOCK_TIMEOUT",
    "MAX_BODY",
    "QUEUE",
    "READERS",
    "WARMED_RECORDS",
    "WORKERS",
    "ServeOptions",
    "serve",
]


def serve(options: ServeOptions) -> int:
    """Run until interrupted; returns the exit code."""
    _require_extra()
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="kbsearch serve: %(message)s")
    # faiss's loader says at INFO which CPU build it could not load, six lines
    # on every start; the others log each request.
    for noisy in ("mcp", "httpx", "uvicorn.error", "faiss"):
        logging.getLogger(noisy).setLevel(logging.INFO if options.verbose else logging.WARNING)
    if options.stdio:
        return _serve_stdio(options)
    assert options.http is not None
    host, port = parse_address(options.http)
    if not options.allow_remote and not is_loopback(host):
        raise KbError(
            f"{host} is not a loopback address: the index would be open to the network",
            hint="bind 127.0.0.1, or pass --allow-remote and put a reverse proxy with TLS in front",
        )
    return _serve_http(options, host, port)


def parse_address(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise KbError(f"--http {value!r} is not HOST:PORT", hint="e.g. --http 127.0.0.1:8765")
    return host, int(port)


def is_loopback(host: str) -> bool:
    """Whether every address ``host`` names is a loopback one."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return False
    return bool(infos) and all(ipaddress.ip_address(info[4][0]).is_loopback for info in infos)


def _require_extra() -> None:
    import importlib.util

    missing = [m for m in ("mcp", "starlette", "uvicorn") if importlib.util.find_spec(m) is None]
    if missing:
        raise KbError(f"kbsearch serve needs {', '.join(missing)}", hint=SERVE_PIP)


def refuse_a_second(root: Path, *, say: bool = True) -> None:
    """One ``--http`` server per index. A second one would replace the first's ``serve.json``
    and delete it on stopping: the first would run on, found by no command without a flag.
    An entry whose process is gone, or runs but does not answer (a pid reused since, a hung
    server), is replaced, and the log says so."""
    from kbsearch.runtime.server_entry import SERVER_FILE, read_entry

    entry = read_entry(root)
    if entry is None or entry.pid == os.getpid():
        return
    if not entry.alive():
        if say:
            logging.getLogger("kbsearch.serve").info(
                "%s names pid %d at %s, which no longer runs: this server replaces it",
                root / SERVER_FILE,
                entry.pid,
                entry.url,
            )
        return
    if not _answers(entry.url):
        if not say:
            return
        logging.getLogger("kbsearch.serve").warning(
            "%s names pid %d at %s, which does not answer: this server replaces it",
            root / SERVER_FILE,
            entry.pid,
            entry.url,
        )
        return
    raise KbError(
        f"a kbsearch server already runs for this index: pid {entry.pid} at {entry.url}",
        path=str(root),
        hint=f"use it: commands on this index find it without a flag; or stop it first: kill {entry.pid}",
    )


def _answers(url: str) -> bool:
    import httpx

    try:
        return httpx.get(f"{url.rstrip('/')}/health", timeout=3.0).status_code == 200
    except httpx.HTTPError:
        return False


def _where(options: ServeOptions) -> tuple[Path, ModelSpec]:
    from kbsearch.kb import KnowledgeBase

    with KnowledgeBase.open(options.index, options.model) as kb:
        kb.stats()  # "no index at …" or a model mismatch, before anything is created or loaded
        return kb.root, kb.spec


def _service(options: ServeOptions) -> Service:
    from kbsearch.serve.service import Service

    root, spec = _where(options)
    logging.getLogger("kbsearch.serve").info("loading %s and opening %s …", spec.name, root)
    return Service(
        root,
        spec,
        readers=options.readers,
        lock_timeout=options.lock_timeout,
        checkers=options.checkers,
        queue=options.queue,
        budget=options.budget,
        warm_records=options.warm_records,
    )


def _serve_stdio(options: ServeOptions) -> int:
    import anyio

    from kbsearch.serve.mcp_stdio import run_stdio
    from kbsearch.serve.tokens import Access
    from kbsearch.serve.tools import build_mcp

    service = _service(options)
    try:
        # The agent on the other end of the pipe runs as this user, who may write the index anyway.
        mcp = build_mcp(service, lambda ctx: Access.write)
        logging.getLogger("kbsearch.serve").info("MCP on stdin/stdout, index %s", service.root)
        anyio.run(run_stdio, mcp, service)
    finally:
        service.close()
    return 0


LISTEN_BACKLOG = 2048  # uvicorn's own default


class _StopOnSigterm:
    """SIGTERM asks the server to stop; it never raises where the signal lands.

    uvicorn stops gracefully on SIGTERM and then raises the signal again: with
    the default handler that would end the process before the entry is
    removed, and a handler that raised SystemExit could land inside startup or
    the cleanup itself (seen once as exit 1). So the handler only records the
    wish, and the one cleanup path runs as usual.
    """

    def __init__(self) -> None:
        self.requested = False
        self.server: Any = None

    def __call__(self, signum: int, frame: object) -> None:
        self.requested = True
        if self.server is not None:
            self.server.should_exit = True

    def run(self, server: Any, sock: socket.socket) -> None:
        self.server = server
        if not self.requested:
            server.run(sockets=[sock])


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket listening on ``host:port``, before the server says so: a
    client that reads the line and connects at once must be queued, not
    refused while uvicorn is still starting."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP named, not left 0: asyncio turns Nagle off only on a connection
    # whose socket says TCP, and with Nagle on an answer's body waited 40 ms
    # behind its headers for the client's delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(LISTEN_BACKLOG)
    except OSError as err:
        sock.close()
        raise KbError(f"cannot listen on {host}:{port}: {err.strerror}", hint="pick another port") from err
    return sock


def _serve_http(options: ServeOptions, host: str, port: int) -> int:
    if options.workers > 1:
        return _serve_workers(options, host, port)
    from kbsearch.runtime.server_entry import remove_entry
    from kbsearch.serve.http import build_app

    root = _where(options)[0]
    refuse_a_second(root)
    with _tokens_kept_if_started(root) as (tokens, paths):
        sock = listening_socket(host, port)
        service = _service(options)
    try:
        app = build_app(service, tokens, host=host, max_body=options.max_body)
        # Set before the entry is written: a SIGTERM before uvicorn runs must clean up too.
        stop = _StopOnSigterm()
        signal.signal(signal.SIGTERM, stop)
        _announce(service.root, host, sock, paths, "")
        stop.run(_server(app, service), sock)
    finally:
        remove_entry(service.root)
        service.close()
        sock.close()
    return 0


@contextlib.contextmanager
def _tokens_kept_if_started(root: Path) -> Iterator[tuple[Tokens, list[Path]]]:
    """The folder's tokens; those this start created are removed if it fails before it
    listens (the address in use, the model not loading): a failed start leaves the folder
    as it found it."""
    from kbsearch.serve.tokens import READ_TOKEN, WRITE_TOKEN, Tokens

    new = [path for path in (root / READ_TOKEN, root / WRITE_TOKEN) if not path.exists()]
    try:
        yield Tokens.in_folder(root)
    except BaseException:
        for path in new:
            # A folder that refused the token (read-only) refuses this too: its error is the one to say.
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)
        raise


def _announce(root: Path, host: str, sock: socket.socket, paths: list[Path], extra: str) -> None:
    """Write the server entry, then say where the server listens: the CLI finds it
    through the index folder (no --server needed), and the socket already listens."""
    from kbsearch.runtime.server_entry import write_entry

    shown, bound = f"[{host}]" if ":" in host else host, sock.getsockname()[1]
    refuse_a_second(root, say=False)  # again: one may have started while this one loaded its model
    write_entry(root, f"http://{shown}:{bound}")
    log = logging.getLogger("kbsearch.serve")
    log.info("read token in %s, write token in %s", *paths)
    log.info("listening on http://%s:%d (MCP at /mcp, JSON API at /api, /health)%s", shown, bound, extra)


def _server(app: Any, service: Service) -> Any:
    """uvicorn's server for ``app``, which tells ``service`` when it starts stopping
    (SIGTERM, Ctrl-C): running checks and accepts stop at their next checkpoint
    and answer 503, nothing written, within the 5 s uvicorn waits for them."""
    import uvicorn

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            service.stopping()
            super().handle_exit(sig, frame)

    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on", timeout_graceful_shutdown=5)
    return Server(config)


def _serve_workers(options: ServeOptions, host: str, port: int) -> int:
    """``--workers N``: the socket bound here, N forked processes answering on it
    (``kbsearch.serve.workers``); this process loads no model."""
    # Imported before the fork, so every worker shares their pages instead of importing them again.
    import uvicorn  # noqa: F401

    import kbsearch.serve.service  # noqa: F401
    from kbsearch.runtime.server_entry import remove_entry
    from kbsearch.serve.http import build_app
    from kbsearch.serve.workers import Supervisor, WorkerLink

    root = _where(options)[0]
    refuse_a_second(root)
    with _tokens_kept_if_started(root) as (tokens, paths):
        sock = listening_socket(host, port)

    def worker(link: WorkerLink) -> int:
        mine = _StopOnSigterm()
        signal.signal(signal.SIGTERM, mine)
        service = _service(options)
        try:
            app = build_app(service, tokens, host=host, max_body=options.max_body)
            server = _server(app, service)

            def parent_gone() -> None:
                service.stopping()
                mine(signal.SIGTERM, None)

            link.watch_parent(parent_gone)
            link.say_ready()
            mine.run(server, sock)
        finally:
            service.close()
        return 0

    stop = _StopOnSigterm()
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    supervisor = Supervisor(options.workers, worker, lambda: stop.requested)
    try:
        code = supervisor.start()
        if code == 0 and not stop.requested:
            _announce(root, host, sock, paths, f" with {options.workers} worker processes")
            code = supervisor.supervise()
    finally:
        supervisor.stop()
        remove_entry(root)
        sock.close()
    return code
