"""A warm process's kept records across writes (``dedupe.kept_records``): a record whose row a
write left as it was is not built again, one whose row changed is (its text replaced, its ids
changed in place, its rowid given to another record after a delete), and a check after the
writes answers byte for byte as a fresh process's check of the same index."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.files import write_jsonl
from support.kept_rows import Rows, watch_builds
from test_judge import ITEM, KNOWN, judge_encoder, judged_models  # noqa: F401
from test_judge_claims_kept import _config, _kb

from fake_encoder import FakeEncoder
from kbsearch.dedupe.kept_records import KeptRecords, kept_records
from kbsearch.dedupe.rules import Embedded
from kbsearch.kb import KnowledgeBase
from kbsearch.kb.warm_checks import records_to_warm, warm_checks
from kbsearch.models import resolve_model
from kbsearch.records import Kind, Record

TGI_ID, OTHER_ID = "2609.01111", "2609.02222"
MORE = [
    {"id": "k-spill", "title": "SpillKV pages the KV cache to disk", "instance": "jay", "date": "2026-09-02",
     "text": "SpillKV moves cold KV cache pages to NVMe and keeps decode speed"},
    {"id": "k-lora", "title": "LoRA adapters served in one batch", "instance": "spark", "date": "2026-09-03",
     "text": "Punica batches requests for many LoRA adapters on one GPU"},
]  # fmt: skip
ACCEPTED = {"id": "a-prefix", "title": "Prefix caching shares KV pages across tenants", "date": "2026-09-19",
            "text": "A radix tree lets tenants share KV cache pages of a common prompt prefix"}  # fmt: skip
REUSING = {"id": "k-prefix", "title": "Prefix caching evicts KV pages per tenant", "date": "2026-09-20",
           "text": "Tenants share KV cache pages of a prompt prefix; eviction is per tenant"}  # fmt: skip
ITEMS = [
    ITEM,
    {"id": "i-tgi", "title": "TGI enters maintenance mode", "instance": "tom", "date": "2026-09-21",
     "arxiv_ids": [TGI_ID], "text": "Hugging Face TGI takes only bug fixes and sends users to vLLM or SGLang"},
    {"id": "i-prefix", "title": "Prefix caching across tenants", "instance": "tom", "date": "2026-09-21",
     "text": "Tenants share the KV cache pages of a common prompt prefix"},
    {"id": "i-spill", "title": "SpillKV pages KV cache to NVMe", "instance": "tom", "date": "2026-09-21",
     "text": "SpillKV keeps decode speed while cold KV pages move to NVMe"},
]  # fmt: skip


def _checks(kb: KnowledgeBase, folder: Path) -> list[str]:
    """Each item checked on its own, as ``check --json`` prints it."""
    config = _config()
    files = [write_jsonl(folder / "items" / f"{item['id']}.jsonl", [item]) for item in ITEMS]
    return [kb.check(str(file), config=config).model_dump_json() for file in files]


def _warm(kb: KnowledgeBase) -> list[int]:
    """The newest records not kept yet, built as ``serve --warm-records`` builds them."""
    generation, rowids = records_to_warm(kb, 100)
    assert warm_checks(kb, rowids, 100, generation)
    return rowids


def test_a_check_after_writes_answers_as_a_fresh_process_and_builds_only_what_they_changed(
    judged_models: Path,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    known = write_jsonl(tmp_path / "known.jsonl", [*KNOWN, *MORE])
    with _kb(tmp_path, judge_encoder()) as warm, _kb(tmp_path, judge_encoder()) as writer:
        writer.ingest([known])
        _warm(warm)
        _checks(warm, tmp_path)
        # An accept adds a record: the one record the warming builds next.
        accepted = writer.check_text(json.dumps(ACCEPTED), name="accept.jsonl", accept=True)
        assert accepted.accepted == ["a-prefix"]
        [new_rowid] = _warm(warm)
        assert warm.store.rowids_of(["a-prefix"]) == {"a-prefix": new_rowid}
        # Re-ingested: k-tri's text replaced; k-tgi about an arXiv id now, its text (and content hash) as it was.
        tri = {**KNOWN[0], "text": KNOWN[0]["text"] + ", and now serves 128k contexts"}
        tgi = {**KNOWN[1], "arxiv_ids": [OTHER_ID]}
        writer.ingest([write_jsonl(known, [tri, tgi, *MORE])])
        # The last record deleted: SQLite gives its rowid to the next record inserted.
        writer.remove(["a-prefix"])
        writer.ingest([write_jsonl(tmp_path / "reuse.jsonl", [REUSING])])
        assert writer.store.rowids_of(["k-prefix"]) == {"k-prefix": new_rowid}
        assert records_to_warm(warm, 100)[1] == [], "every rowid kept: the changed ones are found by a check"
        built = watch_builds(warm, monkeypatch)
        after = _checks(warm, tmp_path)
        changed = set(warm.store.rowids_of(["k-tri", "k-tgi", "k-prefix"]).values())
    spec = resolve_model("fake")
    with KnowledgeBase(tmp_path / "idx", spec, encoder=FakeEncoder(), judge=judge_encoder()) as fresh:
        assert _checks(fresh, tmp_path) == after
    assert set(built) == changed, "the records a write changed, and only they, are built again"


def test_a_kept_record_is_taken_while_its_row_is_the_same_and_its_row_read_once_a_generation() -> None:
    records = [Record(id=f"k{n}", kind=Kind.increment, title=f"KV cache {n}", text=f"paging {n}") for n in range(3)]
    kept = KeptRecords()
    kept.keep(
        {n: Embedded(r, FakeEncoder().encode(r.passages())) for n, r in enumerate(records)},
        {0: b"a", 1: b"b", 2: b"c"},
        4,
    )
    rows = Rows(generation=4, digests={0: b"a", 1: b"b", 2: b"c"})
    assert sorted(kept.take([0, 1, 2], rows)) == [0, 1, 2] and rows.asked == [], "at its generation: not read"
    rows = Rows(generation=5, digests={0: b"a", 1: b"changed"})  # 2: deleted
    assert sorted(kept.take([0, 1, 2], rows)) == [0] and rows.asked == [[0, 1, 2]]
    assert kept.held() == [0]
    assert list(kept.take([0], rows)) == [0] and rows.asked == [[0, 1, 2]], "found the same once a generation"


def test_a_write_keeps_the_kept_records_and_a_reindex_starts_them_afresh(
    judged_models: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    with _kb(tmp_path, judge_encoder()) as kb:
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", KNOWN)])
        with kb.store.snapshot():
            before = kept_records(kb.store)
        kb.ingest([write_jsonl(tmp_path / "more.jsonl", MORE)])
        with kb.store.snapshot():
            assert kept_records(kb.store) is before
        kb.reindex(force=True)  # may embed every text again: the kept vectors would be the old ones
        with kb.store.snapshot():
            assert kept_records(kb.store) is not before


def test_the_warming_after_a_write_builds_the_records_it_added_newest_first(
    judged_models: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    with _kb(tmp_path, judge_encoder()) as kb:
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", KNOWN)])
        generation, rowids = records_to_warm(kb, 100)
        assert warm_checks(kb, rowids[:1], 100, generation)  # the newest alone
        kb.ingest([write_jsonl(tmp_path / "more.jsonl", MORE)])
        assert not warm_checks(kb, rowids[1:], 100, generation), "planned before the write: planned again"
        added = sorted(kb.store.rowids_of([r["id"] for r in MORE]).values(), reverse=True)
        assert records_to_warm(kb, 100) == (kb.store.generation, [*added, *rowids[1:]])
        assert records_to_warm(kb, 3)[1] == added, "the newest records alone, as many as asked"
