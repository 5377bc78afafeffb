"""`kbsearch remove`, `similar` and `explain` (issue 13, item 11)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from conftest import FAKE_DEDUPE, fake_config
from filelock import FileLock
from support.cli import run
from support.forms import forced_forms

from fake_encoder import FakeEncoder
from kbsearch.dedupe.features import Neighbourhood
from kbsearch.dedupe.findings import rule_findings
from kbsearch.dedupe.related import load_embedded
from kbsearch.dedupe.rules import compare
from kbsearch.kb import LOCK_NAME, KnowledgeBase
from kbsearch.kb.doctor import examine
from kbsearch.models import ModelSpec

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
ROWS = [
    {"id": "tri-jay", "title": "TriAttention frequency-domain KV cache compression", "text": "10.7x less KV memory",
     "instance": "jay", "date": "2026-09-17", "arxiv_ids": []},
    {"id": "tri-spark", "title": "TriAttention trigonometric KV cache compression",
     "text": "roughly 10x less KV memory", "instance": "spark", "date": "2026-09-18"},
    {"id": "card", "kind": "paper_card", "title": "When2Think difficulty-aware length control",
     "text": "arXiv:2609.19671 length control for hybrid reasoning", "date": "2026-09-19"},
    {"id": "cites", "title": "Reasoning budget survey", "text": "related work: When2Think",
     "cited_ids": ["2609.19671"], "instance": "tom", "date": "2026-09-20"},
    {"id": "other", "title": "SGLang suffix decoding", "text": "训练无关的推测解码", "instance": "spark",
     "date": "2026-09-18"},
]  # fmt: skip


@pytest.fixture
def index(fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ROWS), encoding="utf-8")
    folder = str(tmp_path / "idx")
    assert run(capsys, "ingest", str(source), "--index", folder)[0] == 0
    return folder


def state(index: str) -> tuple[list[str], int, int]:
    with KnowledgeBase.open(index) as kb:
        stats = kb.stats()
        return sorted(r.id for r in kb.listing().records), stats.generation, stats.passages


def test_remove_deletes_records_vectors_and_cache_in_one_step(index: str, capsys: pytest.CaptureFixture[str]) -> None:
    ids, generation, passages = state(index)
    code, out, _ = run(capsys, "remove", "tri-spark", "other", "--index", index, "--json")
    assert code == 0
    removal = json.loads(out)
    assert removal["removed"] == ["tri-spark", "other"] and removal["records"] == 3
    after_ids, after_generation, after_passages = state(index)
    assert after_ids == [i for i in ids if i not in {"tri-spark", "other"}]
    assert after_generation == generation + 1 and after_passages < passages
    report = examine(Path(index))
    assert report.healthy, report.findings
    with KnowledgeBase.open(index) as kb:
        assert kb.store.vector_index.count == after_passages  # the cache lost the removed passages
        hits = kb.search("TriAttention trigonometric suffix decoding", k=10)
        assert {h.id for h in hits.results}.isdisjoint({"tri-spark", "other"})


def test_remove_with_an_unknown_id_changes_nothing(index: str, capsys: pytest.CaptureFixture[str]) -> None:
    before = state(index)
    cache = (Path(index) / "vectors.faiss").read_bytes()
    code, out, err = run(capsys, "remove", "tri-spark", "no-such-id", "--index", index)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "'no-such-id'" in err and "nothing was removed" in err
    assert state(index) == before
    assert (Path(index) / "vectors.faiss").read_bytes() == cache


def test_remove_waits_for_the_writer_lock(
    index: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KBSEARCH_LOCK_TIMEOUT", "0.2")
    before = state(index)
    with FileLock(str(Path(index) / LOCK_NAME)):
        code, _, err = run(capsys, "remove", "tri-spark", "--index", index)
    assert code == 2 and "writing to" in err
    assert state(index) == before


def test_similar_judges_the_nearest_records(index: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "similar", "tri-jay", "--index", index, "--json")
    assert code == 0
    found = json.loads(out)
    assert found["record"]["id"] == "tri-jay"
    ids = [m["id"] for m in found["matches"]]
    assert "tri-jay" not in ids
    first = found["matches"][0]
    assert first["id"] == "tri-spark" and first["same_item"] is True
    assert first["rule"] == "learned" and first["probability"] >= first["threshold"]
    assert all(not m["same_item"] for m in found["matches"][1:])
    by_id = json.loads(run(capsys, "similar", "card", "--index", index, "--json")[1])
    citing = next(m for m in by_id["matches"] if m["id"] == "cites")
    assert citing["same_item"] is False and citing["cited_ids"] == ["2609.19671"]
    only = json.loads(
        run(capsys, "similar", "tri-jay", "--instance", "spark", "-k", "1", "--index", index, "--json")[1]
    )
    assert [m["id"] for m in only["matches"]] == ["tri-spark"]
    code, out, _ = run(capsys, "similar", "tri-jay", "--index", index)
    assert code == 0 and "≡" in out and "tri-spark" in out
    code, out, _ = run(capsys, "similar", "tri-jay", "--instance", "spark", "-k", "1", "--index", index)
    assert out.splitlines()[-1].startswith("(1 record, 1 the same item; model ")


def test_similar_and_explain_refuse_an_unknown_id(index: str, capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["similar", "nope"], ["explain", "tri-jay", "nope"]):
        code, out, err = run(capsys, *argv, "--index", index)
        assert code == 2 and out == "" and "'nope'" in err and "list --json" in err


def test_explain_lists_every_rule_and_the_deciding_one(index: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "explain", "card", "cites", "--index", index, "--json")
    assert code == 0
    explained = json.loads(out)
    assert explained["match"]["same_item"] is False
    rules = explained["rules"]
    assert [r["rule"] for r in rules] == [
        "arxiv ids",
        "doc section",
        "advisory ids",
        "identical text",
        "paper-card titles",
        "named systems",
        "learned",
    ]
    assert rules[0]["says"] is False and "2609.19671" in rules[0]["detail"]
    code, out, _ = run(capsys, "explain", "tri-jay", "tri-spark", "--index", index)
    assert code == 0 and "the same item" in out and "→ learned" in out


def test_the_first_rule_with_a_say_is_compares_judgement() -> None:
    """explain's rule list must agree with compare() on every pair of the example corpus."""
    from kbsearch.dedupe.rules import Embedded
    from kbsearch.ingest import IngestReport, read_inputs

    encoder = FakeEncoder()
    parsed = read_inputs([EXAMPLES], IngestReport(model="fake"))
    records = [r for p in parsed for r in p.iter_records()]
    assert len(records) > 40

    embedded = [Embedded(r, encoder.encode(r.passages())) for r in records]
    config = fake_config()
    count = lambda name: 1 if name in {"triattention", "c²kv", "when2think"} else 50  # noqa: E731
    checked = 0
    for a, b in itertools.combinations(embedded, 2):
        match = compare(a, b, config, Neighbourhood(0.1), count)
        findings = rule_findings(a, b, config, count, Neighbourhood(0.1))
        first = next(f for f in findings if f.says is not None)
        assert first.says == match.same_item, (a.record.id, b.record.id, findings, match.reasons)
        checked += 1
    assert checked > 900


