"""A claim's line names the decision whose score and threshold it shows: "says the same 0.27 ≥ 0.08"
on one claim and "… ≥ 0.50" on another read to new users as a weak probability and a threshold
that moves, where two decisions (``claim_said``, the cosine decision) each have their own."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import fake_config
from support.cli import check_json, ingest_rows
from support.files import write_jsonl
from test_check import KNOWN
from test_claim_said import record, said

from fake_encoder import FakeEncoder
from kbsearch.cli import main
from kbsearch.dedupe.claim_decision import ClaimDecision
from kbsearch.dedupe.claims import PassageHit, judge_claim
from kbsearch.dedupe.results import ClaimStatus, ItemResult, Verdict
from kbsearch.records import Kind
from kbsearch.render import item_text
from kbsearch.tui.item_detail import claim_lines

CONFIG = fake_config()
JUDGED = CONFIG.model_copy(update={"judge_claim_known": CONFIG.claim_known})  # the judge's cosine decision
ENCODER = FakeEncoder()


def status(decided_by: ClaimDecision | None, score: float, threshold: float, known: bool = True) -> ClaimStatus:
    return ClaimStatus(
        text="cache compression 10x",
        known=known,
        score=score,
        threshold=threshold,
        best_id="jay#2",
        decided_by=decided_by,
    )


def cli_line(claim: ClaimStatus) -> str:
    item = ItemResult(
        id="x", title="t", kind=Kind.increment, instance=None, date=None, verdict=Verdict.NEW, reason="", claims=[claim]
    )
    [line] = [line for line in item_text(item).splitlines() if "←" in line]
    return line


def test_a_claim_line_names_the_decision_it_shows_the_score_of() -> None:
    said_line = cli_line(status(ClaimDecision.claim_said, 0.27, 0.08))
    cosine_line = cli_line(status(ClaimDecision.judge_claim_known, 0.56, 0.5))
    nearest_line = cli_line(status(ClaimDecision.claim_known, 0.2, 0.5, known=False))
    assert "← jay#2 says the same (claim form 0.27 ≥ 0.08)" in said_line
    assert "says the same (judge's cosine form 0.56 ≥ 0.50)" in cosine_line
    assert "← jay#2 is the nearest (cosine form 0.20 < 0.50)" in nearest_line


def test_the_tui_detail_names_it_too() -> None:
    shown = " ".join(line.plain for line in claim_lines(status(ClaimDecision.claim_said, 0.27, 0.08)))
    assert "says the same (claim form 0.27 ≥ 0.08)" in shown


def test_the_json_carries_the_decision_and_an_older_result_still_reads() -> None:
    dumped = status(ClaimDecision.claim_said, 0.27, 0.08).model_dump(mode="json")
    assert dumped["decided_by"] == "claim_said"
    older = ClaimStatus.model_validate({k: v for k, v in dumped.items() if k != "decided_by"})
    assert older.decided_by is None and older.how_said == "says the same 0.27 ≥ 0.08"  # as before: nothing to name


def test_claim_said_names_itself() -> None:
    known = record("k", "unrelated words here", "cache compression 10x")
    weighed = said("cache compression 10x", known, same={"k"})
    assert weighed.decided_by is ClaimDecision.claim_said  # type: ignore[attr-defined]
    nothing = said("cache compression 10x", same={"k"})
    assert nothing.decided_by is ClaimDecision.claim_said  # type: ignore[attr-defined]


def test_the_cosine_decision_names_the_encoder_whose_passage_it_shows() -> None:
    claim = "KV cache compression keeps accuracy"
    known = record("k", "an unrelated title about GPUs")
    vector = ENCODER.encode([claim])[0]
    by_index = judge_claim(claim, vector, [], [known], CONFIG)
    assert by_index.decided_by is ClaimDecision.claim_known
    # The judge's cosine of the passage is far higher than the fake index model's: its pair is shown.
    by_judge = judge_claim(claim, vector, [], [known], JUDGED, judged=[PassageHit(known, 0, 0.99)])
    assert by_judge.decided_by is ClaimDecision.judge_claim_known and by_judge.cosine == 0.99


def test_a_restated_card_names_the_restatement() -> None:
    claim = "KV cache compression keeps accuracy"
    known = record("k", "an unrelated title about GPUs")
    restated = judge_claim(claim, ENCODER.encode([claim])[0], [], [known], CONFIG, restatement=True)
    assert restated.known and restated.restated and restated.decided_by is ClaimDecision.restated


def test_check_says_which_decision_decided_each_claim_in_json_and_text(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = str(ingest_rows(capsys, tmp_path, KNOWN))
    update = {
        "id": "u",
        "title": "C²KV cache reuse, full paper",
        "instance": "tom",
        "date": "2026-09-19",
        "arxiv_ids": ["2607.17715"],
        "claims": ["4x compression keeps NDCG@5 at 0.71", "8x compression drops NDCG@5 to 0.52"],
    }
    incoming = str(write_jsonl(tmp_path / "incoming.jsonl", [update]))
    claims = check_json(capsys, "check", incoming, "--index", index)[1]["items"][0]["claims"]
    decided = [c["decided_by"] for c in claims]
    assert decided and all(d in {d.value for d in ClaimDecision} for d in decided), decided
    main(["check", incoming, "--index", index])
    text = capsys.readouterr().out
    said = [line for line in text.splitlines() if "←" in line and "says the same" in line]
    assert said and all("form " in line for line in said), text
