"""audit decides a pair near its line with the judge's token alignment, as check decides it.

Probe 39: audit joined a third party's cost study with a product launch at 0.71 ≥ 0.45 by
a form without the alignment, where check set them apart at 0.39 < 0.55 with it. Here the
unaligned form says "same item" at 0.70 whatever it reads (0.20 above its line), and the
aligned form says "same" exactly when the tokens align at 0.9 or more: two notes of other
words are set apart, a retelling of the same words in another order joined."""

from __future__ import annotations

import math
from pathlib import Path

from support.files import write_jsonl
from support.forms import key_point_form
from test_alignment import TRANSLATIONS, _aligned_only, _raw
from test_judge import judge_encoder, judged_models  # noqa: F401

from fake_encoder import FakeEncoder, FakeTokenEncoder
from kbsearch.dedupe.audit_align import BAND, PairAligner
from kbsearch.dedupe.audit_view import audit_match
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.features import NAME_COUNT_CAP, Neighbourhood
from kbsearch.dedupe.names import NameHolders
from kbsearch.dedupe.related import load_embedded, load_rows
from kbsearch.dedupe.results import Match, Rule
from kbsearch.dedupe.rules import compare
from kbsearch.ingest import Judge, ingest_records
from kbsearch.kb import KnowledgeBase
from kbsearch.models import resolve_model
from kbsearch.records import Kind, Record
from kbsearch.store import ChangeSet, Store

NOTES = [
    {"id": "ann/1", "instance": "ann", "date": "2026-03-02", "text": "alpha beta gamma delta epsilon"},
    # Other words: the aligned form sets it apart from ann/1.
    {"id": "bo/1", "instance": "bo", "date": "2026-03-03", "text": "zeta eta theta iota kappa"},
    # ann/1 told again in "another language" (word for word): the tokens align.
    {"id": "cy/1", "instance": "cy", "date": "2026-03-04", "text": "戊 丁 丙 乙 甲"},
]


def _above_neighbours() -> dict:
    """An aligned decision that says "same" exactly when the pair aligns 0.2 or more above the
    later record's neighbourhood (``aligned_relative``): read without the neighbourhood's
    alignments, any pair aligning at 0.2 would pass."""
    rule = {**_aligned_only(), "features": ["aligned_relative"], "means": [0.2]}
    return {**rule, "fitted_on": "not fitted: a test rule, aligned_relative >= 0.2"}


def _config(probability: float) -> DedupeConfig:
    """The unaligned form says ``probability`` of every pair; the aligned one reads the alignment
    (other words align at 0.32 here, the same words at 1.00)."""
    raw = _raw()
    summary = {**raw["same_item"], "weights": [0.0] * len(raw["same_item"]["weights"])}
    summary["bias"] = math.log(probability / (1 - probability))
    return DedupeConfig.model_validate({**raw, "same_item": summary, "aligned_same_item": _above_neighbours()})


def _kb(tmp_path: Path) -> KnowledgeBase:
    models = {"encoder": FakeEncoder(), "judge": judge_encoder(), "tokens": FakeTokenEncoder(TRANSLATIONS)}
    kb = KnowledgeBase(tmp_path / "idx", resolve_model("fake"), create=True, **models)
    kb.ingest([write_jsonl(tmp_path / "notes.jsonl", NOTES)])
    return kb


def test_a_pair_the_alignment_sets_apart_is_not_clustered(judged_models: Path, tmp_path: Path) -> None:  # noqa: F811
    with _kb(tmp_path) as kb:
        result = kb.audit(config=_config(0.70))
        clusters = {c.first_seen.id: [(m.id, m.reason) for m in c.repeats] for c in result.clusters}
    # Unaligned, all three were one cluster at 0.70 ≥ 0.50; aligned, bo/1 stands apart.
    assert clusters == {"ann/1": [("cy/1", "same item 1.00 ≥ 0.50 (aligned form)")]}


def test_explain_tells_audit_s_aligned_judgement(judged_models: Path, tmp_path: Path) -> None:  # noqa: F811
    """check and audit now agree on the pair, so explain has no "audit judges otherwise" note. The
    records check's reading gave token vectors are read as audit reads them (none, but near the
    line with the neighbourhood's alignment too): read with theirs and no neighbourhood, the
    pair aligned 0.32 above nothing, and explain said audit joined it."""
    with _kb(tmp_path) as kb:
        told = kb.explain("bo/1", "ann/1", config=_config(0.70))
    assert not told.match.same_item and told.match.form == "aligned"
    assert not any("audit judges" in note for note in told.notes), told.notes


