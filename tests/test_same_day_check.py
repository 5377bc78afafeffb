"""Probe 28 again: audit credits the earlier signed of one day's two writers (vera, signed
09:10, loaded after tom's 22:20), so check and audit's "claimed new but seen before" flags
must too: a re-check of either briefing as of its day, a later item's first seen, and which
of the two claiming the item new is flagged."""

from __future__ import annotations

import json
from pathlib import Path

from test_same_day_signed import TOM, TOM_ID, VERA, VERA_ID, backfill, write

DAY = "2026-10-05"
JAY = """inference · E1 预消化简报(2026-10-06)
一、本周增量

增量 1：LatticeKV 复现：格点码本 KV 量化（⭐⭐⭐）
来源：arXiv:2610.01111
要点：
- 复现 Llama-3.1-70B 上 KV 显存降到 FP16 的 1/7

Jay · 2026-10-06 08:00
"""


def checked(cli, index: str, path: Path) -> dict[str, object]:  # type: ignore[no-untyped-def]
    code, out, _ = cli("check", str(path), "--index", index, "--as-of", DAY, "--json")
    assert code == 0
    [item] = json.loads(out)["items"]
    return item  # type: ignore[no-any-return]


def briefing(tmp_path: Path, who: str) -> Path:
    return tmp_path / "in" / who / f"{DAY}-{who}-inference-e1prep.md"


def test_a_recheck_as_of_the_day_follows_the_signing_times_as_audit_does(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    index = backfill(cli, tmp_path, "Tom · 2026-10-05 22:20", "Vera · 2026-10-05 09:10")
    vera = checked(cli, index, briefing(tmp_path, "vera"))
    assert vera["first_seen"] is None and vera["verdict"] == "NEW"  # was: first seen tom, UPDATE
    tom = checked(cli, index, briefing(tmp_path, "tom"))
    assert tom["first_seen"]["id"] == VERA_ID  # was: NEW, vera's left out as stored after it


def test_without_both_times_the_order_of_loading_still_decides(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    index = backfill(cli, tmp_path, "Tom · 2026-10-05 22:20", "Vera · 2026-10-05")
    assert checked(cli, index, briefing(tmp_path, "vera"))["first_seen"]["id"] == TOM_ID
    assert checked(cli, index, briefing(tmp_path, "tom"))["first_seen"] is None


def test_a_later_item_is_first_seen_by_the_earlier_signed(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    index = backfill(cli, tmp_path, "Tom · 2026-10-05 22:20", "Vera · 2026-10-05 09:10")
    path = tmp_path / "jay.md"
    path.write_text(JAY, encoding="utf-8")
    code, out, _ = cli("check", str(path), "--index", index, "--json")
    assert code == 1  # a duplicate
    assert json.loads(out)["items"][0]["first_seen"]["id"] == VERA_ID  # was: tom's, stored first


def flagged(cli, tmp_path: Path, marked: str) -> list[str]:  # type: ignore[no-untyped-def]
    """The "claimed new but seen before" flags of audit when ``marked`` tags the item 首次锚入."""
    tom, vera = TOM, VERA
    if marked == "tom":
        tom = TOM.replace("（⭐⭐⭐⭐）", "（首次锚入，⭐⭐⭐⭐）")
    else:
        vera = VERA.replace("（⭐⭐⭐）", "（首次锚入，⭐⭐⭐）")
    write(tmp_path, "tom", tom.format(signature="Tom · 2026-10-05 22:20"))
    write(tmp_path, "vera", vera.format(signature="Vera · 2026-10-05 09:10"))
    index = str(tmp_path / "idx")
    for who in ("tom", "vera"):  # tom loaded first
        assert cli("ingest", str(briefing(tmp_path, who)), "--index", index)[0] == 0
    code, out, _ = cli("audit", "--index", index, "--json")
    assert code == 0
    return [flag["message"] for flag in json.loads(out)["claimed_new_seen_before"]]


def test_the_earlier_signed_claiming_new_is_not_flagged(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    assert flagged(cli, tmp_path, "vera") == []  # was: vera marked new but tom had it


def test_the_later_signed_claiming_new_is_flagged_though_loaded_first(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    [flag] = flagged(cli, tmp_path, "tom")  # was: none, tom loaded first
    assert flag.startswith(f"{TOM_ID} (tom, {DAY}) is marked '首次锚入' but vera had it on {DAY} ({VERA_ID};")
