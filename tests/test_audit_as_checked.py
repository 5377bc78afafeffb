"""audit confirms a join across languages as check reads the later record on its day.

Probe 43: audit joined a Chinese licence policy with an English model release at 0.91, reading
the pair against the later record's nearest English records alone, where check, reading its
candidates of both languages, set them apart at 0.52. Here the aligned form says "same" when a
pair aligns 0.25 above the later record's neighbourhood. cy/1 retells ann/1 in "Chinese"; four
Chinese notes share most of its words. Against ann/1 and bo/1 (the English records audit reads
for the pair) the pair stands well above its neighbourhood, against check's candidates (the
Chinese notes among them) not: check sets it apart, and so must audit and explain's audit view.
Audit takes check's decision of the pair, aligned or not (``audit_as_checked``).
"""

from __future__ import annotations

import datetime as dt
import math
from pathlib import Path

from support.files import write_jsonl
from test_alignment import TRANSLATIONS, _aligned_only, _raw
from test_judge import judge_encoder, judged_models  # noqa: F401

from fake_encoder import FakeEncoder, FakeTokenEncoder
from kbsearch.dedupe.audit import audit
from kbsearch.dedupe.audit_as_checked import CheckCandidates
from kbsearch.dedupe.audit_view import audit_match
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.features import NAME_COUNT_CAP
from kbsearch.dedupe.names import NameHolders
from kbsearch.dedupe.related import load_embedded, load_rows
from kbsearch.kb import KnowledgeBase
from kbsearch.kb.explaining_check import check_of
from kbsearch.models import resolve_model

NOTES = [
    {"id": "ann/1", "instance": "ann", "date": "2026-03-02", "text": "alpha beta gamma delta epsilon"},
    {"id": "bo/1", "instance": "bo", "date": "2026-03-02", "text": "zeta eta theta iota kappa"},
    # Chinese notes sharing four of cy/1's five words: they align with it better than ann/1 does
    # with anything but cy/1, as texts in one language align better with each other.
    {"id": "dee/1", "instance": "dee", "date": "2026-03-03", "text": "戊 丁 丙 乙 己"},
    {"id": "eve/1", "instance": "eve", "date": "2026-03-03", "text": "戊 丁 丙 甲 庚"},
    {"id": "fay/1", "instance": "fay", "date": "2026-03-03", "text": "戊 丁 乙 甲 辛"},
    {"id": "gus/1", "instance": "gus", "date": "2026-03-03", "text": "丁 丙 乙 甲 壬"},
    # ann/1 told again word for word in "Chinese".
    {"id": "cy/1", "instance": "cy", "date": "2026-03-04", "text": "戊 丁 丙 乙 甲"},
]


def _config(aligned_candidates: int = 6) -> DedupeConfig:
    """The unaligned form says 0.70 of every pair (a join audit confirms with the alignment); the
    aligned one says "same" when the pair aligns 0.25 above the neighbourhood's mean; audit reads
    a pair across languages against the later record's English nearest; check aligns six."""
    raw = _raw()
    summary = {**raw["same_item"], "weights": [0.0] * len(raw["same_item"]["weights"])}
    summary["bias"] = math.log(0.7 / 0.3)
    rule = {**_aligned_only(), "features": ["aligned_relative"], "means": [0.25], "fitted_on": "a test rule"}
    across = {"audit_other_language": 5, "aligned_candidates": aligned_candidates}
    return DedupeConfig.model_validate({**raw, "same_item": summary, "aligned_same_item": rule, **across})


def _kb(tmp_path: Path) -> KnowledgeBase:
    models = {"encoder": FakeEncoder(), "judge": judge_encoder(), "tokens": FakeTokenEncoder(TRANSLATIONS)}
    kb = KnowledgeBase(tmp_path / "idx", resolve_model("fake"), create=True, **models)
    kb.ingest([write_jsonl(tmp_path / f"{note['instance']}.jsonl", [note]) for note in NOTES])  # one writer a file
    return kb


def _cy(kb: KnowledgeBase, config: DedupeConfig, **reading: object) -> list[str]:
    """The reasons audit gives for cy/1 in its clusters."""
    tokens = FakeTokenEncoder(TRANSLATIONS)
    with kb.store.snapshot():
        result = audit(kb.store, kb.spec.name, config, tokens=lambda: tokens, **reading)  # type: ignore[arg-type]
    return [m.reason for c in result.clusters for m in c.repeats if m.id == "cy/1"]


