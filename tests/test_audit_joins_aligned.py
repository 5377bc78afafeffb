"""audit joins no pair by an unaligned form that the aligned form, check's, sets apart.

Probe 43: check set a lab's licence policy apart from its reranker release at 0.52 < 0.55 with the
token alignment, and audit joined the two at 0.80 ≥ 0.45 by their key points without it, 0.35 above
its line and so past the band of pairs audit read aligned, and flagged the policy as "claimed new
but seen before". Here the unaligned forms say "same item" at 0.95 of every pair, 0.45 above
their line, and the aligned forms say "same" exactly when the tokens align 0.2 above the later
record's neighbourhood (``test_audit_align``): other words stand apart, a word-for-word retelling
in another language is joined.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest
from test_alignment import TRANSLATIONS
from test_audit_align import _config, _kb, _key_point_store, _key_points_config
from test_judge import judge_encoder, judged_models  # noqa: F401

from fake_encoder import FakeTokenEncoder
from kbsearch.dedupe import audit as audit_module
from kbsearch.dedupe.audit import audit
from kbsearch.dedupe.audit_align import BAND, PairAligner
from kbsearch.dedupe.audit_results import AuditResult

FAR = 0.95
"""The unaligned forms' probability of every pair: past ``BAND`` above their line of 0.5."""


def _clusters(result: AuditResult) -> dict[str, list[tuple[str, str]]]:
    return {c.first_seen.id: [(m.id, m.reason or "") for m in c.repeats] for c in result.clusters}


def test_a_join_far_above_the_line_is_confirmed_by_the_alignment(judged_models: Path, tmp_path: Path) -> None:  # noqa: F811
    assert FAR - 0.5 > BAND
    with _kb(tmp_path) as kb:
        result = kb.audit(config=_config(FAR))
    # Unaligned, all three were one cluster at 0.95 ≥ 0.50; aligned, bo/1 (other words) stands apart.
    assert _clusters(result) == {"ann/1": [("cy/1", "same item 1.00 ≥ 0.50 (aligned form)")]}


def test_explain_and_audit_give_one_answer_for_the_pair(judged_models: Path, tmp_path: Path) -> None:  # noqa: F811
    """explain reads the pair as check does (aligned: apart) and tells audit's view: it no longer
    says audit joins what check sets apart."""
    with _kb(tmp_path) as kb:
        told = kb.explain("bo/1", "ann/1", config=_config(FAR))
    assert not told.match.same_item and told.match.form == "aligned"
    assert not any("audit judges" in note for note in told.notes), told.notes


def test_a_key_point_join_far_above_the_line_is_confirmed_by_the_alignment(
    judged_models: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    """Probe 43's form: the pair read again by its key points, joined unaligned far above the line."""
    store = _key_point_store(tmp_path)
    tokens = FakeTokenEncoder(TRANSLATIONS)
    result = audit(store, "fake", _key_points_config(FAR), tokens=lambda: tokens)
    assert _clusters(result) == {"ann/1": [("cy/1", "same item 1.00 ≥ 0.50 (key points, aligned form)")]}


def test_past_the_bound_on_token_reading_a_join_says_it_is_unaligned(
    judged_models: Path,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An audit reads the tokens of at most ``MAX_TEXTS`` texts: past it, a join stays as the
    unaligned form decided it, and its reason and audit's timings say so."""
    monkeypatch.setattr(audit_module, "PairAligner", partial(PairAligner, max_texts=2))  # every pair reads 3 texts
    notes: list[str] = []
    with _kb(tmp_path) as kb:
        tokens = FakeTokenEncoder(TRANSLATIONS)
        phase = lambda name, note: notes.append(note)  # noqa: E731
        result = audit(kb.store, "fake", _config(FAR), phase=phase, tokens=lambda: tokens)
    unaligned = "same item 0.95 ≥ 0.50 (summary form, without check's token alignment)"
    assert _clusters(result) == {"ann/1": [("bo/1", unaligned), ("cy/1", unaligned)]}
    assert any("0 joins or pairs near the line decided with the token alignment" in n for n in notes), notes
    assert any("3 joins kept without it" in n for n in notes), notes
