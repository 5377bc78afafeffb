"""A second card of a paper is a record of its own (issue 13, item 2): card
ids follow the card number (else the file), a different record never
replaces another silently, check compares a new card with the earlier card
of its paper, an id two files claim is refused naming both, and an index
built with the old ids is renamed in place on re-ingest."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from support.cli import run

from kbsearch.parse import parse_file

ROOT = Path(__file__).resolve().parents[1]
CARD_1422 = ROOT / "examples" / "cards" / "card-1422-when2think.md"
CARD_1450 = Path(__file__).resolve().parent / "fixtures" / "cards" / "card-1450-when2think.md"


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:
    code, out, err = run(capsys, *argv, "--json")
    assert out, err
    return code, json.loads(out)


@pytest.fixture
def cards(tmp_path: Path) -> tuple[Path, Path]:
    folder = tmp_path / "cards"
    folder.mkdir()
    return Path(shutil.copy(CARD_1422, folder)), Path(shutil.copy(CARD_1450, folder))


def ids(capsys: pytest.CaptureFixture[str], index: str) -> list[str]:
    _code, out, _ = run(capsys, "list", "--index", index, "--format", "ids")
    return out.split()


def test_two_cards_of_one_paper_get_two_ids() -> None:
    first, second = parse_file(CARD_1422).records[0], parse_file(CARD_1450).records[0]
    assert (first.id, second.id) == ("card/1422", "card/1450")
    assert first.arxiv_ids == second.arxiv_ids == ["2609.19671"]


def test_the_second_card_is_added_not_put_in_place_of_the_first(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], cards: tuple[Path, Path]
) -> None:
    index = str(tmp_path / "idx")
    first, second = cards
    assert run_json(capsys, "ingest", str(first), "--index", index)[1]["added"] == 1
    code, report = run_json(capsys, "ingest", str(second), "--index", index)
    assert code == 0 and (report["added"], report["updated"]) == (1, 0)
    assert ids(capsys, index) == ["card/1422", "card/1450"]


def test_check_compares_a_new_card_with_the_earlier_card_of_its_paper(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], cards: tuple[Path, Path]
) -> None:
    index = str(tmp_path / "idx")
    first, second = cards
    run(capsys, "ingest", str(first), "--index", index)
    _, result = run_json(capsys, "check", str(second), "--index", index)
    (item,) = result["items"]
    assert item["id"] == "card/1450" and item["verdict"] in {"DUPLICATE", "UPDATE"}
    same = [m for m in item["matches"] if m["same_item"]]
    assert [m["id"] for m in same] == ["card/1422"]
    # Accepting it keeps both cards: the first-seen one is not replaced.
    run(capsys, "check", str(second), "--index", index, "--accept")
    assert ids(capsys, index) == ["card/1422", "card/1450"]


def test_an_id_two_files_claim_is_refused_naming_both(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = str(tmp_path / "idx")
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    one.write_text(json.dumps({"id": "x/1", "title": "TriAttention KV 压缩"}) + "\n", encoding="utf-8")
    two.write_text(json.dumps({"id": "x/1", "title": "An unrelated item"}) + "\n", encoding="utf-8")
    # In one run: the second file is refused, the first ingested.
    code, out, err = run(capsys, "ingest", str(one), str(two), "--index", index)
    assert code == 1 and str(two) in err and str(one) in err and "own id" in err
    # In a later run, while the first file is still there: refused, nothing changed.
    before = (Path(index) / "kb.sqlite").read_bytes()
    code, out, err = run(capsys, "ingest", str(two), "--index", index)
    assert code == 2 and str(two) in err and str(one) in err
    assert (Path(index) / "kb.sqlite").read_bytes() == before
    code, out, _ = run(capsys, "show", "x/1", "--index", index)
    assert "TriAttention" in out
    # Once the first file is gone, the second one took the record over (a moved file).
    one.unlink()
    code, report = run_json(capsys, "ingest", str(two), "--index", index)
    assert code == 0 and report["updated"] == 1
    code, out, _ = run(capsys, "show", "x/1", "--index", index)
    assert "An unrelated item" in out


def test_an_index_with_the_old_card_ids_is_renamed_in_place(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], cards: tuple[Path, Path]
) -> None:
    index = tmp_path / "idx"
    first, _ = cards
    run(capsys, "ingest", str(first), "--index", str(index))
    # What an index built before card numbers named cards holds: card/<arXiv id>.
    db = sqlite3.connect(index / "kb.sqlite")
    with db:
        db.execute("UPDATE records SET id = 'card/2609.19671', data = json_set(data, '$.id', 'card/2609.19671')")
    db.close()
    assert ids(capsys, str(index)) == ["card/2609.19671"]
    code, report = run_json(capsys, "ingest", str(first), "--index", str(index))
    assert code == 0 and report["embedded"] == 0 and report["added"] == 0
    assert any("'card/2609.19671' is now 'card/1422'" in w for w in report["warnings"])
    assert ids(capsys, str(index)) == ["card/1422"]  # no phantom left under the old id
    code, out, _ = run(capsys, "doctor", "--index", str(index))
    assert code == 0, out
