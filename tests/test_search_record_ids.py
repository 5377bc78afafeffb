"""A record's id typed as a query (`search card/1093`): the record itself,
alone and marked exact, in every mode and surface; an id-shaped query that
names no record says so. Before, the id was searched as words and listed
records sharing "card" or a number with it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.example_store import EXAMPLES, example_store, ranked

from fake_encoder import FakeEncoder
from kbsearch import render
from kbsearch.cli import main
from kbsearch.ingest import ingest_records
from kbsearch.records import Kind, Record
from kbsearch.search import SearchMode, search
from kbsearch.store import ChangeSet, Store
from kbsearch.tui import hits as hitview


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, FakeEncoder]:
    return example_store(tmp_path_factory.mktemp("kb"))


@pytest.mark.parametrize("mode", list(SearchMode))
@pytest.mark.parametrize(
    ("query", "wanted"),
    [
        ("card/1093", "card/1093"),
        ("doc/inference#§1.3", "doc/inference#§1.3"),
        ("tom/2026-09-16-tom-inference-e1prep#1", "tom/2026-09-16-tom-inference-e1prep#1"),
        ("card/1416", "card/1416"),  # the start of no other id
        (" card/1093 ", "card/1093"),
        ("ex-card-1417-deepseek-v4.1-flash", "ex-card-1417-deepseek-v4.1-flash"),  # an id without a slash
    ],
)
def test_a_record_id_lists_that_record_alone(
    examples: tuple[Store, FakeEncoder], mode: SearchMode, query: str, wanted: str
) -> None:
    response = ranked(examples, query, mode)
    assert [(h.id, h.exact) for h in response.results] == [(wanted, "record")]
    assert response.results[0].matched_ids == [wanted] and response.missing_ids == []
    assert render.search_text(response).plain.endswith("only the record ('='): the query is its id)")


def test_a_unique_start_of_an_id_is_the_record_as_show_takes_it(
    examples: tuple[Store, FakeEncoder], tmp_path: Path, encoder: FakeEncoder
) -> None:
    store = Store.open(tmp_path / "idx", create=True)
    records = [
        Record(
            id="doc/agents#agents-overview", kind=Kind.doc_section, title="Agents", text="An overview", source="/a.md"
        ),
        Record(
            id="doc/agents#§1.1", kind=Kind.doc_section, title="Memory", text="Episodes", source="/a.md", position=1
        ),
    ]
    ingest_records(store, ChangeSet(upserts=records), model=encoder.model_id, load_encoder=lambda: encoder)
    assert [h.id for h in ranked((store, encoder), "doc/agents#age").results] == ["doc/agents#agents-overview"]


@pytest.mark.parametrize("mode", list(SearchMode))
def test_the_start_of_several_ids_lists_their_records_as_show_names_them(
    examples: tuple[Store, FakeEncoder], mode: SearchMode
) -> None:
    """A new user's probe: `search kenji/2026-11-03` listed unrelated records with no note,
    while `show kenji/2026-11-03` named the two ids starting so."""
    store, encoder = examples
    ids = store.ids_with_prefix("card/109", 10)
    assert len(ids) == 3
    several = ranked(examples, "card/109", mode)
    assert [(h.id, h.exact) for h in several.results] == [(i, "record") for i in ids]
    assert several.id_start == 3 and several.missing_ids == []
    lines = render.search_text(several).plain.splitlines()
    assert lines[0] == "'card/109' is the start of 3 ids: their records, in id order"
    assert lines[-1].endswith("; only the records ('=') whose id starts with the query)")
    assert "is the start of 3 ids" in hitview.summary(several, 3, timing=False).plain
    first = search(store, encoder, "card/109", 2, mode=mode)
    assert [h.id for h in first.results] == ids[:2] and first.id_start == 3
    assert render.missing_lines(first) == ["'card/109' is the start of 3 ids: the first 2 records, in id order"]
    hidden = ranked(examples, "card/109", mode, kinds=["increment"])
    assert hidden.results == [] and hidden.missing_ids == ["card/109"] and hidden.id_start is None


def test_an_id_shaped_query_that_names_no_record_says_so(examples: tuple[Store, FakeEncoder]) -> None:
    response = ranked(examples, "card/9999")
    assert response.missing_ids == ["card/9999"]
    assert response.results == []  # a new user's probe read ten unrelated records below the line
    assert render.search_text(response).plain.splitlines()[0] == "no record has id card/9999"
    assert "no record has id card/9999" in hitview.summary(response, 3, timing=False).plain
    # Outside the filters it is missing too; words with a slash are no id.
    filtered = ranked(examples, "card/1093", kinds=["increment"])
    assert filtered.missing_ids == ["card/1093"] and filtered.results == []
    assert render.search_text(filtered).plain.startswith("no record within the filters has id card/1093\n")
    for words in ("prefill/decode", "WeianMao/triattention", "card/1093 KV cache"):
        assert ranked(examples, words).missing_ids == [], words


def test_a_repo_whose_owner_begins_ids_is_the_repo(tmp_path: Path, encoder: FakeEncoder) -> None:
    store = Store.open(tmp_path / "idx", create=True)
    records = [
        Record(id="tom/r#1", kind=Kind.increment, title="KV tool", text="Code: github.com/tom/kvtool", source="/s.md"),
        Record(id="tom/r#2", kind=Kind.increment, title="Other", text="Nothing of it", source="/s.md", position=1),
    ]
    ingest_records(store, ChangeSet(upserts=records), model=encoder.model_id, load_encoder=lambda: encoder)
    response = search(store, encoder, "tom/kvtool", 5)
    assert response.missing_ids == [] and (response.results[0].id, response.results[0].exact) == ("tom/r#1", "ref")
    nothing = search(store, encoder, "tom/nothing", 5)
    assert nothing.missing_ids == ["tom/nothing"] and nothing.results == []


def test_the_cli_json_names_the_record(fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    index = str(tmp_path / "idx")
    assert main(["ingest", str(EXAMPLES / "cards"), "--index", index]) == 0
    capsys.readouterr()
    assert main(["search", "card/1094", "--index", index, "--json"]) == 0
    response = json.loads(capsys.readouterr().out)
    assert [(h["id"], h["exact"]) for h in response["results"]] == [("card/1094", "record")]
