"""explain's named-systems line says what the rule saw when it has no say.

Probe 16: for two records that both name MarlSpire (``shared_names`` 3.99), the line read
"no say … the two name no rare systems, releases or news subjects that set them apart",
which reads as if neither named a rare system."""

from __future__ import annotations

from pathlib import Path

from conftest import fake_config
from test_audit_key_points import _records, _store

from kbsearch.dedupe.related import explain


def _named_systems(store_path: Path, a: str, b: str) -> tuple[bool | None, str]:
    told = explain(_store(store_path, _records()), a, b, fake_config())
    finding = next(f for f in told.rules if f.rule == "named systems")
    return finding.says, finding.detail


def test_a_shared_rare_name_is_named_not_called_no_rare_system(tmp_path: Path) -> None:
    says, detail = _named_systems(tmp_path, "tom/2026-11-01#4", "jay/2026-10-15#2")
    assert says is None
    assert detail.startswith("both name PloverPrism (rare)") and "no rare system" not in detail


def test_no_shared_name_says_none_sets_them_apart(tmp_path: Path) -> None:
    says, detail = _named_systems(tmp_path, "lin/2026-11-02#1", "jay/2026-10-15#2")
    assert says is None and "both name" not in detail
