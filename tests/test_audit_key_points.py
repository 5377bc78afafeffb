"""audit reads again by their key points the pairs sharing a rare name, as check reads them.

Probe 16 (a month of briefings): ``check`` called eight updates ("PloverPrism update: B200
numbers and an SGLang backend") UPDATE of the records that first told of each system, by
its key-point form (0.67 ≥ 0.45 for PloverPrism), but audit built every record from its
whole-record vector alone and decided by the summary form (0.00 < 0.30): it clustered five
of the eight, and not "MarlSpire adds a vLLM plugin" with "MarlSpire — prompt n-gram
drafting" (1.00 ≥ 0.45 to check and ``similar``). ``explain`` noted that audit may cluster
them otherwise. Here the summary form says "different" and the key-point form "same",
whatever they read, so only the form audit reads decides."""

from __future__ import annotations

from pathlib import Path

from support.forms import forced_forms

from fake_encoder import FakeEncoder
from kbsearch.dedupe.audit import audit
from kbsearch.dedupe.key_points import unaligned_reason
from kbsearch.dedupe.related import explain
from kbsearch.ingest import ingest_records
from kbsearch.records import Kind, Record
from kbsearch.store import ChangeSet, Store

FIRST = "PloverPrism schedules collectives around stragglers; 1.3x faster all-reduce on 64 GPUs."
UPDATE = "PloverPrism update: it now runs on B200 and ships an SGLang backend."
OTHER = "A scheduler update: it now runs on newer GPUs and ships another serving backend."


def _item(rid: str, day: str, title: str, text: str, claims: list[str]) -> Record:
    instance = rid.split("/")[0]
    return Record(id=rid, kind=Kind.increment, date=day, title=title, text=text, instance=instance, claims=claims)  # type: ignore[arg-type]


def _store(tmp_path: Path, records: list[Record]) -> Store:
    store = Store.open(tmp_path / "idx", create=True)
    files = {r.id: f"/src/{r.id.split('#')[0]}.md" for r in records}
    ingest_records(store, ChangeSet(upserts=records, files=files), model="fake", load_encoder=FakeEncoder)
    return store


def _records() -> list[Record]:
    return [
        _item("jay/2026-10-15#2", "2026-10-15", "Straggler-aware collectives from Berkeley", FIRST,
              ["schedules collectives around stragglers", "1.3x faster all-reduce on 64 GPUs"]),
        _item("tom/2026-11-01#4", "2026-11-01", "PloverPrism update: B200 and SGLang", UPDATE,
              ["runs on B200", "ships an SGLang backend"]),
        _item("lin/2026-11-02#1", "2026-11-02", "A scheduler update for newer GPUs", OTHER,
              ["runs on newer GPUs", "ships another serving backend"]),
    ]  # fmt: skip


def test_an_update_sharing_a_rare_name_is_clustered_as_check_reads_it(tmp_path: Path) -> None:
    store = _store(tmp_path, _records())
    result = audit(store, "fake", forced_forms(summary_same=False))
    clusters = {c.first_seen.id: [(m.id, m.reason) for m in c.repeats] for c in result.clusters}
    # Read by its key points (the key-point form's threshold), and only the pair sharing the
    # rare name: lin's update names no system, and is left to the summary form.
    assert clusters == {"jay/2026-10-15#2": [("tom/2026-11-01#4", "same item 1.00 ≥ 0.50 (key points form)")]}


def test_explain_says_nothing_of_audit_reading_such_a_pair_otherwise(tmp_path: Path) -> None:
    store = _store(tmp_path, _records())
    told = explain(store, "tom/2026-11-01#4", "jay/2026-10-15#2", forced_forms(summary_same=False))
    assert told.match.same_item and told.match.form == "key points"
    assert not any("audit" in note for note in told.notes)
    apart = explain(store, "lin/2026-11-02#1", "jay/2026-10-15#2", forced_forms(summary_same=False))
    assert apart.match.same_item and any("audit judges" in note for note in apart.notes)


def test_a_key_point_reading_without_alignment_says_so_inside_the_forms_brackets() -> None:
    said = unaligned_reason("same item 0.85 ≥ 0.45 (key points form)")
    assert said == "same item 0.85 ≥ 0.45 (key points form, without check's token alignment)"
