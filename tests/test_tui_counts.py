"""The TUI counts as the CLI does: "1 item", "1 result" (a new user's probe read "1 items")."""

from __future__ import annotations

from kbsearch.dedupe.results import CheckResult, ItemResult, Verdict
from kbsearch.records import Kind
from kbsearch.tui.check_screen import summary


def item(verdict: Verdict) -> ItemResult:
    return ItemResult(id="a#1", title="t", kind=Kind.increment, instance="a", date=None, verdict=verdict, reason="r")


def test_the_check_summary_counts_one_item_in_the_singular() -> None:
    one = CheckResult(input="in.md", model="m", as_of=None, items=[item(Verdict.NEW)])
    assert summary(one).plain.startswith("1 item: 1 NEW")
    two = one.model_copy(update={"items": [item(Verdict.NEW), item(Verdict.UPDATE)]})
    assert summary(two).plain.startswith("2 items: 1 NEW")
