"""Loading a backlog of old material: what an operator must be able to tell (probe 28).

A briefing saved twice under two names was stored twice without a word; an
ingest said "2 updated" where one text changed and the other record only
changed file; a front matter never closed was an "unrecognised format"; a
file refused for another's id loaded both models first."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

BRIEFING = (
    "inference · E1 预消化简报(2026-11-09)\n"
    "增量 1：RetroMLA：把训练好的 GQA 模型改造成 MLA（⭐⭐⭐）\n要点：\n- KV Cache 缩小 5.3 倍\n\n"
    "增量 2：HeronKernel：MI355X 上的 INT4 GEMM kernel（⭐⭐）\n要点：\n- 达到理论带宽的 87%\n"
    "本报告由 Tom 实例自动生成\n"
)
NAME = "2026-11-09-tom-inference-e1prep"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def stored_ids(cli, index: str) -> set[str]:  # type: ignore[no-untyped-def]
    code, out, _ = cli("list", "--json", "--limit", "100", "--index", index)
    assert code == 0
    return {r["id"] for r in json.loads(out)["records"]}


def test_a_briefing_saved_twice_is_stored_once_and_the_copy_refused(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    folder, index = tmp_path / "tom", str(tmp_path / "idx")
    original = write(folder / f"{NAME}.md", BRIEFING)
    copy = write(folder / f"{NAME}-copy.md", BRIEFING)  # its name sorts first
    code, out, err = cli("ingest", str(folder), "--index", index)
    assert code == 1  # some inputs refused, the others ingested (README's exit codes)
    assert out.startswith("1 file, 2 records: 2 added") and "1 file refused (on stderr)" in out
    lines = [line for line in err.splitlines() if "same text" in line]
    assert lines == [
        f"kbsearch: {copy}: the same text as {original}, also read in this run: not stored twice "
        "(delete one of the two files; if one replaces the other, delete the other and ingest again with --prune)"
    ]
    assert stored_ids(cli, index) == {f"tom/{NAME}#1", f"tom/{NAME}#2"}
    # The copy alone, later: the same text as a stored file still on disk.
    code, out, err = cli("ingest", str(copy), "--index", index, "--json")
    assert code == 2 and f"{copy}: the same text as {original}, stored already: not stored twice" in err
    assert stored_ids(cli, index) == {f"tom/{NAME}#1", f"tom/{NAME}#2"}
    # The original again is itself, not a copy of anything: unchanged.
    code, out, _ = cli("ingest", str(original), "--index", index, "--json")
    assert code == 0 and json.loads(out)["unchanged"] == 2
    # The same texts another day (or by another writer) are repeats, for audit to credit: stored.
    later = write(tmp_path / "later" / "tom" / "2026-11-16-tom-inference-e1prep.md", BRIEFING.replace("11-09", "11-16"))
    code, out, _ = cli("ingest", str(later), str(folder / f"{NAME}.md"), "--index", index, "--json")
    assert code == 0 and json.loads(out)["added"] == 2


def test_json_and_text_tell_added_updated_and_moved_apart(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    old, new, index = (
        tmp_path / "a" / "tom" / f"{NAME}.md",
        tmp_path / "b" / "tom" / f"{NAME}.md",
        str(tmp_path / "idx"),
    )
    write(old, BRIEFING)
    code, out, _ = cli("ingest", str(old), "--index", index, "--json")
    report = json.loads(out)
    assert code == 0 and report["added_ids"] == [f"tom/{NAME}#1", f"tom/{NAME}#2"]
    # The corrected file delivered elsewhere, the old one deleted: one text changed, the other only its file.
    write(new, BRIEFING.replace("5.3 倍", "5.4 倍"))
    old.unlink()
    code, out, _ = cli("ingest", str(new), "--index", index, "--json")
    report = json.loads(out)
    assert code == 0 and (report["added"], report["updated"], report["moved"]) == (0, 1, 1)
    assert report["updated_ids"] == [f"tom/{NAME}#1"]
    assert report["moved_ids"] == [{"id": f"tom/{NAME}#2", "to": str(new), "was": str(old)}]
    # Text: the counts, the id updated and where the other moved from.
    write(new, BRIEFING)
    write(old, BRIEFING.replace("87%", "88%"))
    new.unlink()
    code, out, _ = cli("ingest", str(old), "--index", index)
    assert code == 0 and "0 added, 2 updated, 0 unchanged" in out.splitlines()[0]
    assert f"updated: tom/{NAME}#1, tom/{NAME}#2" in out.splitlines()
    write(new, BRIEFING.replace("87%", "88%"))
    old.unlink()
    code, out, _ = cli("ingest", str(new), "--index", index)
    assert code == 0 and "0 added, 0 updated, 2 moved, 0 unchanged" in out.splitlines()[0]
    assert f"moved to {new} (2 records unchanged, read from {old} before): tom/{NAME}#1, tom/{NAME}#2" in out
    assert "updated:" not in out


def test_a_front_matter_never_closed_is_named_by_its_line(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    card = write(tmp_path / "cards" / "card-2004.md", '\n---\ncard: 2004\ntitle: "Broken\ndate: 2026-11-20\n\nbody\n')
    write(tmp_path / "cards" / "card-2005.md", "---\ncard: 2005\ntitle: Fine\narxiv_id: '2611.00005'\n---\nbody\n")
    code, out, err = cli("ingest", str(tmp_path / "cards"), "--index", str(tmp_path / "idx"))
    assert code == 1 and "1 added" in out
    assert err.strip().splitlines() == [
        f"kbsearch: {card}:2: front matter opened with '---' at line 2 is never closed "
        "(close it with a line '---' after its last key)"
    ]


def test_a_file_refused_for_another_files_id_loads_no_model(
    tmp_path: Path,
    cli,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first, second, index = (
        tmp_path / "a" / "tom" / f"{NAME}.md",
        tmp_path / "b" / "tom" / f"{NAME}.md",
        str(tmp_path / "idx"),
    )
    write(first, BRIEFING)
    assert cli("ingest", str(first), "--index", index)[0] == 0
    write(second, BRIEFING.replace("5.3 倍", "5.4 倍"))  # a new text: without the refusal it would be embedded

    def no_model(*_: object, **__: object) -> None:
        raise AssertionError("a model was loaded for an ingest that refuses its only file")

    monkeypatch.setattr("kbsearch.kb.opened.load_encoder", no_model)
    monkeypatch.setattr("kbsearch.kb.opened.load_judge", no_model)
    code, _, err = cli("ingest", str(second), "--index", index)
    assert code == 2 and f"record id 'tom/{NAME}#1' is already stored from {first}" in err
