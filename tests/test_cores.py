"""free_cores: the cores other processes leave free, this process's own load aside."""

from __future__ import annotations

import pytest

import kbsearch.runtime.cores as cores


@pytest.mark.parametrize(
    ("load", "own", "expected"),
    [
        (1.0, 1.0, 2),  # the audit alone, busy on one core: both are free for its neighbour search
        (2.0, 1.0, 1),  # another process holds the other core
        (3.0, 0.0, 1),  # all taken by others: still one
        (0.2, 0.0, 2),
        (2.0, 5.0, 2),  # a process's own share counts at most all its cores
    ],
)
def test_free_cores_leaves_out_this_processs_own_load(
    monkeypatch: pytest.MonkeyPatch, load: float, own: float, expected: int
) -> None:
    monkeypatch.setattr(cores, "all_cores", lambda: 2)
    monkeypatch.setattr(cores.os, "getloadavg", lambda: (load, load, load))
    monkeypatch.setattr(cores, "own_load", lambda: own)
    assert cores.free_cores() == expected


def test_own_load_is_the_cpu_time_per_second_since_import(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cores, "_STARTED", cores.time.monotonic() - 10.0)
    monkeypatch.setattr(cores.os, "times", lambda: cores.os.times_result((6.0, 2.0, 0.0, 0.0, 0.0)))
    assert cores.own_load() == pytest.approx(0.8, rel=0.01)
