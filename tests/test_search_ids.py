"""Exact arXiv ids in a query (issue 13, item 8): the record about the id
first (its card), then records about several ids, then records citing it;
scores in rank order; an id no record carries said so before any result."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.example_store import EXAMPLES, example_store, ranked

from fake_encoder import FakeEncoder
from kbsearch import render
from kbsearch.cli import main
from kbsearch.search import SearchMode
from kbsearch.store import Store
from kbsearch.tui import hits as hitview


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, FakeEncoder]:
    return example_store(tmp_path_factory.mktemp("kb"))


def test_the_card_comes_first_then_overviews_then_citations(examples: tuple[Store, FakeEncoder]) -> None:
    hits = ranked(examples, "2607.08057").results
    order = [(h.id, h.exact) for h in hits if h.exact]
    assert order == [
        ("card/1416", "card"),  # the paper's own card
        ("tom/2026-09-16-tom-inference-e1prep#1", "about"),  # an increment about the survey alone
        ("doc/inference#§1.3", "overview"),  # a living-doc section listing six ids
        ("jay/2026-09-17-jay-inference-e1prep#1", "cites"),
    ]
    assert [h.rank for h in hits[:4]] == [1, 2, 3, 4]


def test_any_form_of_the_id_finds_its_card_first(examples: tuple[Store, FakeEncoder]) -> None:
    for query in ("arXiv:2607.17715v1", "arxiv 2607.17715", "C²KV 2607.17715 reuse"):
        assert ranked(examples, query).results[0].id == "card/1093", query


@pytest.mark.parametrize("mode", list(SearchMode))
@pytest.mark.parametrize(
    "query", ["2607.08057", "arXiv:2607.17715v1", "KV cache 2607.17715", "2608.01526 github.com/WeianMao/triattention"]
)
def test_scores_are_in_rank_order(examples: tuple[Store, FakeEncoder], mode: SearchMode, query: str) -> None:
    hits = ranked(examples, query, mode).results
    assert any(h.matched_ids for h in hits)
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True), [(h.id, h.score) for h in hits]
    # A lift is a whole number, and only exact hits get one.
    assert all(h.lift == int(h.lift) and (h.lift == 0 or h.exact) for h in hits)


def test_an_id_no_record_carries_is_reported(examples: tuple[Store, FakeEncoder]) -> None:
    response = ranked(examples, "2699.99999")
    assert response.missing_ids == ["2699.99999"]
    assert not any(h.matched_ids for h in response.results)
    text = render.search_text(response).plain
    assert text.splitlines()[0] == "no record carries 2699.99999"
    assert "no record carries 2699.99999" in hitview.summary(response, 3, timing=False).plain
    # Known ids are not reported; one outside the filters is, saying so.
    assert ranked(examples, "2607.08057").missing_ids == []
    filtered = ranked(examples, "2607.08057 2699.99999", kinds=["increment"], instance="spark")
    assert filtered.missing_ids == ["2607.08057", "2699.99999"]
    said = render.search_text(filtered).plain.splitlines()
    assert said[0].startswith("no record within the filters carries 2607.08057 (outside them: ")
    assert said[1] == "no record within the filters carries 2699.99999"


def test_the_json_carries_the_missing_ids(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = str(tmp_path / "idx")
    assert main(["ingest", str(EXAMPLES / "cards"), "--index", index]) == 0
    capsys.readouterr()
    assert main(["search", "2699.99999 2607.17715", "--index", index, "--json"]) == 0
    response = json.loads(capsys.readouterr().out)
    assert response["missing_ids"] == ["2699.99999"]
    assert response["results"][0]["id"] == "card/1093" and response["results"][0]["exact"] == "card"
    assert main(["search", "2607.17715", "--kind", "increment", "--index", index, "--json"]) == 0
    filtered = json.loads(capsys.readouterr().out)
    assert filtered["results"] == [] and filtered["matched"] is None
    assert filtered["missing_ids"] == ["2607.17715"] and filtered["missing_elsewhere"] == {"2607.17715": ["card/1093"]}


def test_the_ids_a_hit_cites_are_set_apart_from_its_own(examples: tuple[Store, FakeEncoder]) -> None:
    response = ranked(examples, "2609.19499")
    line = next(line for line in render.search_text(response).plain.splitlines() if "id card/1422" in line)
    assert line.endswith("arXiv 2609.19671  cites 2609.19499"), line


def test_an_id_alone_lists_only_the_records_carrying_it(examples: tuple[Store, FakeEncoder]) -> None:
    """A new user's `search 2610.02345 -k 5` filled its fifth row with a funding round:
    an id alone asks for its records, in the CLI as the TUI showed them (README)."""
    for mode in SearchMode:
        for query in ("2607.08057", "arXiv:2607.08057v2", "2607.08057, 2608.01526"):
            hits = ranked(examples, query, mode).results
            assert hits and all(h.matched_ids for h in hits), (mode, query, [h.id for h in hits])
    alone = ranked(examples, "2607.08057")
    assert len(alone.results) == 4 < alone.k
    assert render.search_text(alone).plain.endswith("only the records carrying the id ('='): the query is an id alone)")
    # Words beside the id: the rest follow as before.
    assert not all(h.matched_ids for h in ranked(examples, "2607.08057 KV cache").results)


def test_ids_alone_no_record_within_the_filters_carries_find_nothing(examples: tuple[Store, FakeEncoder]) -> None:
    """Probe 19: `search 2610.13377 --kind doc_section`, the section pruned, said no record within
    the filters carries it and listed 10 unrelated sections (scores about 0.19). Ids alone ask for
    their records: none then, and the line names the records outside the filters that carry it."""
    for mode in SearchMode:
        filtered = ranked(examples, "2607.08057", mode, kinds=["increment"], instance="spark")
        assert filtered.results == [] and filtered.missing_ids == ["2607.08057"], mode
        outside = filtered.missing_elsewhere["2607.08057"]
        assert len(outside) == 3 and set(outside) < {
            "card/1416",
            "tom/2026-09-16-tom-inference-e1prep#1",
            "doc/inference#§1.3",
            "jay/2026-09-17-jay-inference-e1prep#1",
        }
    line = "no record within the filters carries 2607.08057"
    line += f" (outside them: {', '.join(outside)}; drop or widen the filters)"
    assert render.search_text(filtered).plain == f"{line}\nno results for '2607.08057'"
    assert line in hitview.summary(filtered, 0, timing=False).plain
    unknown = ranked(examples, "2612.00001")  # no record at all: nothing, and nothing named outside
    assert unknown.results == [] and unknown.missing_ids == ["2612.00001"] and unknown.missing_elsewhere == {}
    # Two ids, one carried within the filters: its records alone, the other reported.
    both = ranked(examples, "2607.08057 2612.00001")
    assert both.results and all(h.matched_ids == ["2607.08057"] for h in both.results)
    assert both.missing_ids == ["2612.00001"]


def test_the_tui_summary_counts_one_result_in_the_singular(examples: tuple[Store, FakeEncoder]) -> None:
    response = ranked(examples, "2607.08057")
    assert hitview.summary(response, 1, timing=False).plain.startswith("1 result for ")
    assert hitview.summary(response, 2, timing=False).plain.startswith("2 results for ")
