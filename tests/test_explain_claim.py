"""`kbsearch explain A B --claim N`: why check calls claim N of A known or new, rule by rule.

A user read in `check --json` that one claim of an increment was known and another new, and
`explain A B` could only say why the two records were the same item. The claim is decided by
check itself (A checked as if it came in again), so the answer agrees with check's, with the
fake encoder: the known claim by its passage's score, the new one by its new figures."""

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
UPDATE = {
    "id": "c2kv-full", "title": "C²KV cache reuse, full paper", "instance": "spark", "date": "2026-08-28",
    "arxiv_ids": ["2607.17715"],
    "claims": ["4x compression keeps NDCG@5 at 0.71", "8x compression drops NDCG@5 to 0.52"],
}  # fmt: skip


@pytest.fixture
def checked(fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, dict]:
    """The index holding both records, and check's result for the update before it was stored."""
    index = str(ingest_rows(capsys, tmp_path, [KNOWN]))
    inbox = write_jsonl(tmp_path / "inbox.jsonl", [UPDATE])
    _, result = check_json(capsys, "check", str(inbox), "--index", index)
    code, _, err = run(capsys, "ingest", str(inbox), "--index", index)
    assert code == 0, err
    return index, result["items"][0]


def explained(capsys: pytest.CaptureFixture[str], index: str, n: int) -> dict:
    code, out, err = run(capsys, "explain", "c2kv-full", "c2kv", "--claim", str(n), "--index", index, "--json")
    assert code == 0, err
    return json.loads(out)


def test_a_known_claim_is_explained_as_check_decided_it(
    checked: tuple[str, dict], capsys: pytest.CaptureFixture[str]
) -> None:
    index, item = checked
    assert item["verdict"] == "UPDATE" and item["claims"][0]["known"]
    result = explained(capsys, index, 1)
    assert result["match"]["same_item"]  # the pair's judgement is still there
    why = result["claim"]
    assert why["n"] == 1 and why["claims"] == 2 and why["known"] is True
    assert why["status"] == item["claims"][0]  # check's very decision of the claim
    assert why["same_item"] == ["c2kv"] and why["b_same_item"] and not why["notes"]
    assert why["decided_by"] == "cosine"
    decided = next(s for s in why["steps"] if s["rule"] == "cosine")
    assert decided["says"] is True and "c2kv" in decided["detail"] and "≥" in decided["detail"]


def test_a_new_claim_is_explained_by_its_new_figures(
    checked: tuple[str, dict], capsys: pytest.CaptureFixture[str]
) -> None:
    index, item = checked
    why = explained(capsys, index, 2)["claim"]
    assert why["known"] is False and why["known"] == item["claims"][1]["known"]
    assert why["status"] == item["claims"][1]
    assert why["decided_by"] == "numbers"
    numbers = next(s for s in why["steps"] if s["rule"] == "numbers")
    assert numbers["says"] is False and "8x" in numbers["detail"] and "0.52" in numbers["detail"]
    code, out, _ = run(capsys, "explain", "c2kv-full", "c2kv", "--claim", "2", "--index", index)
    assert code == 0 and "claim 2 of 2: NEW (decided by numbers)" in out
    assert "→ numbers" in out and "8x compression drops NDCG@5 to 0.52" in out


@pytest.mark.parametrize("n", ["0", "3"])
def test_a_claim_number_out_of_range_is_one_line_naming_the_range(
    checked: tuple[str, dict], capsys: pytest.CaptureFixture[str], n: str
) -> None:
    index, _ = checked
    code, out, err = run(capsys, "explain", "c2kv-full", "c2kv", "--claim", n, "--index", index)
    assert code == 2 and out == ""
    assert f"claim {n}: record 'c2kv-full' has 2 claims, numbered 1 to 2" in err
    assert len(err.strip().splitlines()) <= 2  # the message, and the hint on its own line at most