def _joined(kb: KnowledgeBase, config: DedupeConfig, **reading: object) -> bool:
    return bool(_cy(kb, config, **reading))


def test_check_sets_the_pair_apart(judged_models: Path, tmp_path: Path) -> None:  # noqa: F811
    config = _config()
    with _kb(tmp_path) as kb:
        checked = kb.check(str(tmp_path / "cy.jsonl"), config=config, as_of=dt.date(2026, 3, 4))
    ann = next(m for m in checked.items[0].matches if m.id == "ann/1")
    assert not ann.same_item and ann.form == "aligned"


def test_audit_confirms_a_join_across_languages_as_check_reads_it(judged_models: Path, tmp_path: Path) -> None:  # noqa: F811
    config = _config()
    with _kb(tmp_path) as kb:
        # Read against the English nearest alone, the pair joins: the two answers this rule ends.
        assert _joined(kb, config)
        assert not _joined(kb, config, checker=lambda: check_of(kb, config, None))


def test_a_pair_check_decides_unaligned_past_its_cap_is_decided_so(judged_models: Path, tmp_path: Path) -> None:  # noqa: F811
    """Check aligns two: the Chinese notes nearest by the judge's cosine, and past them two near
    the line. ann/1 is not among them, and check joins it by the summary form (0.70). Aligned
    against a mixed neighbourhood, a true retelling past the cap would read below it (probe 35);
    aligned against the English alone, audit said 1.00 where check said 0.70: audit takes
    check's decision, unaligned."""
    config = _config(aligned_candidates=2)
    with _kb(tmp_path) as kb:
        checked = kb.check(str(tmp_path / "cy.jsonl"), config=config, as_of=dt.date(2026, 3, 4))
        ann = next(m for m in checked.items[0].matches if m.id == "ann/1")
        assert ann.same_item and ann.form == "summary"
        assert _cy(kb, config) == ["same item 1.00 ≥ 0.50 (aligned form)"]
        assert _cy(kb, config, checker=lambda: check_of(kb, config, None)) == ["same item 0.70 ≥ 0.50 (summary form)"]


def test_past_the_bound_a_pair_is_read_as_before(judged_models: Path, tmp_path: Path) -> None:  # noqa: F811
    """No candidate search past ``max_records``: audit's own reading stands, joined here."""
    config = _config()
    with _kb(tmp_path) as kb:
        spent = CheckCandidates(kb.store, lambda: check_of(kb, config, None), config, max_records=0)
        with kb.store.snapshot():
            a, b = (load_embedded(kb.store, [i], config.judge)[i] for i in ("cy/1", "ann/1"))
            assert spent.decided(a, b) is None
            assert spent.searched == 0


def test_a_pair_in_one_language_is_read_as_before(judged_models: Path, tmp_path: Path) -> None:  # noqa: F811
    config = _config()
    with _kb(tmp_path) as kb:
        made: list[int] = []

        def checker():  # type: ignore[no-untyped-def]
            made.append(1)
            return check_of(kb, config, None)

        reading = CheckCandidates(kb.store, checker, config)
        with kb.store.snapshot():
            a, b = (load_embedded(kb.store, [i], config.judge)[i] for i in ("cy/1", "dee/1"))
            assert reading.decided(a, b) is None
        assert not made  # no checker built, no search made


def test_explain_tells_audit_s_reading_as_audit_makes_it(judged_models: Path, tmp_path: Path) -> None:  # noqa: F811
    config = _config()
    with _kb(tmp_path) as kb, kb.store.snapshot():
        loaded = load_embedded(kb.store, ["cy/1", "ann/1"], config.judge)
        count = NameHolders(kb.store, NAME_COUNT_CAP).count
        load = lambda rowids: list(load_rows(kb.store, rowids, config.judge).values())  # noqa: E731
        tokens = FakeTokenEncoder(TRANSLATIONS)
        checker = lambda: check_of(kb, config, None)  # noqa: E731
        then, a_later = audit_match(kb.store, loaded["cy/1"], loaded["ann/1"], config, count, load, lambda: tokens)
        now, _ = audit_match(kb.store, loaded["cy/1"], loaded["ann/1"], config, count, load, lambda: tokens, checker)
    assert a_later and then.same_item  # the English nearest alone
    assert not now.same_item and "aligned" in now.form  # check's reading, as audit makes it