def test_only_a_learned_join_or_a_pair_set_apart_near_the_line_is_read_again(judged_models: Path) -> None:  # noqa: F811
    config = _config(0.70)
    aligner = PairAligner(config, FakeTokenEncoder)

    def match(probability: float, rule: Rule = Rule.learned, features: list[str] | None = None) -> Match:
        said = dict.fromkeys(features or ["cosine"], 0.0)
        fields = {"kind": Kind.increment, "title": "", "instance": None, "date": None, "score": 0.0, "lexical": 0.0}
        same = probability >= 0.5
        return Match(id="x", same_item=same, probability=probability, threshold=0.5, rule=rule, features=said, **fields)

    assert aligner.decides_again(match(0.5 + BAND - 0.01)) and aligner.decides_again(match(0.5 - BAND + 0.01))
    assert aligner.decides_again(match(0.5 + BAND + 0.01))  # far above: a join is confirmed all the same
    assert not aligner.decides_again(match(0.5 - BAND - 0.01))  # far below: a clear non-repeat costs nothing
    assert not aligner.decides_again(match(0.7, Rule.identical_text))  # exact evidence stands
    assert not aligner.decides_again(match(0.7, Rule.shared_id))
    assert not aligner.decides_again(match(0.7, features=["aligned"]))  # aligned already
    assert not PairAligner(config.model_copy(update={"aligned_same_item": None}), FakeTokenEncoder).decides_again(
        match(0.7)
    )


def _key_points_config(probability: float) -> DedupeConfig:
    """``_config``, its key-point forms alike: unaligned ``probability``, aligned ``_above_neighbours``."""
    config = _config(probability)
    key_points = key_point_form(config.same_item)
    aligned = config.aligned_same_item
    return config.model_copy(update={"claims_same_item": key_points, "aligned_claims_same_item": aligned})


def _key_point_store(tmp_path: Path) -> Store:
    """NOTES as items with key points (their first two words), so audit reads them by the key-point forms."""
    records = [
        Record(id=n["id"], kind=Kind.increment, date=n["date"], title="", text=n["text"], instance=n["instance"],
               claims=n["text"].split()[:2])
        for n in NOTES
    ]  # fmt: skip
    store = Store.open(tmp_path / "idx", create=True)
    files = {r.id: f"/src/{r.id}.md" for r in records}
    judge = Judge("fakejudge", judge_encoder)
    ingest_records(store, ChangeSet(upserts=records, files=files), model="fake", load_encoder=FakeEncoder, judge=judge)
    return store


def test_explain_reads_audit_s_pair_without_the_tokens_check_gave_it(judged_models: Path, tmp_path: Path) -> None:  # noqa: F811
    """explain hands audit's view the records as check's reading built them, token vectors and
    all. Read with theirs and no neighbourhood alignment (probe 39), the pair by its key points
    aligned 0.32 above nothing, and explain said audit joined at 1.00 a pair audit set apart."""
    config = _key_points_config(0.70)
    tokens = FakeTokenEncoder(TRANSLATIONS)
    store = _key_point_store(tmp_path)
    loaded = load_embedded(store, ["bo/1", "ann/1"], config.judge)
    for record in loaded.values():
        record.judge_tokens = tokens.encode_tokens([record.whole_text])[0]
    load = lambda rowids: list(load_rows(store, rowids, config.judge).values())  # noqa: E731
    holders = NameHolders(store, NAME_COUNT_CAP).count
    by_audit, a_later = audit_match(store, loaded["bo/1"], loaded["ann/1"], config, holders, load, lambda: tokens)
    assert a_later and not by_audit.same_item and by_audit.form == "key points, aligned"


def test_an_audit_reads_the_tokens_of_a_bounded_number_of_texts(judged_models: Path, tmp_path: Path) -> None:  # noqa: F811
    """Past ``max_texts`` a pair near the line stays unaligned: a million-record audit's cost is bounded."""
    with _kb(tmp_path) as kb:
        config = _config(0.70)
        records = {n["id"]: e for n in NOTES for e in [load_embedded(kb.store, [n["id"]], config.judge)[n["id"]]]}
        pair = (records["bo/1"], records["ann/1"])
        summary = compare(*pair, config, Neighbourhood(), lambda name: 0)  # no tokens: the unaligned form
        assert summary.same_item and summary.form == "summary"
        tight = PairAligner(config, lambda: FakeTokenEncoder(TRANSLATIONS), max_texts=2)
        no_near = lambda: [records["cy/1"]]  # noqa: E731
        assert tight.judge(pair, summary, Neighbourhood(), no_near, lambda name: 0) is None  # three texts: past it
        room = PairAligner(config, lambda: FakeTokenEncoder(TRANSLATIONS), max_texts=3)
        aligned = room.judge(pair, summary, Neighbourhood(), no_near, lambda name: 0)
        assert aligned is not None and not aligned.same_item and room.aligned == 1
