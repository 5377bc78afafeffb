"""An item alone with the living-doc section that holds it is no audit cluster.

Probe 10: "10 clusters of the same item" counted TreeShift, told once by one
writer, with only the doc section listing its paper beside it.
"""

from __future__ import annotations

from pathlib import Path

from conftest import fake_config

from fake_encoder import FakeEncoder
from kbsearch.dedupe.audit import audit
from kbsearch.ingest import ingest_records
from kbsearch.records import Kind, Record
from kbsearch.render import audit_text
from kbsearch.store import ChangeSet, Store

TREE = "TreeShift drafts a token tree from a suffix automaton, with no training"
TREE_AGAIN = "TreeShift builds its draft tree from a suffix automaton and needs no training"


def _record(rid: str, kind: Kind, date: str, text: str, instance: str | None) -> Record:
    return Record(id=rid, kind=kind, date=date, title=rid, text=text, instance=instance, arxiv_ids=["2611.10001"])  # type: ignore[arg-type]


def _audit(tmp_path: Path, records: list[Record]):  # type: ignore[no-untyped-def]
    store = Store.open(tmp_path / "idx", create=True)
    files = {r.id: f"/src/{r.instance or 'doc'}.md" for r in records}
    ingest_records(store, ChangeSet(upserts=records, files=files), model="fake", load_encoder=FakeEncoder)
    return audit(store, "fake", fake_config())


def test_one_item_and_its_doc_section_are_no_cluster(tmp_path: Path) -> None:
    item = _record("jay#1", Kind.increment, "2026-11-06", TREE, "jay")
    section = _record("doc/inference#§1.5", Kind.doc_section, "2026-11-14", TREE, None)
    result = _audit(tmp_path, [item, section])
    assert result.clusters == [], [(c.first_seen.id, [m.id for m in c.repeats]) for c in result.clusters]
    assert audit_text(result).startswith("0 clusters") or "jay#1" not in audit_text(result)


def test_two_items_and_the_section_are_one_cluster(tmp_path: Path) -> None:
    item = _record("jay#1", Kind.increment, "2026-11-06", TREE, "jay")
    again = _record("tom#1", Kind.increment, "2026-11-08", TREE_AGAIN, "tom")
    section = _record("doc/inference#§1.5", Kind.doc_section, "2026-11-14", TREE, None)
    [cluster] = _audit(tmp_path, [item, again, section]).clusters
    assert cluster.first_seen.id == "jay#1" and [m.id for m in cluster.repeats] == ["tom#1", "doc/inference#§1.5"]
