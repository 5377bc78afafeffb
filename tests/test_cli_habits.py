"""Everyday command-line habits (issue 13, items 9, 10 and 12): quiet exits on
a closed pipe, whole ids, ids by their start, what show and stats print,
check's messages for a folder and an empty file, plurals, --version, and
errors as JSON under --json."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kbsearch import __version__
from kbsearch.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
TESTS = Path(__file__).resolve().parent


# -- 9: a closed pipe ----------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["list"],
        ["stats"],
        ["audit"],
        ["show", "card/1422"],
        ["check", str(EXAMPLES / "briefings" / "2026-09-20-jay-engineering-e1prep.md")],
        ["search", "KV cache"],
        ["list", "--json"],
    ],
    ids=lambda argv: " ".join(argv[:2])[:30],
)
def test_a_reader_that_went_away_ends_the_run_quietly(index: str, models: Path, argv: list[str]) -> None:
    # The pipe's reading end is closed before kbsearch starts: its first write fails.
    read_end, write_end = os.pipe()
    os.close(read_end)
    env = {**os.environ, "KBSEARCH_MODELS": str(models), "PYTHONPATH": str(TESTS)}
    try:
        done = subprocess.run(
            [sys.executable, "-m", "kbsearch", *argv, "--index", index],
            stdout=write_end,
            stderr=subprocess.PIPE,
            env=env,
            timeout=300,
        )
    finally:
        os.close(write_end)
    assert done.returncode == 141, done.stderr.decode()
    assert done.stderr.decode() == ""


# -- 10: whole ids, formats, ids by their start ----------------------------------


def test_list_prints_whole_ids_when_not_on_a_terminal(index: str, cli) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = cli("list", "--index", index, "--json")
    ids = [row["id"] for row in json.loads(out)["records"]]
    long_ids = [i for i in ids if len(i) > 34]
    assert long_ids  # briefing ids are longer than the column a terminal shows
    code, out, _ = cli("list", "--index", index)  # captured: not a terminal
    assert code == 0 and all(i in out for i in ids)
    code, out, _ = cli("list", "--index", index, "--format", "ids")
    assert out.splitlines() == ids
    code, out, _ = cli("list", "--index", index, "--format", "tsv", "--kind", "paper_card")
    header, *rows = out.splitlines()
    assert header.split("\t") == ["id", "kind", "instance", "date", "arxiv_ids", "title"]
    card = next(r.split("\t") for r in rows if r.startswith("card/1422\t"))
    assert card[1] == "paper_card" and card[4] == "2609.19671" and card[5].startswith("When2Think")


def test_a_filtered_listing_counts_the_records_the_filters_match(index: str, cli) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = cli("list", "--index", index, "--json")
    everything = json.loads(out)
    spark = [row for row in everything["records"] if row["instance"] == "spark"]
    assert len(spark) > 3 and everything["matched"] == everything["total"] > len(spark)
    code, out, _ = cli("list", "--instance", "spark", "--limit", "3", "--index", index)
    assert code == 0 and out.splitlines()[-1] == f"(3 of {len(spark)} records)"
    code, out, _ = cli("list", "--instance", "spark", "--limit", "3", "--index", index, "--json")
    listing = json.loads(out)
    assert (len(listing["records"]), listing["matched"], listing["total"]) == (3, len(spark), everything["total"])


def test_show_takes_the_start_of_an_id(index: str, cli) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = cli("show", "stephen/2026-09-21", "--index", index)
    assert code == 2  # three increments start that way
    code, out, err = cli("show", "stephen/2026-09-21-stephen-ai-industry-e1prep#", "--index", index)
    assert code == 2
    assert "is the start of 3 ids" in err and "stephen/2026-09-21-stephen-ai-industry-e1prep#2" in err
    code, out, err = cli("show", "ex-card-14", "--index", index)
    assert code == 0 and "id: ex-card-1417-deepseek-v4.1-flash" in out
    code, out, err = cli("show", "no/such/id", "--index", index)
    assert code == 2 and "list --json" in err and "list --format ids" in err


# -- 12: show, stats, check, plurals, --version, JSON errors ---------------------


def test_show_prints_sources_relation_caveats_and_each_claim_once(index: str, cli) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = cli("show", "stephen/2026-09-21-stephen-ai-industry-e1prep#1", "--index", index)
    assert code == 0
    assert "sources (来源):" in out and "NVIDIA/TensorRT-LLM official blog" in out
    assert "relation to the living doc" in out and "ai-industry.md §2 (vendor positioning)" in out
    assert "caveats (警示):" in out
    assert "  - Vendor benchmark on vendor hardware; no third-party run yet" in out
    assert "  - SLO definitions" in out  # the second caveat of "- a - b" is its own line
    code, data, _ = cli("show", "stephen/2026-09-21-stephen-ai-industry-e1prep#1", "--index", index, "--json")
    claims = json.loads(data)["claims"]
    assert claims and all(out.count(claim) == 1 for claim in claims)


def test_show_of_a_card_prints_its_number_category_and_tags(index: str, cli) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = cli("show", "card/1422", "--index", index)
    assert code == 0
    assert "card: 1422" in out and "category: engineering" in out
    assert "tags: reasoning, length-control" in out


def test_stats_text_has_the_topics(index: str, cli) -> None:  # type: ignore[no-untyped-def]
    _, data, _ = cli("stats", "--index", index, "--json")
    topics = json.loads(data)["by_topic"]
    _, out, _ = cli("stats", "--index", index)
    line = next(line for line in out.splitlines() if line.startswith("topics"))
    assert all(f"{topic} {count}" in line for topic, count in topics.items() if topic != "-")


def test_check_of_a_folder_or_an_empty_file_says_what_is_wrong(index: str, cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    code, _, err = cli("check", str(EXAMPLES / "cards"), "--index", index)
    assert code == 2 and "is a folder, and check reads one file" in err and "kbsearch ingest" in err
    assert "no such file" not in err
    empty = tmp_path / "empty.md"
    empty.write_text("", encoding="utf-8")
    code, _, err = cli("check", str(empty), "--index", index)
    assert code == 2 and "has no items" in err and "ingest" not in err


def test_a_file_check_cannot_read_is_the_json_errors_path(index: str, cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    missing, fifo = tmp_path / "nosuch.md", tmp_path / "fifo.md"
    os.mkfifo(fifo)
    for path, problem in [(missing, "no such file or folder"), (fifo, "not a regular file or folder")]:
        code, out, err = cli("check", str(path), "--index", index, "--json")
        error = json.loads(err)
        assert code == 2 and out == "" and (error["error"], error["path"]) == (problem, str(path))
    code, _, err = cli("check", str(missing), "--index", index)
    assert err.startswith(f"kbsearch: {missing}: no such file or folder (give a briefing, paper card or JSONL file")


def test_counts_agree_with_their_nouns(models: Path, cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    card = EXAMPLES / "cards" / "card-1422-when2think.md"
    code, out, _ = cli("ingest", str(card), "--index", str(tmp_path / "idx"))
    assert code == 0 and out.startswith("1 file, 1 record: 1 added")
    code, out, _ = cli("list", "--index", str(tmp_path / "idx"))
    assert out.rstrip().endswith("(1 of 1 record)")


def test_version(cli, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"kbsearch {__version__}"


def test_errors_are_json_on_stderr_under_json(index: str, cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("show", "no/such/id", "--index", index, "--json")
    assert code == 2 and out == ""
    error = json.loads(err)
    assert error["error"] == "no record with id 'no/such/id'" and "list --json" in error["hint"]
    code, out, err = cli("search", "--index", index, "--json")  # the query is missing: a usage error
    assert code == 2 and out == ""
    error = json.loads(err)
    assert "query" in error["error"] and error["usage"].startswith("usage: kbsearch search")
    code, _, err = cli("search", "x", "--since", "yesterday", "--index", index)
    assert code == 2 and err == "kbsearch: --since: 'yesterday' is not a date; write YYYY-MM-DD, like 2026-09-19\n"


@pytest.mark.parametrize("nested", [True, False])
def test_the_loop_a_folder_check_suggests_reaches_every_file(  # type: ignore[no-untyped-def]
    index: str, cli, tmp_path: Path, nested: bool
) -> None:
    """inbox/<writer>/… (the daily layout): 'for f in inbox/*' gave check the writers' folders."""
    inbox = tmp_path / "my inbox"
    files = [inbox / "tom" / "a.md", inbox / "jay" / "b.md"] if nested else [inbox / "a.md", inbox / "b.md"]
    for file in files:
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text("# x\n", encoding="utf-8")
    code, _, err = cli("check", str(inbox), "--index", index)
    loop = err.split("one at a time, ", 1)[1].split("; or add them all", 1)[0]
    assert code == 2 and "kbsearch check" in loop
    shown = subprocess.run(
        ["bash", "-c", loop.replace("kbsearch check", "echo")], capture_output=True, text=True, check=True
    )
    assert sorted(shown.stdout.split("\n")[:-1]) == sorted(str(f) for f in files)
