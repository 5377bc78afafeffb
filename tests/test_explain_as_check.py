"""``explain`` reads a pair by the form ``check`` reads it (probe 26: check decided a pair
same by the aligned key-point form, 0.79 ≥ 0.55, while ``explain`` of the stored pair read
the summary form, 0.16 < 0.45, with nothing saying check judged otherwise; its FILE#N form
headed "the same item 0.65" over a deciding line "different 0.28"; ``similar`` never said
which form it scores). With the fake encoder and fake token vectors (one per word)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from support.files import write_jsonl
from test_alignment import ITEM, KNOWN, TRANSLATIONS, _aligned_only, _raw
from test_judge import judge_encoder, judged_models  # noqa: F401

from fake_encoder import FakeEncoder, FakeTokenEncoder
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.results import Match
from kbsearch.kb import KnowledgeBase
from kbsearch.kb.explaining_check import as_check_decided
from kbsearch.models import resolve_model
from kbsearch.records import Kind
from kbsearch.render.dedupe import explanation_text, neighbours_text


def _kb(tmp_path: Path) -> KnowledgeBase:
    encoders = {"encoder": FakeEncoder(), "judge": judge_encoder(), "tokens": FakeTokenEncoder(TRANSLATIONS)}
    return KnowledgeBase(tmp_path / "idx", resolve_model("fake"), create=True, **encoders)


def _learned(explained) -> bool | None:  # type: ignore[no-untyped-def]
    return next(f.says for f in explained.rules if f.rule == "learned")


def test_explain_of_a_stored_pair_reads_the_aligned_form_check_reads(judged_models: Path, tmp_path: Path) -> None:  # noqa: F811
    config = DedupeConfig.model_validate({**_raw(), "aligned_same_item": _aligned_only()})
    with _kb(tmp_path) as kb:
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", KNOWN)])
        item = str(write_jsonl(tmp_path / "item.jsonl", [ITEM]))
        checked = {m.id: m for m in kb.check(item, config=config).items[0].matches}
        kb.ingest([Path(item)])
        explained = kb.explain("i-des", "k-des", config=config)
        similar = kb.similar("k-des", config=config)
    assert checked["k-des"].same_item and "aligned" in checked["k-des"].features
    # Read from the stored vectors alone, the pair was "different items" by the summary form.
    assert explained.match.same_item and _learned(explained) is True
    assert explained.match.form == "aligned" and "token alignment" in explained.form_why
    assert not any("decided otherwise" in note for note in explained.notes)
    text = explanation_text(explained)
    assert "the same item: same item" in text and "learned form read: aligned (" in text
    assert "scores: the summary form only" in neighbours_text(similar)


def test_explain_of_a_file_item_heads_with_what_its_deciding_rule_says(judged_models: Path, tmp_path: Path) -> None:  # noqa: F811
    config = DedupeConfig.model_validate({**_raw(), "aligned_same_item": _aligned_only()})
    with _kb(tmp_path) as kb:
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", KNOWN)])
        item = str(write_jsonl(tmp_path / "item.jsonl", [ITEM]))
        checked = {m.id: m for m in kb.check(item, config=config).items[0].matches}
        explained = kb.explain(item, "k-des", config=config, file_item=1)
    assert explained.match.same_item is True and _learned(explained) is True
    assert explained.match.probability == checked["k-des"].probability


def _match(same: bool, probability: float) -> Match:
    return Match(
        id="b",
        kind=Kind.increment,
        title="b",
        instance="jay",
        date=dt.date(2026, 11, 16),
        score=0.4,
        lexical=0.0,
        probability=probability,
        threshold=0.55,
        same_item=same,
        rule="learned",
        reasons=[f"same item {probability:.2f} {'≥' if same else '<'} 0.55"],
        features={"aligned": 0.8, "claims_covered": 0.5},
    )


def test_a_check_that_decided_the_pair_otherwise_is_said_in_one_line() -> None:
    how = "re-run on A as it came in"
    assert as_check_decided(_match(False, 0.30), _match(False, 0.20), how) == []
    [line] = as_check_decided(_match(False, 0.30), _match(True, 0.79), how)
    assert line.startswith("check decided otherwise (re-run on A as it came in): the same item")
    assert "(same item 0.79 ≥ 0.55; key points, aligned form)" in line
    [line] = as_check_decided(_match(False, 0.30), None, how)
    assert "did not compare B" in line
