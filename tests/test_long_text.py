"""A record of megabytes (one pasted line) costs a search no more than a short
one: the snippet window is found in one pass, only the head of a long text is
read, and a hit carries a bounded text (issue 13, item 3)."""

from __future__ import annotations

import datetime as dt
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import kbsearch.text.snippet as snippet
from fake_encoder import FakeEncoder
from kbsearch.ingest import ingest_records
from kbsearch.records import Kind, Record
from kbsearch.search import HIT_TEXT_CHARS, SearchMode, search
from kbsearch.store import ChangeSet, Store
from kbsearch.text.snippet import LEAD_CHARS, make_snippet
from kbsearch.tui import hits as hitview

ONE_MB = 1_000_000
# A guard, so that a search gone quadratic fails rather than hangs the suite;
# the rules themselves are tested by what the code reads and returns.
LIMIT_SECONDS = 60


@contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    """Fail the test (rather than hang the suite) if the block runs longer."""

    def expired(signum: int, frame: object) -> None:
        raise TimeoutError(f"still running after {seconds}s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def long_line(size: int) -> str:
    """One line of ``size`` characters, a query term every few words."""
    unit = "KV cache 频域压缩 offloading zero-copy throughput "
    return (unit * (size // len(unit) + 1))[:size]


def reference_window(matches: list[tuple[int, int]], width: int, size: int) -> int:
    """The window rule written plainly (every match against every other)."""
    best_start, best_cover = 0, -1
    for lo, _ in matches:
        start = max(0, min(lo - LEAD_CHARS, size - width))
        cover = sum(min(hi, start + width) - max(l2, start) for l2, hi in matches if l2 < start + width and hi > start)
        if cover > best_cover:
            best_start, best_cover = start, cover
    return best_start


class CountingList(list[tuple[int, int]]):
    """A list that counts every element read through it."""

    reads = 0

    def __iter__(self) -> Iterator[tuple[int, int]]:
        for item in super().__iter__():
            CountingList.reads += 1
            yield item

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        CountingList.reads += 1
        return super().__getitem__(index)


@st.composite
def disjoint_matches(draw: st.DrawFn) -> tuple[list[tuple[int, int]], int, int]:
    gaps = draw(st.lists(st.tuples(st.integers(0, 30), st.integers(1, 12)), max_size=40))
    matches, cursor = [], 0
    for gap, length in gaps:
        lo = cursor + gap + (1 if matches else 0)  # merged matches never touch
        matches.append((lo, lo + length))
        cursor = lo + length
    size = cursor + draw(st.integers(0, 50))
    width = draw(st.integers(1, 200))
    return matches, width, size


@given(disjoint_matches())
def test_window_is_the_one_the_plain_rule_picks(case: tuple[list[tuple[int, int]], int, int]) -> None:
    matches, width, size = case
    assert snippet._best_window(matches, width, size) == reference_window(matches, width, size)


def test_window_reads_each_match_a_bounded_number_of_times() -> None:
    # 3,000 matches: comparing each with each reads 9 million; two cursors read each a few times.
    matches = CountingList((i * 10, i * 10 + 4) for i in range(3_000))
    CountingList.reads = 0
    snippet._best_window(matches, snippet.SNIPPET_CHARS, 30_000)
    assert CountingList.reads <= 10 * len(matches)


def test_only_the_head_of_a_long_text_is_read() -> None:
    """A term that first occurs past ``SCAN_CHARS`` is not looked for: the
    snippet is the text's start, nothing marked, and says the text goes on.
    (The window's one pass is the read-counting test above; time limits on a
    1 MB line cannot tell either rule from its removal.)"""
    filler = "word " * (snippet.SCAN_CHARS // 5)
    text = filler + "TriAttention " + filler
    spans = make_snippet(text, ["TriAttention"])
    assert not any(s.match for s in spans)
    assert spans[0].text.startswith("word word") and spans[-1].text == snippet.ELLIPSIS
    # the same term inside the head is found
    assert any(s.match for s in make_snippet(filler[:1_000] + " TriAttention " + filler, ["TriAttention"]))


def test_search_over_a_record_with_a_one_megabyte_line(tmp_path: Path, encoder: FakeEncoder) -> None:
    store = Store.open(tmp_path / "idx", create=True)
    records = [
        Record(
            id="stephen/paste#1",
            kind=Kind.increment,
            title="A pasted log",
            text=long_line(ONE_MB),
            claims=[long_line(ONE_MB)],
            instance="stephen",
            date=dt.date(2026, 9, 22),
        ),
        Record(id="tom/n1", kind=Kind.increment, title="Zero-copy KV cache offloading", text="OSDI '26 zero-copy"),
    ]
    ingest_records(store, ChangeSet(upserts=records), model=encoder.model_id, load_encoder=lambda: encoder)
    for mode in SearchMode:
        with time_limit(LIMIT_SECONDS):  # a guard against a hang, not the test of a rule
            hits = search(store, encoder, "zero-copy KV cache 频域压缩", 5, mode=mode).results
        long_hit = next(h for h in hits if h.id == "stephen/paste#1")
        assert long_hit.text_cut and len(long_hit.text) == HIT_TEXT_CHARS
        assert long_hit.text == long_line(ONE_MB)[:HIT_TEXT_CHARS]
        assert any(s.match for s in long_hit.snippet)
        short_hit = next(h for h in hits if h.id == "tom/n1")
        assert not short_hit.text_cut and short_hit.text == "OSDI '26 zero-copy"
    # The TUI's detail pane shows the cut text and says where the rest is.
    assert "kbsearch show stephen/paste#1" in hitview.body(long_hit)
    assert "kbsearch show" not in hitview.body(short_hit)
    # The record itself is whole.
    stored = store.get("stephen/paste#1")
    assert stored is not None and len(stored.text) == ONE_MB


@pytest.mark.parametrize("size", [40, snippet.SCAN_CHARS, snippet.SCAN_CHARS + 1])
def test_a_text_longer_than_the_scanned_head_is_marked_as_going_on(size: int) -> None:
    text = "x" * (size - 5) + " tail"
    spans = make_snippet(text, ["tail"])
    if size <= snippet.SCAN_CHARS:
        assert spans[-1] == snippet.Span(text="tail", match=True)
    else:  # the tail lies past the head: not searched, and the snippet says the text goes on
        assert not any(s.match for s in spans) and spans[-1].text == snippet.ELLIPSIS


def test_a_window_that_reaches_the_end_of_the_head_still_says_the_text_goes_on() -> None:
    """The match sits at the end of the scanned head, so the window reaches the end of what
    was read; the text goes on past it, and only the cut knows."""
    text = "x" * (snippet.SCAN_CHARS - 10) + " tail" + "y" * 10
    spans = make_snippet(text, ["tail"])
    assert any(s.match for s in spans) and spans[-1].text == snippet.ELLIPSIS
