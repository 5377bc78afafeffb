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


def test_the_search_summary_says_why_the_filters_leave_nothing() -> None:
    from kbsearch.responses import SearchResponse, UnknownFilter
    from kbsearch.store import SearchFilter
    from kbsearch.tui.hits import summary as search_summary

    why = UnknownFilter(filter="topic", value="inference", known=[], kinds=["paper_card"])
    response = SearchResponse(
        query="KV", model="m", k=10, filters=SearchFilter(), results=[], seconds=0.0, unknown_filters=[why]
    )
    line = search_summary(response, 0, timing=False).plain
    assert line.startswith("0 results for KV") and "no paper_card has topic 'inference'" in line
