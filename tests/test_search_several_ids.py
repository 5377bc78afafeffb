"""A query of several record ids (``search "card/12 card/31 tom/…#2"``) lists exactly
those records, in the order given, and names the ids no record has; before, it was
searched as words (a researcher's probe, stop 60). One id and the start of several
are in ``test_search_record_ids``."""

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

TOM = "tom/2026-09-16-tom-inference-e1prep#2"


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, FakeEncoder]:
    return example_store(tmp_path_factory.mktemp("kb"))


@pytest.mark.parametrize("mode", list(SearchMode))
def test_several_ids_list_their_records_in_order(examples: tuple[Store, FakeEncoder], mode: SearchMode) -> None:
    response = ranked(examples, f"card/1422 {TOM} card/9999 card/1093", mode)
    assert [(h.id, h.exact) for h in response.results] == [
        ("card/1422", "record"),
        (TOM, "record"),
        ("card/1093", "record"),
    ]
    assert response.missing_ids == ["card/9999"]
    text = render.search_text(response).plain
    assert text.splitlines()[0] == "no record has id card/9999"
    assert text.endswith("only the records ('='): the query is their ids, in its order)")


def test_ids_outside_the_filters_or_none_found(examples: tuple[Store, FakeEncoder]) -> None:
    filtered = ranked(examples, f"card/1093 {TOM}", kinds=["increment"])
    assert [h.id for h in filtered.results] == [TOM]
    assert filtered.missing_ids == ["card/1093"] and filtered.missing_elsewhere == {"card/1093": ["card/1093"]}
    none = ranked(examples, "card/9998 card/9999")
    assert none.results == [] and none.missing_ids == ["card/9998", "card/9999"]
    # Tokens with a slash that begin no stored ids are words.
    assert ranked(examples, "prefill/decode split/merge").missing_ids == []


def test_the_cli_json_lists_the_records(fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    index = str(tmp_path / "idx")
    assert main(["ingest", str(EXAMPLES / "cards"), "--index", index]) == 0
    capsys.readouterr()
    assert main(["search", "card/1094 card/77 card/1093", "--index", index, "--json"]) == 0
    response = json.loads(capsys.readouterr().out)
    assert [(h["id"], h["exact"]) for h in response["results"]] == [("card/1094", "record"), ("card/1093", "record")]
    assert response["missing_ids"] == ["card/77"]
