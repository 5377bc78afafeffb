"""Input limits: each refused with one line naming it, the same from the CLI as
from the server; ``check --bulk`` lifts them for a local run; bad text in a
query is an error or a space, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from serve_support import BRIEFING, briefing_with_claims, build_index
from support.briefings import BRIEFING_FOLDERS
from support.cli import run

from kbsearch.errors import TooLarge
from kbsearch.kb import KnowledgeBase
from kbsearch.limits import DEFAULT_LIMITS, InputLimits, using

NAME = "inbox/stephen/2026-09-21-inference-e1prep.md"


@pytest.fixture
def index(fake_models: Path, tmp_path: Path) -> Path:
    return build_index(tmp_path)


def jsonl(items: int, text: str = "KV cache") -> str:
    return "".join(json.dumps({"id": f"r{n}", "title": f"item {n}", "text": text}) + "\n" for n in range(items))


# Each limit, and an input just over it that every other limit lets through.
OVER = {
    "input_chars": (InputLimits(input_chars=len(BRIEFING) + 1), BRIEFING * 2, NAME),
    "input_items": (InputLimits(input_items=3), jsonl(4), "rows.jsonl"),
    "input_claims": (InputLimits(input_claims=10), briefing_with_claims(6) + briefing_with_claims(6), NAME),
    "item_claims": (InputLimits(item_claims=5), briefing_with_claims(5), NAME),
    "item_chars": (InputLimits(item_chars=500), jsonl(1, "KV " * 200), "rows.jsonl"),
}


@pytest.mark.parametrize("limit", sorted(OVER))
def test_each_check_limit_refuses_naming_itself(index: Path, limit: str) -> None:
    limits, text, name = OVER[limit]
    with KnowledgeBase.open(index) as kb:
        with using(limits), pytest.raises(TooLarge) as refused:
            kb.check_text(text, name=name)
        assert refused.value.limit == limit
        assert limit in str(refused.value) and name in str(refused.value) and "--bulk" in str(refused.value)
        with using(limits.bulk()):  # the same input, every check limit lifted
            assert kb.check_text(text, name=name).items


@pytest.mark.parametrize("folder", BRIEFING_FOLDERS)
def test_a_real_briefing_is_far_inside_every_limit(folder: Path, index: Path) -> None:
    """The seeds, or the two briefings written like them (tests/fixtures/briefings)."""
    ten_times = InputLimits(
        input_chars=DEFAULT_LIMITS.input_chars // 10,  # type: ignore[operator]
        input_items=DEFAULT_LIMITS.input_items // 10,  # type: ignore[operator]
        input_claims=DEFAULT_LIMITS.input_claims // 10,  # type: ignore[operator]
        item_claims=DEFAULT_LIMITS.item_claims // 10,  # type: ignore[operator]
        item_chars=DEFAULT_LIMITS.item_chars // 10,  # type: ignore[operator]
    )
    with KnowledgeBase.open(index) as kb, using(ten_times):
        for briefing in sorted(folder.iterdir()):
            assert kb.check(str(briefing)).items


def test_the_cli_refuses_an_input_over_a_limit_in_one_line_and_bulk_lifts_it(
    index: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    briefing = tmp_path / "2026-09-21-inference-e1prep.md"
    briefing.write_text(briefing_with_claims(150), encoding="utf-8")
    code, out, err = run(capsys, "check", str(briefing), "--index", str(index))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and str(briefing) in err and "151 claims" in err and "item_claims" in err
    code, out, _ = run(capsys, "check", str(briefing), "--bulk", "--index", str(index), "--json")
    assert code in (0, 1) and len(json.loads(out)["items"]) == 2
    code, _, err = run(capsys, "check", str(briefing), "--bulk", "--server", "http://127.0.0.1:9")
    assert code == 2 and "--bulk" in err and "drop --server" in err


def test_the_client_refuses_a_file_over_input_chars_before_sending_it(
    index: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    big = tmp_path / "big.jsonl"
    big.write_text(jsonl(1, "KV " * (DEFAULT_LIMITS.input_chars or 0)), encoding="utf-8")
    monkeypatch.setattr("kbsearch.cli.client.call", lambda *a: pytest.fail("sent to the server"))
    code, _, err = run(capsys, "check", str(big), "--server", "http://127.0.0.1:9", "--token-file", str(big))
    assert code == 2 and str(big) in err and "input_chars" in err and err.count("\n") == 1


def test_a_query_over_the_limit_or_not_text_is_one_line(index: Path, capsys: pytest.CaptureFixture[str]) -> None:
    at = ["--index", str(index)]
    code, _, err = run(capsys, "search", "KV " * 2000, *at)
    assert code == 2 and "6,000 characters" in err and "query_chars" in err and err.count("\n") == 1
    # Bytes that are not UTF-8 reach Python's argv as lone surrogates.
    code, _, err = run(capsys, "search", "KV \udcff cache", *at)
    assert code == 2 and "not valid Unicode" in err and "U+DCFF" in err and err.count("\n") == 1


def test_a_nul_in_a_query_is_a_space(index: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for mode in ("lexical", "hybrid"):
        code, out, err = run(capsys, "search", "TriAttention\0KV", "--mode", mode, "--index", str(index), "--json")
        assert code == 0, err
        assert json.loads(out)["results"][0]["id"].startswith("tri-")


def test_stdin_that_is_not_text_is_refused(index: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr("sys.stdin.read", lambda: "TriAttention \udcff KV cache\n10x less")
    code, _, err = run(capsys, "check", "-", "--index", str(index))
    assert code == 2 and "<stdin>" in err and "not valid Unicode" in err and err.count("\n") == 1


def test_a_local_jsonl_batch_of_any_length_keeps_only_each_records_limits(
    index: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A day of a feed checked as one JSONL file (the evaluation protocol's `check --as-of DAY`):
    hundreds of records, more characters than one request may carry, each record small."""
    many = DEFAULT_LIMITS.input_items * 3  # type: ignore[operator]
    rows = "".join(
        json.dumps({"id": f"r{i}", "title": f"note {i}", "text": "KV cache " * 120}) + "\n" for i in range(many)
    )
    batch = tmp_path / "day.jsonl"
    batch.write_text(rows, encoding="utf-8")
    assert batch.stat().st_size > (DEFAULT_LIMITS.input_chars or 0)
    code, out, err = run(capsys, "check", str(batch), "--index", str(index), "--json")
    assert code in (0, 1) and len(json.loads(out)["items"]) == many, err
    one_big = tmp_path / "big-record.jsonl"
    one_big.write_text(json.dumps({"id": "x", "title": "t", "text": "KV " * 10_000}) + "\n", encoding="utf-8")
    code, _, err = run(capsys, "check", str(one_big), "--index", str(index))
    assert code == 2 and "item_chars" in err
