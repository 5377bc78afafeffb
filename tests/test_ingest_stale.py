"""A plain ingest says when a file no longer holds records stored from it.

A probe removed a section from its living doc and re-ingested without
``--prune``: "0 removed", and the deleted section stayed evidence for
``check``; renaming the doc left every section stored twice, silently."""

from __future__ import annotations

from pathlib import Path

DOC = """\
# agents doc

## 1 Memory

### 1.1 Episodic

Episodes of tool results.

### 1.2 Shared

One pool for many agents.

### 1.3 Notes

Nothing yet.
"""


def test_a_section_gone_from_the_doc_is_named_without_prune(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    doc, index = tmp_path / "docs" / "agents.md", str(tmp_path / "idx")
    doc.parent.mkdir()
    doc.write_text(DOC, encoding="utf-8")
    assert cli("ingest", str(doc), "--index", index)[0] == 0
    doc.write_text(DOC.replace("### 1.2 Shared\n\nOne pool for many agents.\n\n", ""), encoding="utf-8")
    code, out, err = cli("ingest", str(doc), "--index", index)
    assert code == 0 and "0 removed" in out
    assert f"1 record from {doc} is no longer in it (ids doc/agents#§1.2): run with --prune to drop them" in err
    # Nothing was deleted without --prune; with it the record goes and nothing is said.
    assert cli("show", "doc/agents#§1.2", "--index", index)[0] == 0
    code, out, err = cli("ingest", str(doc), "--index", index, "--prune")
    assert "1 removed" in out and "no longer in it" not in err


def test_a_renamed_doc_names_the_records_left_from_its_old_name(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    folder, index = tmp_path / "docs", str(tmp_path / "idx")
    folder.mkdir()
    (folder / "agents.md").write_text(DOC, encoding="utf-8")
    assert cli("ingest", str(folder), "--index", index)[0] == 0
    (folder / "agents.md").rename(folder / "agents-v2.md")
    code, _, err = cli("ingest", str(folder), "--index", index)
    old = folder / "agents.md"
    assert code == 0
    assert f"3 records from {old} are no longer in it (ids doc/agents#§1.1, doc/agents#§1.2, doc/agents#§1.3)" in err
    assert err.count("no longer in it") == 1 and "run with --prune to drop them" in err
    code, out, err = cli("ingest", str(folder), "--index", index, "--prune")
    assert "3 removed" in out and "no longer in it" not in err


def test_a_doc_moved_elsewhere_and_ingested_by_name_says_how_to_remove_the_rest(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    old, new, index = tmp_path / "a" / "agents.md", tmp_path / "b" / "agents.md", str(tmp_path / "idx")
    old.parent.mkdir(), new.parent.mkdir()
    old.write_text(DOC, encoding="utf-8")
    assert cli("ingest", str(old), "--index", index)[0] == 0
    new.write_text(DOC.replace("### 1.3 Notes\n\nNothing yet.\n", ""), encoding="utf-8")
    old.unlink()
    _, _, err = cli("ingest", str(new), "--index", index)
    # The moved file takes its ids over; the section it dropped stays under the old path.
    assert f"1 record from {old} is no longer in it (ids doc/agents#§1.3): the file is gone: remove them" in err
