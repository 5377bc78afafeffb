"""A filtered audit (``--since``, ``--instance``) reports on fewer records, but judges each
pair against the neighbourhood it has in the whole index, as ``check`` and ``explain`` do."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from conftest import fake_config

from fake_encoder import FakeEncoder
from kbsearch.dedupe.audit import audit
from kbsearch.dedupe.scorer import Scorer
from kbsearch.ingest import ingest_records
from kbsearch.records import Kind, Record
from kbsearch.store import ChangeSet, SearchFilter, Store

# Same item when a record stands out from its nearest records (``relative``), as the
# shipped forms read it: two draft-head notes of a week stand out from each other alone.
STANDS_OUT = Scorer(
    features=["relative"],
    weights=[60.0],
    means=[0.0],
    scales=[1.0],
    bias=-3.0,
    threshold=0.5,
    fitted_on="hand-set for a test",
    score="none",
)
EARLIER = [
    ("old1", "2026-08-03", "Medusa draft heads predict four tokens per decoding step"),
    ("old2", "2026-08-05", "Medusa draft heads predict several tokens per decoding step"),
    ("old3", "2026-08-07", "Draft heads in Medusa predict four tokens each decoding step"),
]
WEEK = [
    ("new1", "2026-09-02", "Medusa draft heads predict four tokens per step"),
    ("new2", "2026-09-04", "Medusa heads predict four draft tokens per decoding step"),
    ("far1", "2026-09-03", "Kubernetes DRA hands out MIG slices to inference pods"),
    ("far2", "2026-09-05", "Cached input tokens are billed at a tenth of the price"),
]


def test_a_filter_does_not_change_how_a_pair_is_judged(tmp_path: Path, encoder: FakeEncoder) -> None:
    store = Store.open(tmp_path / "idx", create=True)
    rows = EARLIER + WEEK
    records = [Record(id=i, kind=Kind.increment, date=dt.date.fromisoformat(d), text=t) for i, d, t in rows]
    files = {r.id: f"/src/{r.id}.md" for r in records}
    ingest_records(store, ChangeSet(upserts=records, files=files), model="fake", load_encoder=lambda: encoder)
    config = fake_config().model_copy(update={"same_item": STANDS_OUT, "audit_neighbours": 3, "neighbourhood": 3})

    def pairs(flt: SearchFilter | None) -> set[frozenset[str]]:
        found = audit(store, "fake", config, flt)
        return {frozenset({c.first_seen.id, r.id}) for c in found.clusters for r in c.repeats}

    week = SearchFilter(since=dt.date(2026, 9, 1))
    assert audit(store, "fake", config, week).records == len(WEEK)
    assert frozenset({"new1", "new2"}) not in pairs(None)  # among the August notes neither stands out
    assert pairs(week) == {p for p in pairs(None) if p <= {i for i, _, _ in WEEK}}
