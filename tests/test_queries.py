"""Queries a user types (issue 24): a repo is one identifier however it is
written, and an exact hit shows what matters; full-width text, superscripts
and case are folded alike in queries and records; a query that starts with
a dash; impossible --limit and date ranges refused; an ingest's wait for
another writer told apart from its work."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from filelock import FileLock
from hypothesis import given
from hypothesis import strategies as st
from textual.widgets import Input, Static
from tui_support import SIZE, build_index, drive, search_for, search_screen, wait_for

from fake_encoder import FakeEncoder
from kbsearch import render
from kbsearch.cli import write_commands
from kbsearch.errors import KbError
from kbsearch.filters import SearchFilter
from kbsearch.ingest import IngestReport, ingest_records
from kbsearch.kb import LOCK_NAME, KnowledgeBase
from kbsearch.parse import iter_input_files, parse_file
from kbsearch.records import Kind, Record
from kbsearch.search import SearchMode, SearchResponse, search
from kbsearch.store import ChangeSet, Store, lexical
from kbsearch.store.lexical_counts import COUNTS_TABLE
from kbsearch.store.migrations import ON_OPEN, _m2_document, _m2_refs
from kbsearch.text.folding import fold, fold_offsets
from kbsearch.text.snippet import make_snippet
from kbsearch.tui import hits as hitview
from kbsearch.tui import make_app
from kbsearch.tui.audit_screen import AuditScreen
from kbsearch.tui.results_table import ResultsTable

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
TRIATTENTION = {"jay/2026-09-17-jay-inference-e1prep#1", "spark/2026-09-18-spark-llm-infra-e1prep#1"}
C2KV = "card/1093"  # C²KV: Compressible and Composable KV Cache Reuse


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> Store:
    store = Store.open(tmp_path_factory.mktemp("kb") / "idx", create=True)
    records = [r for path in iter_input_files([EXAMPLES]) for r in parse_file(path.resolve()).records]
    encoder = FakeEncoder()
    ingest_records(store, ChangeSet(upserts=records), model=encoder.model_id, load_encoder=lambda: encoder)
    return store


def ask(store: Store, query: str, mode: SearchMode = SearchMode.hybrid, k: int = 10) -> SearchResponse:
    return search(store, FakeEncoder(), query, k, SearchFilter(), mode)


def found(response: SearchResponse) -> list[str]:
    return [hit.id for hit in response.results]


# -- 1: a repo is one identifier, and an exact hit shows what matters -----------

REPO_FORMS = [
    "https://github.com/WeianMao/triattention",
    "https://github.com/WeianMao/triattention/",
    "github.com/weianmao/TriAttention",
    "GitHub WeianMao/triattention",
    "WeianMao/triattention",
]


@pytest.mark.parametrize("mode", list(SearchMode))
@pytest.mark.parametrize("query", REPO_FORMS)
def test_a_repo_is_one_identifier_however_it_is_written(examples: Store, mode: SearchMode, query: str) -> None:
    response = ask(examples, query, mode)
    assert response.missing_ids == []  # never "no record carries url:…" beside the repo's records
    exact = [hit for hit in response.results if hit.exact]
    assert {hit.id for hit in exact} == TRIATTENTION
    assert found(response)[:2] == [hit.id for hit in exact]
    assert all(hit.matched_ids == ["github:weianmao/triattention"] for hit in exact)
    assert "no record carries" not in render.search_text(response).plain


def test_an_exact_hit_of_a_lexical_search_has_its_lexical_score(examples: Store) -> None:
    response = ask(examples, "https://github.com/WeianMao/triattention", SearchMode.lexical)
    exact = [hit for hit in response.results if hit.exact]
    assert exact and all(hit.lexical_score is not None and hit.score > 0 for hit in exact)
    text = render.search_text(response).plain
    assert "0.000" not in text
    assert text.count("carries github:weianmao/triattention") == len(exact)  # which id put each one there


def test_rows_are_scored_in_chunks_as_in_one_query(examples: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    terms = lexical.query_terms("KV cache 压缩")
    rowids = [r for (r,) in examples.db.execute("SELECT rowid FROM records")]
    whole = dict(lexical.score_rows(examples.db, terms, rowids))
    monkeypatch.setattr(lexical, "_ROWS_AT_ONCE", 3)
    assert len(whole) > 3 and dict(lexical.score_rows(examples.db, terms, rowids)) == pytest.approx(whole)


def test_a_record_listed_for_its_id_alone_shows_no_score(examples: Store) -> None:
    # The card carries the id, but not in its text: a lexical search ranks by
    # the id's term alone, has no score for it, and a number would mean nothing.
    response = ask(examples, "2607.17715 KV", SearchMode.lexical)
    card = next(hit for hit in response.results if hit.id == C2KV)
    assert card.exact == "card" and card.lexical_score is None and card.dense_score is None
    row = next(line for line in render.search_text(response).plain.splitlines() if "C²KV: Compressible" in line)
    assert row.split()[1:3] == ["=", "-"]
    assert hitview.row_cells(card)[0].plain == "=-"
    scored = next(hit for hit in response.results if hit.exact and hit.id != C2KV)
    assert hitview.row_cells(scored)[0].plain == f"={scored.score:.3f}"


def test_a_deeper_github_link_is_its_own_url_beside_its_repo(examples: Store) -> None:
    response = ask(examples, "https://github.com/WeianMao/triattention/issues/9")
    assert response.missing_ids == ["url:https://github.com/weianmao/triattention/issues/9"]
    assert {hit.id for hit in response.results if hit.exact} == TRIATTENTION


def test_two_words_with_a_slash_are_never_reported_as_a_repo(examples: Store) -> None:
    response = ask(examples, "prefill/decode 分离")
    assert response.missing_ids == [] and not any(hit.exact for hit in response.results)
    assert "'=' marks" not in render.search_text(response).plain  # no legend without an exact hit


# -- 2: one folded form for queries and records ---------------------------------


def test_full_width_query_finds_what_its_ascii_finds(examples: Store) -> None:
    wide = found(ask(examples, "ＫＶ　ｃａｃｈｅ　ｒｅｕｓｅ", SearchMode.lexical))
    assert wide and wide == found(ask(examples, "KV cache reuse", SearchMode.lexical))


@pytest.mark.parametrize("query", ["c2kv", "C2KV", "ｃ２ｋｖ", "C²KV"])
def test_superscripts_fold_to_digits(examples: Store, query: str) -> None:
    response = ask(examples, query, SearchMode.lexical)
    assert response.results and all("C²KV" in hit.title for hit in response.results[:3])


def test_a_snippet_marks_the_records_own_spelling() -> None:
    spans = make_snippet("先看 C²KV，再看 ＫＶ　ｃａｃｈｅ 与 ﬁne… KV", ["c2kv", "kv", "cache", "fine"])
    assert [span.text for span in spans if span.match] == ["C²KV", "ＫＶ", "ｃａｃｈｅ", "ﬁne", "KV"]


@given(st.text(alphabet="aZ 1²₂，：（）…ﬁİẞＫｖ频域\u0301", max_size=40))
def test_folding_with_offsets_is_folding_each_character(text: str) -> None:
    folded, origin = fold_offsets(text)
    assert folded == "".join(fold(ch) for ch in text)
    assert len(origin) == len(folded) and list(origin) == sorted(origin)
    assert all(folded[j] in fold(text[i]) for j, i in enumerate(origin))


def test_full_width_arxiv_id_is_the_id(examples: Store) -> None:
    hit = ask(examples, "２６０７．１７７１５").results[0]
    assert hit.id == C2KV and hit.exact == "card"


def _record(i: int, title: str, text: str, **extra: Any) -> Record:
    return Record(
        id=f"tom/w{i}",
        kind=Kind.increment,
        title=title,
        text=text,
        instance="tom",
        date=dt.date(2026, 9, 1 + i),
        source="/src/tom.md",
        position=i,
        **extra,
    )


WIDE_RECORDS = [
    _record(0, "ＲｉｎｇＰｏｓｅ：全宽写的名字", "在 Ｈ１００ 上的 ＫＶ　ｃａｃｈｅ 实验"),
    _record(1, "C²KV again", "KV cache reuse, written plainly"),
    _record(2, "An unrelated note", "nothing to see", sources=["https://Example.org/Ｒｅｐｏｒｔ"]),
]


def _wide_store(root: Path) -> Store:
    store = Store.open(root, create=True)
    encoder = FakeEncoder()
    ingest_records(store, ChangeSet(upserts=WIDE_RECORDS), model=encoder.model_id, load_encoder=lambda: encoder)
    return store


def _finds_the_wide_records(store: Store) -> None:
    assert found(search(store, None, "RingPose", 3, mode=SearchMode.lexical)) == ["tom/w0"]
    assert found(search(store, None, "h100", 3, mode=SearchMode.lexical)) == ["tom/w0"]
    assert found(search(store, None, "c2kv", 3, mode=SearchMode.lexical)) == ["tom/w1"]
    # A two-letter query scans the records' folded text: ＫＶ is KV.
    assert set(found(search(store, None, "kv", 3, mode=SearchMode.lexical))) == {"tom/w0", "tom/w1"}
    response = search(store, None, "https://example.org/report", 3, mode=SearchMode.lexical)
    assert response.missing_ids == [] and response.results[0].id == "tom/w2"


def test_records_written_in_full_width_are_found_by_ascii(tmp_path: Path) -> None:
    _finds_the_wide_records(_wide_store(tmp_path / "idx"))


def test_an_index_from_before_folding_is_folded_on_open(tmp_path: Path) -> None:
    root = tmp_path / "idx"
    _wide_store(root).close()
    # Put it back as schema 2 wrote it: FTS rows and references as typed, not folded.
    db = sqlite3.connect(root / "kb.sqlite")
    with db:
        for rowid, data in db.execute("SELECT rowid, data FROM records").fetchall():
            record = json.loads(data)
            db.execute(
                f"UPDATE {lexical.FTS_TABLE} SET title = ?, body = ?, meta = ? WHERE rowid = ?",
                (*_m2_document(record), rowid),
            )
            db.execute("DELETE FROM record_refs WHERE rowid = ?", (rowid,))
            db.executemany("INSERT INTO record_refs VALUES (?, ?)", [(rowid, ref) for ref in _m2_refs(record)])
    db.execute(f"DROP TABLE {COUNTS_TABLE}")  # schema 4 added it
    db.execute("PRAGMA user_version = 2")
    assert "url:https://example.org/ｒｅｐｏｒｔ" in {r for (r,) in db.execute("SELECT ref FROM record_refs")}
    db.close()
    store = Store.open(root, model="fake")
    assert store.db.execute("PRAGMA user_version").fetchone()[0] == ON_OPEN  # schema 10 waits for a first_date write
    _finds_the_wide_records(store)


# -- 3: a query that starts with a dash ----------------------------------------


def test_a_query_that_starts_with_a_dash_is_told_to_use_double_dash(index: str, cli) -> None:  # type: ignore[no-untyped-def]
    told = "-vLLM is not an option; to pass text that starts with '-', put '--' before it: kbsearch search -- -vLLM"
    # One line: not argparse's "argument -v/--verbose: ignored explicit argument 'LLM'" and its usage.
    code, out, err = cli("search", "-vLLM", "--index", index, "--mode", "lexical")
    assert (code, out, err) == (2, "", f"kbsearch: {told}\n")
    code, _, err = cli("search", "-xyz", "--index", index, "--json")  # not "the following arguments are required"
    assert code == 2 and json.loads(err)["error"] == "-xyz is not an option" and json.loads(err)["usage"] is None
    code, out, _ = cli("search", "--index", index, "--mode", "lexical", "-k", "3", "--", "-vLLM")
    assert code == 0 and "vLLM" in out
    # Options after -- are text: the error says where they go.
    code, _, err = cli("search", "--", "-vLLM", "--index", index, "-k", "1")
    assert code == 2 and err.splitlines()[-1] == (
        f"kbsearch: error: unrecognized arguments: --index {index} -k 1; "
        "everything after '--' is text: put the options before it"
    )  # no "did you mean --index for --index": they are spelt right
    # A real option with its value attached, or a misspelt long option, gets no such hint.
    code, _, err = cli("search", "-k3", "--nope", "KV", "--index", index)
    assert code == 2 and "'--'" not in err


# -- 4: --limit and date ranges that can hold nothing ---------------------------

BACKWARDS = ["--since", "2026-09-20", "--until", "2026-09-19"]
BACKWARDS_LINE = (
    "kbsearch: --since 2026-09-20 is later than --until 2026-09-19, so no record can match "
    "(swap the two dates, or leave one out)"
)


@pytest.mark.parametrize(
    "argv", [["search", "KV cache"], ["list"], ["audit"], ["similar", C2KV]], ids=lambda argv: argv[0]
)
def test_since_after_until_is_a_usage_error(index: str, cli, argv: list[str]) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli(*argv, *BACKWARDS, "--index", index)
    assert (code, out, err) == (2, "", BACKWARDS_LINE + "\n")
    code, _, err = cli(*argv, *BACKWARDS, "--index", index, "--json")
    assert code == 2 and json.loads(err)["error"].startswith("--since 2026-09-20 is later than --until")


@pytest.mark.parametrize("limit", ["-1", "0"])
def test_a_limit_below_one_is_a_usage_error(index: str, cli, limit: str) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("list", "--limit", limit, "--index", index)
    line = f"kbsearch: --limit must be at least 1, not {limit} (leave --limit out to list every record)\n"
    assert (code, out, err) == (2, "", line)
    with KnowledgeBase.open(index) as kb, pytest.raises(KbError, match="--limit must be at least 1"):
        kb.listing(limit=int(limit))


def test_the_server_refuses_dates_in_the_wrong_order(fake_models: Path, tmp_path: Path) -> None:
    from serve_support import build_index as build_served
    from serve_support import service_for

    from kbsearch.serve.http import build_app
    from kbsearch.serve.tokens import READ_TOKEN, Tokens

    served = build_served(tmp_path)
    service = service_for(served)
    tokens, _ = Tokens.in_folder(served)
    app = build_app(service, tokens, host="127.0.0.1", max_body=64 * 1024)
    auth = {"Authorization": f"Bearer {(served / READ_TOKEN).read_text().strip()}"}

    async def post(url: str, body: dict[str, Any]) -> httpx.Response:
        transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            return await client.post(url, json=body, headers=auth)

    try:
        for url, body in (("/api/search", {"query": "KV"}), ("/api/list", {}), ("/api/similar", {"id": "card"})):
            answer = asyncio.run(post(url, {**body, "since": "2026-09-20", "until": "2026-09-19"}))
            assert answer.status_code == 422, (url, answer.text)
            said = "since 2026-09-20 is later than until 2026-09-19, so no record can match"  # the fields, no flags
            assert answer.json() == {"error": said, "hint": "swap the two dates, or leave one out"}
            misspelt = asyncio.run(post(url, {**body, "sinse": "2026-09-20"}))
            assert misspelt.status_code == 422, (url, misspelt.text)
            assert misspelt.json() == {"error": "sinse: no such field", "hint": "did you mean since?"}
    finally:
        service.close()


@pytest.fixture
def tui_index(fake_models: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(tmp_path)
    build_index(tmp_path / "idx")
    return "idx"


@drive
async def test_the_tui_marks_dates_in_the_wrong_order_and_says_why(tui_index: str) -> None:
    app = make_app(tui_index)
    async with app.run_test(size=SIZE) as pilot:
        await search_for(pilot, "KV cache")
        screen = search_screen(app)
        everything = [hit.id for hit in screen.query_one(ResultsTable).items]
        screen.query_one("#until", Input).focus()
        await pilot.press(*"2026-09-10")
        await wait_for(pilot, lambda: [h.id for h in screen.query_one(ResultsTable).items] != everything, "until")
        screen.query_one("#since", Input).focus()
        await pilot.press(*"2026-09-14")
        later = "since 2026-09-14 is later than until 2026-09-10"
        await wait_for(pilot, lambda: any(later in n.message for n in app._notifications), "the notification")
        fields = [screen.query_one(f"#{name}", Input) for name in ("since", "until")]
        assert all(field.has_class("-invalid") and not field.has_class("-valid") for field in fields)
        # No search, and no count of one: the summary says what to fix.
        summary = screen.query_one("#summary", Static)
        await wait_for(pilot, lambda: later in str(summary.render()), "the summary")
        assert "result" not in str(summary.render()) and not screen.query_one(ResultsTable).items
        await pilot.press("tab")  # leaving the field keeps it marked (Textual's blur validation set -valid)
        assert fields[0].has_class("-invalid") and not fields[0].has_class("-valid")
        # A month is no date (as --since 2026-10 is refused): marked, and said, not ignored.
        fields[0].value, fields[1].value = "2026-10", ""
        await wait_for(pilot, lambda: "since: '2026-10' is not a date yet" in str(summary.render()), "the month")
        assert fields[0].has_class("-invalid") and not fields[1].has_class("-invalid")
        fields[0].value = ""
        await wait_for(pilot, lambda: [h.id for h in screen.query_one(ResultsTable).items] == everything, "cleared")
        await pilot.press("f4")
        audit = app.screen
        assert isinstance(audit, AuditScreen)
        await wait_for(pilot, lambda: audit.result is not None, "the audit")
        audit.query_one("#audit-until", Input).value = "2026-09-10"
        audit.query_one("#audit-since", Input).value = "2026-09-14"
        await wait_for(pilot, lambda: sum(later in n.message for n in app._notifications) == 2, "the audit's note")
        assert all(field.has_class("-invalid") for field in audit.query("#audit-range Input"))
        assert "Not audited: since 2026-09-14" in str(audit.query_one("#audit-summary", Static).render())
        assert audit.date_range() == SearchFilter()
        assert app.is_running


# -- 5: an ingest's wait for another writer is not its work ---------------------


def test_an_ingest_reports_its_wait_for_another_writer_apart(  # type: ignore[no-untyped-def]
    index: str, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    lock = FileLock(str(Path(index) / LOCK_NAME), thread_local=False)
    lock.acquire()
    say_waiting = write_commands.say_waiting

    def another_writer_done_in_1_5_s() -> None:
        # Timed from the ingest's wait, not the test's start: a slow import before
        # the lock is asked for is no part of the wait (CI once read 0.963 s).
        threading.Timer(1.5, lock.release).start()
        say_waiting()

    monkeypatch.setattr(write_commands, "say_waiting", another_writer_done_in_1_5_s)
    never_hang = threading.Timer(60, lock.release)  # should the ingest wait without saying so
    never_hang.start()
    card = EXAMPLES / "cards" / "card-1093-c2kv.md"
    code, out, err = cli("ingest", str(card), "--index", index, "--json")
    assert code == 0 and "waiting for it to finish" in err
    report = json.loads(out)
    assert report["waited"] >= 1.4
    assert report["seconds"] < report["waited"]  # nothing to embed: the work is short, the wait is not
    never_hang.cancel()
    code, out, _ = cli("ingest", str(card), "--index", index)
    assert code == 0 and "waited" not in out  # no other writer this time
    line = render.ingest_text(IngestReport(model="fake", files=1, records=1, seconds=2.1, waited=92.0))
    assert line.endswith("in 2.10s (waited 92.00s for another writer)")
