"""The trade's vocabulary (NVLink, GPU-hour, PUE, SWE-bench, PostgreSQL) is no rare coined
name, and fabrics, units and benchmarks are no system at all (``kbsearch.text.field_terms``).

Probe 29 (GPU operations): in a week's index NVLink and GPU-hour were each held by a few
records, so Marlin's B200 outage joined Kestrel's H200 outage ("both name nv-link (rare)")
and a cloud's price cut joined another's ("both name GPU-hour, gpuhour (rare)"), while
Kestrel's revised report, titled with NVSwitch, was set apart from its first report ("a
title names what the other record never mentions (nvswitch)"). Probe 27 (coding agents):
two agents' SWE-bench scores were "both name swebench (rare)"."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import fake_config
from support.name_holders import holders_of

from fake_encoder import FakeEncoder
from kbsearch.dedupe.features import NAME_COUNT_CAP
from kbsearch.dedupe.findings import rule_findings
from kbsearch.dedupe.named_systems import systems_only
from kbsearch.dedupe.names import NameHolders, count_then
from kbsearch.dedupe.rules import Embedded, different_names
from kbsearch.records import Kind, Record
from kbsearch.store import SearchFilter

ENCODER = FakeEncoder()
KESTREL = Record(
    id="spark/2026-11-02#2", kind=Kind.increment, instance="spark", date=dt.date(2026, 11, 2),
    title="Kestrel Labs H200 集群因 NVLink 错误停摆约 3 小时",
    text="Kestrel Labs 的 512 卡 H200 集群出现 NVLink Xid 74 错误，训练停摆约 3 小时，损失 1,536 GPU-hours。",
)  # fmt: skip
NIMBUS = Record(
    id="spark/2026-11-02#1", kind=Kind.increment, instance="spark", date=dt.date(2026, 11, 2),
    title="Nimbus Cloud cuts on-demand H100 price to $2.49 per GPU-hour",
    text="Nimbus Cloud lowered its on-demand H100 SXM price from $2.99 to $2.49 per GPU-hour in us-east.",
)  # fmt: skip
MARLIN = Record(
    id="spark/2026-11-03#4", kind=Kind.increment, instance="spark", date=dt.date(2026, 11, 3),
    title="Marlin AI B200 cluster halted 2 h by NVLink errors",
    text="Marlin AI's 256-GPU B200 cluster stopped for 2 hours after NVLink errors; 512 GPU-hours lost.",
)  # fmt: skip
CUMULUS = Record(
    id="spark/2026-11-03#3", kind=Kind.increment, instance="spark", date=dt.date(2026, 11, 3),
    title="Cumulus GPU cuts H100 price to $2.69 per GPU-hour",
    text="Cumulus GPU lowered its H100 on-demand price from $3.20 to $2.69 per GPU-hour the same week.",
)  # fmt: skip
REVISED = Record(
    id="spark/2026-11-03#2", kind=Kind.increment, instance="spark", date=dt.date(2026, 11, 3),
    title="Kestrel Labs H200 outage revised to 5 h; NVSwitch firmware was the root cause",
    text="Kestrel Labs revised its H200 outage to 5 hours; NVSwitch firmware, fixed in 1.4.2. Loss 2,560 GPU-hours.",
)  # fmt: skip


@pytest.fixture
def holders(tmp_path: Path) -> Iterator[NameHolders]:
    with holders_of(tmp_path, [KESTREL, NIMBUS]) as held:
        yield held


def embedded(record: Record) -> Embedded:
    return Embedded(record, ENCODER.encode(record.passages()))


@pytest.mark.parametrize("name", ["nvlink", "nv-link", "nvswitch", "gpu-hour", "gpuhour", "swe-bench", "postgresql"])
def test_the_trades_vocabulary_counts_as_common(holders: NameHolders, name: str) -> None:
    assert holders.count(name) == NAME_COUNT_CAP
    assert count_then(holders, 1, SearchFilter())(name) == NAME_COUNT_CAP  # explain reads it alike
    assert holders.count("kestrel") == 1  # a company's own name stays rare


def test_fabrics_units_and_benchmarks_are_no_systems() -> None:
    names = frozenset({"nvlink", "nv-switch", "infiniband", "gpu-hour", "pue", "swe-bench", "nvl72"})
    names |= {"slurm", "kestrel"}
    assert systems_only(names) == {"slurm", "kestrel"}  # a platform stays a system: its releases are items


@pytest.mark.parametrize(("item", "known"), [(MARLIN, KESTREL), (CUMULUS, NIMBUS)])
def test_two_items_are_not_joined_by_the_trades_words(holders: NameHolders, item: Record, known: Record) -> None:
    found = rule_findings(embedded(item), embedded(known), fake_config(), holders.count)
    [named] = [f for f in found if f.rule == "named systems"]
    # was "both name NVLink (rare)", "both name GPU-hour, gpuhour (rare)"
    assert "(rare)" not in named.detail, named.detail
    assert not embedded(item).named(fake_config(), holders.count).every & {"nvlink", "nv-link", "gpu-hour", "gpuhour"}


def test_a_repeat_titled_with_a_fabric_is_not_set_apart_by_it(holders: NameHolders) -> None:
    # was "a title names what the other record never mentions (nvswitch)"
    assert different_names(embedded(REVISED), embedded(KESTREL), fake_config(), holders.count) is None


def test_a_release_title_still_tells_releases_apart(holders: NameHolders) -> None:
    older = Record(id="vera/2026-11-02#4", kind=Kind.increment, title="Ray 2.40 adds a GPU object store", text="2.40")
    newer = Record(id="vera/2026-11-04#3", kind=Kind.increment, title="Ray 2.52: RDMA object store", text="2.52")
    ruled = different_names(embedded(newer), embedded(older), fake_config(), holders.count)
    assert ruled is not None and ruled[1] is False and "ray" in ruled[2], ruled