def test_load_embedded_reads_the_stored_vectors(index: str) -> None:
    spec = ModelSpec(name="fake", source="python:fake_encoder:make", dim=64, dedupe=str(FAKE_DEDUPE))
    with KnowledgeBase(Path(index), spec, encoder=FakeEncoder()) as kb:
        loaded = load_embedded(kb.store, ["tri-jay"], None)["tri-jay"]
        fresh = FakeEncoder().encode(loaded.record.passages())
        assert loaded.vectors.shape == fresh.shape
        assert abs(float(loaded.vectors[0] @ fresh[0]) - 1.0) < 1e-5


def test_ingest_loads_the_model_before_taking_the_writer_lock(
    index: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kbsearch.errors import WriterBusy
    from kbsearch.models import resolve_model

    source = tmp_path / "new.jsonl"
    source.write_text(json.dumps({"id": "new", "title": "Mooncake KV transfer"}) + "\n", encoding="utf-8")
    unchanged = tmp_path / "again.jsonl"
    unchanged.write_text(json.dumps(ROWS[0]) + "\n", encoding="utf-8")
    with FileLock(str(Path(index) / LOCK_NAME)):
        for path, loads in ((unchanged, False), (source, True)):
            kb = KnowledgeBase(Path(index), resolve_model(None), lock_timeout=0.1)
            with pytest.raises(WriterBusy):
                kb.ingest([path])
            assert (kb._encoder is not None) is loads  # a writer waits for the write, not for a model load
            kb.close()


def test_explain_says_when_check_reads_key_points_the_stored_record_does_not_keep(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """check embeds an incoming item's key points; a short record keeps its one key point inside
    its text, so explain read it by another form and printed another probability and threshold
    than check, with nothing saying why. explain now embeds A as check embeds it (probe 26), so
    it reads A's key points as check does: the same form, nothing to note."""
    rows = [
        {"id": "short", "title": "DeepGEMM", "claims": ["grouped FP8 GEMM for the MoE experts on Hopper"]},
        {"id": "split", "title": "Marlin FP8 kernels", "text": "Marlin FP8 kernels merged into vLLM for Ada GPUs, "
         "with a long description of what they do and where they run",
         "claims": ["FP8 weights on Ada", "merged upstream"]},
    ]  # fmt: skip
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    folder = str(tmp_path / "idx")
    assert run(capsys, "ingest", str(source), "--index", folder)[0] == 0
    code, out, _ = run(capsys, "explain", "short", "split", "--index", folder)
    assert code == 0 and "learned form read: key points (A's key points" in out
    assert "note: A's key points are stored inside its text" not in out
    code, out, _ = run(capsys, "explain", "split", "short", "--index", folder)
    assert code == 0 and "learned form read: key points" in out and "note:" not in out


def test_explain_says_nothing_of_audit_when_audit_reads_the_key_points_too(fake_models: Path, tmp_path: Path) -> None:
    """Probe, 5 December: audit clustered two records at 0.70 ≥ 0.30 that explain called
    different items (0.00 < 0.45): explain reads A's key points, audit the whole texts alone,
    and nothing said so; explain then noted audit's reading. Probe 23: audit now reads every pair
    its summary form joins again by the key points (``key_points.read_again``), as check does,
    so the two agree and there is nothing to note."""
    from kbsearch.dedupe.related import explain

    rows = [
        {  # A, the later, has the key points: audit reads them, as explain does
            "id": "a",
            "date": "2026-09-02",
            "title": "Marlin FP8 kernels",
            "text": "Marlin FP8 kernels merged into vLLM for Ada GPUs, "
            "with a long description of what they do and where they run",
            "claims": ["FP8 weights on Ada", "merged upstream"],
        },
        {
            "id": "b",
            "date": "2026-09-01",
            "title": "Marlin FP8 on Ada",
            "text": "FP8 Marlin kernels for Ada GPUs in vLLM",
        },
    ]  # fmt: skip  (A, the later, has the key points: audit reads them as explain does)
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    config, forced = fake_config(), forced_forms(summary_same=True)
    with KnowledgeBase(tmp_path / "idx", ModelSpec(name="fake", source="python:fake_encoder:make"), create=True,
                       encoder=FakeEncoder()) as kb:  # fmt: skip
        kb.ingest([source])
        told = explain(kb.store, "a", "b", forced)
        same_forms = explain(kb.store, "a", "b", config)
    assert not told.match.same_item and told.match.form == "key points"
    assert not any("audit" in n for n in told.notes)
    assert not any("audit" in n for n in same_forms.notes)  # one form, one reading: nothing to say


def test_similar_lists_the_same_item_first_then_by_the_cosine_it_prints(
    index: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new user's probe read cosines 0.36, 0.43, 0.40: the list was ordered by the learned
    probability, which a line decided by a rule does not print. Here the probabilities run
    against the cosines, as they may."""
    import kbsearch.dedupe.related as related

    real = related.compare_all

    def against(*args, **kwargs):  # type: ignore[no-untyped-def]
        return [m.model_copy(update={"probability": 1 - m.score}) for m in real(*args, **kwargs)]

    monkeypatch.setattr(related, "compare_all", against)
    matches = json.loads(run(capsys, "similar", "tri-jay", "--index", index, "--json")[1])["matches"]
    same = [m["same_item"] for m in matches]
    assert same == sorted(same, reverse=True)
    for group in (True, False):
        scores = [m["score"] for m in matches if m["same_item"] is group]
        assert scores == sorted(scores, reverse=True), scores
    assert len([m for m in matches if not m["same_item"]]) >= 2
    out = run(capsys, "similar", "tri-jay", "--index", index)[1]
    assert "matches (≡ same item, first; then by cosine):" in out


def test_similar_lists_every_record_sharing_an_arxiv_id_beyond_k(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A new user's probe: a living-doc section listing the paper was 18th by cosine, cut from
    the default 10, though ``similar --help`` promises the records sharing an arXiv id."""
    section = {
        "id": "doc/reasoning#§5.1",
        "kind": "doc_section",
        "title": "训练无关的推测解码",
        "text": "SGLang suffix decoding 推测解码; 2609.19671, 2609.00001",
        "arxiv_ids": ["2609.19671", "2609.00001"],
        "topic": "reasoning",
        "section": "§5.1",
        "date": "2026-09-21",
    }
    nearer = {"id": "near", "title": "When2Think difficulty-aware length control",
              "text": "length control for hybrid reasoning", "instance": "tom", "date": "2026-09-21"}  # fmt: skip
    source = tmp_path / "doc.jsonl"
    source.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in (section, nearer)), encoding="utf-8")
    assert run(capsys, "ingest", str(source), "--index", index)[0] == 0
    found = json.loads(run(capsys, "similar", "card", "-k", "1", "--index", index, "--json")[1])
    ids = [m["id"] for m in found["matches"]]
    assert len(ids) == 2 and ids[1] == "doc/reasoning#§5.1", ids
    assert found["matches"][1]["shared_ids"] == ["2609.19671"]
    out = run(capsys, "similar", "card", "-k", "1", "--index", index)[1]
    assert "doc/reasoning#§5.1  shares 2609.19671" in out


def test_explain_tells_how_audit_judged_the_pair_whichever_record_is_a(fake_models: Path, tmp_path: Path) -> None:
    """Probe 37: explain said audit read a pair as "different items (0.00)" that audit had joined
    at 0.99 by their key points: explain modelled audit with a copy of its reading (A against B,
    in check's neighbourhood). It now runs audit's own judgement (``key_points.audit_judgement``):
    the later record against the earlier, read again by the later one's key points when the two
    share a rare name. Here A is the earlier record, with no key points of its own."""
    from kbsearch.dedupe.audit import audit
    from kbsearch.dedupe.related import explain

    rows = [
        {"id": "early", "date": "2026-09-01", "title": "TernKV paged cache lands",
         "text": "TernKV ships a paged KV cache for long prompts"},
        {"id": "late", "date": "2026-09-03", "title": "TernKV paged cache, measured",
         "text": "TernKV paged KV cache measured on long prompts",
         "claims": ["TernKV halves cache memory at 128k tokens", "TernKV keeps decode speed"]},
    ]  # fmt: skip
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    forced = forced_forms(summary_same=False)  # the summary form parts them, the key-point form joins them
    with KnowledgeBase(tmp_path / "idx", ModelSpec(name="fake", source="python:fake_encoder:make"), create=True,
                       encoder=FakeEncoder()) as kb:  # fmt: skip
        kb.ingest([source])
        joined = [c for c in audit(kb.store, "fake", forced).clusters if {m.id for m in c.repeats} == {"late"}]
        told = explain(kb.store, "early", "late", forced)
        reverse = explain(kb.store, "late", "early", forced)
    assert joined and joined[0].first_seen.id == "early"  # audit read the pair again and joined it
    assert not told.match.same_item  # A has no key points: explain reads it by its summary form
    [note] = [n for n in told.notes if "audit" in n]
    assert "audit judges B, the later," in note and "these are the same item" in note and "key points form" in note
    assert reverse.match.same_item and not any("audit" in n for n in reverse.notes)
