"""The server survives any one request: inputs over a limit are refused at once
(413), bad text gets 400 or 422 with one line, never a 500; a check runs on its
own threads under a time budget, stops when its client goes away, and a full
check queue answers 503 with Retry-After; reads go on meanwhile. Over HTTP and
over MCP (the SDK's client), with the fake encoder."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import numpy as np
import pytest
from mcp import Client
from serve_support import (
    BRIEFING,
    FAKE,
    AsgiClient,
    briefing_with_claims,
    build_index,
    held_request,
    service_for,
    slow_claims,
)

from fake_encoder import FakeEncoder
from kbsearch.errors import Stopped
from kbsearch.kb import SharedEncoder
from kbsearch.runtime.cancel import Cancellation, checkpoint, watching
from kbsearch.serve.http import build_app
from kbsearch.serve.requests import CheckRequest, SearchRequest
from kbsearch.serve.service import CHECK_NICE, QUICK_CHECK_CHARS, Service
from kbsearch.serve.tokens import READ_TOKEN, Access, Tokens
from kbsearch.serve.tools import build_mcp

ABUSE_CLAIMS = 200_000
"""The issue's abusive request: a briefing of 200,000 要点 lines, about 10 MB."""
CLAIM_SECONDS = 0.05
"""What each claim of a slow check costs (see ``judged``)."""


@pytest.fixture
def index(fake_models: Path, tmp_path: Path) -> Path:
    return build_index(tmp_path)


@pytest.fixture
def make_service(index: Path) -> Iterator[Callable[..., Service]]:
    made: list[Service] = []

    def make(**options: Any) -> Service:
        made.append(service_for(index, **options))
        return made[-1]

    yield make
    for service in made:
        service.close()


