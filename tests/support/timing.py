"""Reading a ``KBSEARCH_TIMINGS=1`` report in tests."""

from __future__ import annotations

import pytest


def assert_phases_make_the_total(phases: dict[str, float]) -> None:
    """The main thread's phases and ``other`` add up to ``total``; a ``beside:`` phase ran
    on another thread, overlapping them, and is not part of the sum."""
    main_thread = [v for k, v in phases.items() if k != "total" and not k.startswith("beside: ")]
    assert sum(main_thread) == pytest.approx(phases["total"], abs=1e-3)
