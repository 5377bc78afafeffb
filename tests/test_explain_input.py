"""`kbsearch explain FILE#N B`: an input's item, stored or not, explained against record B.

Probe 23: a DUPLICATE the writer then dropped could not be explained ("no record with id
spark/2026-10-03-spark-infra-e1prep#1"), and it is the verdict an editor questions. The
file's item is checked as `check FILE` checks it, so the match is check's own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import check_json, ingest_rows, run
from support.files import write_jsonl

KNOWN = {
    "id": "c2kv", "title": "C²KV compressible composable KV cache reuse", "instance": "jay", "date": "2026-08-26",
    "arxiv_ids": ["2607.17715"], "claims": ["4x compression keeps NDCG@5 at 0.71", "orthogonal to PagedAttention"],
}  # fmt: skip
REPEAT = {**KNOWN, "id": "c2kv-again", "instance": "spark", "date": "2026-08-28"}
OTHER = {"id": "gpu", "title": "GPU health checks", "instance": "tom", "date": "2026-08-28", "text": "step alarms"}


@pytest.fixture
def dropped(fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, Path, dict]:
    """The index holding KNOWN, an input whose item 2 repeats it (never stored), and check's result for it."""
    index = str(ingest_rows(capsys, tmp_path, [KNOWN]))
    inbox = write_jsonl(tmp_path / "inbox.jsonl", [OTHER, REPEAT])
    _, result = check_json(capsys, "check", str(inbox), "--index", index)
    return index, inbox, result["items"][1]


def test_an_unstored_duplicate_is_explained_with_checks_own_match(
    dropped: tuple[str, Path, dict], capsys: pytest.CaptureFixture[str]
) -> None:
    index, inbox, item = dropped
    assert item["verdict"] == "DUPLICATE"
    code, out, err = run(capsys, "explain", f"{inbox}#2", "c2kv", "--claim", "1", "--index", index, "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["a"]["id"] == "c2kv-again" and result["b"]["id"] == "c2kv"
    assert result["match"] == next(m for m in item["matches"] if m["id"] == "c2kv")  # check's very match
    assert result["claim"]["status"] == item["claims"][0] and result["claim"]["known"] is True
    assert any("item 2 of" in note for note in result["notes"])
    code, out, _ = run(capsys, "explain", f"{inbox}#2", "c2kv", "--index", index)
    assert code == 0 and out.startswith("A  c2kv-again") and "same item" in out


def test_a_stored_pair_s_match_is_in_check_s_words(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """explain builds its own match, and says what B is to A and which claims it states as check does."""
    index = str(ingest_rows(capsys, tmp_path, [KNOWN, REPEAT]))
    code, out, err = run(capsys, "explain", "c2kv-again", "c2kv", "--index", index, "--json")
    assert code == 0, err
    match = json.loads(out)["match"]
    assert match["relation"] == "same item" and match["states_claims"] == [1, 2]


def test_a_file_of_one_item_needs_no_number(
    dropped: tuple[str, Path, dict], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    index, _, _ = dropped
    one = write_jsonl(tmp_path / "one.jsonl", [REPEAT])
    code, out, err = run(capsys, "explain", str(one), "c2kv", "--index", index, "--json")
    assert code == 0, err
    assert json.loads(out)["match"]["same_item"]


@pytest.mark.parametrize(
    ("a", "said"),
    [
        ("#3", "item 3: the file has 2 items, numbered 1 to 2"),
        ("#0", "item (none given): the file has 2 items"),
        ("", "item (none given): the file has 2 items"),
        ("#x", "after '#' give the item's number (FILE#N, from 1)"),
    ],
)
def test_a_bad_item_number_is_one_line(
    dropped: tuple[str, Path, dict], capsys: pytest.CaptureFixture[str], a: str, said: str
) -> None:
    index, inbox, _ = dropped
    code, out, err = run(capsys, "explain", f"{inbox}{a}", "c2kv", "--index", index)
    assert code == 2 and not out
    assert err.count("\n") == 1 and said in err and str(inbox) in err


def test_a_claim_number_out_of_range_is_one_line(
    dropped: tuple[str, Path, dict], capsys: pytest.CaptureFixture[str]
) -> None:
    index, inbox, _ = dropped
    code, _, err = run(capsys, "explain", f"{inbox}#2", "c2kv", "--claim", "5", "--index", index)
    assert code == 2 and err.count("\n") == 1 and "claim 5: item 2 of" in err and "numbered 1 to 2" in err


def test_as_of_hides_what_check_as_of_that_day_hid(
    dropped: tuple[str, Path, dict], capsys: pytest.CaptureFixture[str]
) -> None:
    """A check as of the day before KNOWN never compared it: explain says so, as check would."""
    index, inbox, _ = dropped
    code, out, err = run(capsys, "explain", f"{inbox}#2", "c2kv", "--as-of", "2026-08-25", "--index", index, "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["as_of"] == "2026-08-25"
    assert any(note.startswith("check did not compare B") for note in result["notes"])