@pytest.fixture
def judged(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Each claim a check judges takes CLAIM_SECONDS; the times they started."""
    return slow_claims(monkeypatch, CLAIM_SECONDS)


def read_token(index: Path) -> str:
    return (index / READ_TOKEN).read_text().strip()


def http(service: Service, index: Path) -> tuple[AsgiClient, dict[str, str]]:
    tokens, _ = Tokens.in_folder(index)
    return AsgiClient(build_app(service, tokens, host="127.0.0.1")), {"Authorization": f"Bearer {read_token(index)}"}


def one_line_error(answer: httpx.Response) -> str:
    error = answer.json()["error"]
    assert isinstance(error, str) and "\n" not in error
    return error


def mcp_calls(service: Service, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    async def run() -> list[Any]:
        async with Client(build_mcp(service, lambda ctx: Access.write)) as client:
            return [await client.call_tool(name, arguments) for name, arguments in calls]

    return asyncio.run(run())


# -- limits ------------------------------------------------------------------------


def test_the_200000_claim_check_and_a_huge_query_are_refused_at_once(
    make_service: Callable[..., Service], index: Path
) -> None:
    service = make_service()
    client, auth = http(service, index)
    abuse = briefing_with_claims(ABUSE_CLAIMS)
    assert len(abuse.encode()) > 10_000_000
    cases = [
        ("/api/check", {"text": abuse}, "input_chars"),
        ("/api/check", {"text": briefing_with_claims(3_000), "path": "2026-09-21-inference-e1prep.md"}, "item_claims"),
        ("/api/search", {"query": "KV cache " * 100_000}, "query_chars"),
    ]
    for path, body, limit in cases:
        started = time.monotonic()
        answer = client.post(path, json=body, headers=auth)
        assert answer.status_code == 413, answer.text[:300]
        assert limit in one_line_error(answer) and time.monotonic() - started < 5
        if limit != "item_claims":  # too large to hold a text within the limit: refused unread, by its length
            assert answer.json()["error"].startswith("the body is ")
    assert client.post("/api/search", json={"query": "TriAttention"}, headers=auth).status_code == 200


def test_limits_over_mcp(make_service: Callable[..., Service]) -> None:
    check, search, fine = mcp_calls(
        make_service(),
        [
            ("check", {"text": briefing_with_claims(3_000), "path": "2026-09-21-inference-e1prep.md"}),
            ("search", {"query": "KV cache " * 1_000}),
            ("search", {"query": "TriAttention"}),
        ],
    )
    assert check.is_error and "item_claims" in check.content[0].text and "3,001 claims" in check.content[0].text
    assert search.is_error and "query_chars" in search.content[0].text
    assert not fine.is_error


# -- bad text ----------------------------------------------------------------------

DEEP = b"[" * 100_000 + b"]" * 100_000
"""JSON nested 100,000 deep: 200 KB, more than a search's body can be (query_chars), less than a check's."""
DEEPISH = b"[" * 20_000 + b"]" * 20_000
BAD_BODIES = [
    ("/api/search", b'{"query": "\\ud800 KV"}', 422, "query: not valid Unicode"),
    ("/api/search", DEEP, 413, "query_chars"),
    ("/api/search", DEEPISH, 400, "nested too deeply"),
    ("/api/search", b'{"query": ' + DEEPISH + b"}", 400, "nested too deeply"),
    ("/api/check", b'{"text": "\\ud800 KV cache"}', 422, "text: not valid Unicode"),
    ("/api/check", b'{"text": "x", "path": "a\\udfff.md"}', 422, "path: not valid Unicode"),
    ("/api/check", b'{"text": ' + DEEP + b"}", 400, "nested too deeply"),
    ("/api/show", b'{"id": "\\udc00"}', 422, "id: not valid Unicode"),
    ("/api/list", b'{"instance": "jay\\ud800"}', 422, "instance: not valid Unicode"),
    ("/api/similar", b'{"id": "tri-jay", "kind": ["increment"], "section": "\\ud800"}', 422, "section"),
    ("/api/nowhere", b"{}", 404, "no such path: /api/nowhere"),
]


def test_bad_text_gets_one_line_never_a_500(
    make_service: Callable[..., Service], index: Path, caplog: pytest.LogCaptureFixture
) -> None:
    client, auth = http(make_service(), index)
    for path, body, status, words in BAD_BODIES:
        answer = client.post(path, content=body, headers=auth)
        assert answer.status_code == status, (path, body[:40], answer.text[:200])
        assert words in one_line_error(answer), answer.text[:200]
    wrong_method = client.get("/api/search", headers=auth)
    assert wrong_method.status_code == 405 and "use POST" in one_line_error(wrong_method)
    for mode in ("lexical", "hybrid"):  # a NUL is a space: FTS5 would read it as the end of the string
        found = client.post("/api/search", json={"query": "TriAttention\0KV", "mode": mode}, headers=auth)
        assert found.status_code == 200 and found.json()["results"][0]["id"].startswith("tri-")
    nul = client.post("/api/check", json={"text": "TriAttention\0KV cache compression\n10x less"}, headers=auth)
    assert nul.status_code == 200 and nul.json()["items"]
    assert not [r for r in caplog.records if r.levelname == "ERROR"]  # no traceback in the log


def test_bad_text_over_mcp(make_service: Callable[..., Service]) -> None:
    surrogate, nul, check, show = mcp_calls(
        make_service(),
        [
            ("search", {"query": "\ud800 KV"}),
            ("search", {"query": "TriAttention\0KV", "mode": "lexical"}),
            ("check", {"text": "TriAttention \udfff KV cache"}),
            ("show", {"id": "tri-\udc00"}),
        ],
    )
    assert surrogate.is_error and "not valid Unicode" in surrogate.content[0].text
    assert show.is_error and "id: not valid Unicode" in show.content[0].text
    assert not nul.is_error and nul.structured_content["results"][0]["id"].startswith("tri-")
    assert check.is_error and "not valid Unicode" in check.content[0].text


# -- budget, going away, the check queue ----------------------------------------------


def test_a_check_over_its_budget_is_stopped(
    make_service: Callable[..., Service], index: Path, judged: list[float], caplog: pytest.LogCaptureFixture
) -> None:
    client, auth = http(make_service(budget=0.5), index)
    judged.clear()  # the check the server ran at start
    started = time.monotonic()
    answer = client.post("/api/check", json={"text": briefing_with_claims(40)}, headers=auth)  # 2 s of claims
    took = time.monotonic() - started
    assert answer.status_code == 503 and "time budget of 0.5 s" in one_line_error(answer)
    # Stopped near the budget, not after the 2 s all 40 claims take (slack for a busy machine).
    assert "nothing was written" in answer.json()["error"] and took < 0.5 + 10 * CLAIM_SECONDS
    assert "check: the request ran over its time budget" in caplog.text
    assert client.post("/api/search", json={"query": "TriAttention"}, headers=auth).status_code == 200


def test_a_check_whose_client_goes_away_is_stopped(
    make_service: Callable[..., Service], index: Path, judged: list[float]
) -> None:
    service = make_service()
    judged.clear()  # the check the server ran at start
    tokens, _ = Tokens.in_folder(index)
    app = build_app(service, tokens, host="127.0.0.1")
    body = json.dumps({"text": briefing_with_claims(40)}).encode()  # 2 s of claims

    async def leave_after(seconds: float) -> list[dict[str, Any]]:
        held = held_request(app, _scope("/api/check", body, read_token(index)), body)
        await asyncio.sleep(seconds)
        held.leave()
        await asyncio.wait_for(held.task, 5)
        return held.sent

    sent = asyncio.run(leave_after(0.5))
    at_leave = len(judged)
    time.sleep(1.0)
    assert 0 < at_leave < 40 and len(judged) <= at_leave + 1  # at most the claim it was judging
    assert sent[0]["status"] == 499


def test_a_client_gone_before_its_whole_body_came_is_no_error(
    make_service: Callable[..., Service], index: Path, caplog: pytest.LogCaptureFixture
) -> None:
    tokens, _ = Tokens.in_folder(index)
    app = build_app(make_service(), tokens, host="127.0.0.1")
    messages = [{"type": "http.request", "body": b'{"text": "TriAttention', "more_body": True}]
    messages.append({"type": "http.disconnect"})
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return messages.pop(0)

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(app(_scope("/api/check", b"x" * 1000, read_token(index)), receive, send))
    assert sent[0]["status"] == 499 and not [r for r in caplog.records if r.levelname == "ERROR"]


def test_a_cancelled_mcp_call_stops_its_check(make_service: Callable[..., Service], judged: list[float]) -> None:
    service = make_service()
    judged.clear()  # the check the server ran at start

    async def run() -> None:
        async with Client(build_mcp(service, lambda ctx: Access.read)) as client:
            with anyio.move_on_after(0.5):  # the SDK sends notifications/cancelled
                await client.call_tool("check", {"text": briefing_with_claims(40)})
            at_cancel = len(judged)
            await asyncio.sleep(1.0)
            assert 0 < at_cancel < 40 and len(judged) <= at_cancel + 1
            assert not (await client.call_tool("stats", {})).is_error

    asyncio.run(run())


def test_reads_are_not_starved_by_a_check(make_service: Callable[..., Service], judged: list[float]) -> None:
    service = make_service(readers=1, checkers=1)
    judged.clear()  # the check the server ran at start

    async def run() -> float:
        check = asyncio.ensure_future(service.check(CheckRequest(text=briefing_with_claims(40)), Access.read))
        while not judged:
            await asyncio.sleep(0.01)
        started = time.monotonic()
        await service.search(SearchRequest(query="TriAttention KV cache"))
        took = time.monotonic() - started
        await check
        return took

    assert asyncio.run(run()) < 0.5  # the check alone takes 2 s


def test_a_full_check_queue_answers_503_with_retry_after(
    make_service: Callable[..., Service], index: Path, judged: list[float]
) -> None:
    service = make_service(checkers=1, queue=1)
    judged.clear()  # the check the server ran at start
    tokens, _ = Tokens.in_folder(index)
    auth = {"Authorization": f"Bearer {read_token(index)}"}
    transport = httpx.ASGITransport(app=build_app(service, tokens, host="127.0.0.1"))  # type: ignore[arg-type]

    async def run() -> list[httpx.Response]:
        async with httpx.AsyncClient(transport=transport, base_url="http://x", headers=auth) as client:
            slow = {"text": briefing_with_claims(20)}
            running = asyncio.ensure_future(client.post("/api/check", json=slow))
            while not judged:
                await asyncio.sleep(0.01)
            waiting = asyncio.ensure_future(client.post("/api/check", json=slow))
            await asyncio.sleep(0.1)
            refused = await client.post("/api/check", json=slow)
            search = await client.post("/api/search", json={"query": "KV"})
            return [refused, search, await running, await waiting]

    refused, search, *done = asyncio.run(run())
    assert refused.status_code == 503 and refused.headers["Retry-After"].isdigit()
    assert "check requests waiting: 1;" in one_line_error(refused) and "nothing was done" in refused.json()["error"]
    assert search.status_code == 200 and [d.status_code for d in done] == [200, 200]


def _scope(path: str, body: bytes, token: str) -> dict[str, Any]:
    headers = [(b"authorization", f"Bearer {token}".encode()), (b"content-length", str(len(body)).encode())]
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 80),
    }


# -- the pieces: cancellation, the model's turns ---------------------------------------


def test_a_checkpoint_obeys_its_cancellation_only() -> None:
    checkpoint()  # outside a request: nothing to obey
    with watching(Cancellation(budget=60)):
        checkpoint()
    spent = Cancellation(budget=0.0)
    time.sleep(0.01)
    with watching(spent), pytest.raises(Stopped, match="time budget of 0 s"):
        checkpoint()
    left = Cancellation(budget=60)
    left.cancel("the client went away")
    with watching(left), pytest.raises(Stopped, match="the client went away; nothing was written"):
        checkpoint()
    checkpoint()  # and after the block, nothing again


class SlowEncoder(FakeEncoder):
    def encode(self, texts: Any) -> np.ndarray:
        time.sleep(0.05)
        return super().encode(texts)


def test_a_big_encode_takes_turns_with_a_query_and_stops_at_a_checkpoint() -> None:
    shared = SharedEncoder(FAKE, SlowEncoder(), turn=8)
    texts = [f"要点 {n}: KV cache" for n in range(160)]  # 20 turns: about a second
    bulk: list[np.ndarray] = []
    began = time.monotonic()
    worker = threading.Thread(target=lambda: bulk.append(shared.encode(texts)))
    worker.start()
    time.sleep(0.1)
    started = time.monotonic()
    shared.encode(["TriAttention"])
    waited = time.monotonic() - started
    worker.join()
    whole = time.monotonic() - began
    # Its turn came after the one under way, not after all twenty (relative: a loaded machine stretches both).
    assert waited < whole / 4
    assert np.array_equal(bulk[0], FakeEncoder().encode(texts))
    with watching(Cancellation(budget=0.2)), pytest.raises(Stopped):
        shared.encode(texts)


def test_a_request_out_of_time_while_it_waited_is_not_started(make_service: Callable[..., Service]) -> None:
    pool = make_service(checkers=1)._checkers
    release = threading.Event()
    pool.submit(lambda kb: release.wait(5))  # the one thread is busy
    ran: list[int] = []
    late = pool.submit(lambda kb: ran.append(1), Cancellation(budget=0.05))
    time.sleep(0.2)
    release.set()
    with pytest.raises(Stopped, match="time budget"):
        late.result(5)
    assert ran == []


@pytest.mark.skipif(sys.platform != "linux", reason="only Linux gives each thread its own priority")
def test_checking_threads_yield_the_cores_to_the_readers(make_service: Callable[..., Service]) -> None:
    service = make_service()
    priority = lambda kb: os.getpriority(os.PRIO_PROCESS, threading.get_native_id())  # noqa: E731
    reader, checker = service._readers.submit(priority).result(5), service._checkers.submit(priority).result(5)
    assert reader == os.getpriority(os.PRIO_PROCESS, 0) and checker == max(reader, CHECK_NICE)
    assert service._quick_checkers.submit(priority).result(5) == reader


def test_the_server_runs_each_model_call_on_one_core(
    make_service: Callable[..., Service], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Set before the models load: a check's runs of the judge leave the other cores to the searches."""
    from kbsearch.embed import e5_onnx

    monkeypatch.setattr(e5_onnx, "SIDE_BY_SIDE", threading.Event())
    make_service()
    assert e5_onnx.SIDE_BY_SIDE.is_set()


def test_a_short_check_runs_at_the_readers_priority_and_a_big_one_below(
    make_service: Callable[..., Service], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An increment checked beside busy searches is answered; a briefing of
    many claims still yields the cores to them."""
    from kbsearch.kb import KnowledgeBase

    ran_on: list[str] = []
    record_thread = lambda kb, text, **options: ran_on.append(threading.current_thread().name)  # noqa: E731
    monkeypatch.setattr(KnowledgeBase, "check_text", record_thread)
    service = make_service()
    short, big = "TriAttention cuts KV memory by 6x", briefing_with_claims(100)
    assert len(short) <= QUICK_CHECK_CHARS < len(big)
    ran_on.clear()  # the server's own check at start
    for text in (short, big):
        asyncio.run(service.check(CheckRequest(text=text), Access.read))
    assert ran_on[0].startswith("kbsearch-quick-check") and ran_on[1].startswith("kbsearch-check")


def test_the_server_checks_once_at_start(make_service: Callable[..., Service], monkeypatch: pytest.MonkeyPatch) -> None:
    """What only a check loads (the judge's token model) loads before the first caller, not during its check."""
    from kbsearch.kb import KnowledgeBase

    checked: list[str] = []
    monkeypatch.setattr(KnowledgeBase, "check_text", lambda kb, text, **o: checked.append(text))
    make_service()
    assert checked == ["kbsearch serve warm-up"]


def test_an_accept_stopped_while_it_writes_writes_nothing(index: Path) -> None:
    """A stop can come while accept embeds the new items inside its write
    transaction (a turn at the model is a checkpoint): it is rolled back."""
    from typing import cast

    from kbsearch.kb import Encoder, KnowledgeBase

    class Counting(FakeEncoder):
        stop_at, calls, cancellation = 0, 0, Cancellation()

        def encode(self, texts: Any) -> np.ndarray:
            self.calls += 1
            if self.calls == self.stop_at:
                self.cancellation.cancel("the client went away")
            return super().encode(texts)

    counting = Counting()
    shared = cast(Encoder, SharedEncoder(FAKE, counting, turn=1))  # a checkpoint before every text
    name = "inbox/stephen/2026-09-21-inference-e1prep.md"
    with KnowledgeBase(index, FAKE, encoder=shared) as kb:
        kb.check_text(BRIEFING, name=name)
        counting.stop_at, counting.calls = counting.calls + 1, 0  # the first text accept embeds to write
        with watching(counting.cancellation), pytest.raises(Stopped, match="nothing was written"):
            kb.check_text(BRIEFING, name=name, accept=True)
        assert counting.calls > counting.stop_at - 1 and kb.stats().records == 4
        assert not [r.id for r in kb.listing().records if r.id.startswith("stephen/")]
