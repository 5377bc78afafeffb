"""An exact hit's negative score reads as a score after the ``=`` mark (``= -0.007``), in the CLI and the TUI."""

from __future__ import annotations

from kbsearch.records import Kind
from kbsearch.render.records import marked_score
from kbsearch.responses import SearchHit
from kbsearch.tui.hits import row_cells


def hit(score: float, matched: list[str]) -> SearchHit:
    return SearchHit(
        rank=1, id="card/1", score=score, kind=Kind.paper_card, title="t", text="x", instance=None, date=None,
        topic=None, section=None, source=None, arxiv_ids=["cs/0612047"], cited_ids=[], matched_ids=matched,
        dense_score=score,
    )  # fmt: skip


def test_a_negative_exact_score_has_a_space_after_the_mark() -> None:
    assert marked_score(hit(-0.007, ["cs/0612047"])) == "= -0.007"
    assert row_cells(hit(-0.007, ["cs/0612047"]))[0].plain == "= -0.007"


def test_other_scores_keep_their_column() -> None:
    assert marked_score(hit(0.234, ["cs/0612047"])) == "= 0.234"
    assert marked_score(hit(-0.007, [])) == " -0.007"
    assert marked_score(hit(0.234, [])) == "  0.234"
