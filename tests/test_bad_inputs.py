"""Every bad input is either ingested correctly or refused with one line.

A refused input names the file, the line where one applies, and the
problem; the command exits 2 and the index is byte-for-byte unchanged.
Small cases live in tests/data/bad/ (its README has the table); big, binary
and file-system cases are made here, in tmp_path.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from support.cli import index_files, ingest_rows, run

BAD = Path(__file__).resolve().parent / "data" / "bad"
GOOD_ROWS = [
    {"id": "good-1", "title": "Paged KV eviction", "text": "evict cold pages first"},
    {"id": "good-2", "title": "前缀缓存命中率", "text": "多轮对话里前缀复用"},
]
BRIEFING = """inference · E1 预消化简报(2026-09-22)
执行： Tom · inference 主题 E1 预消化
一、增量
增量 1：国标编码保存的简报（★★★）
要点： - 旧的 Windows 工具用 GBK 保存中文 - 读取时按 GB18030 解码
增量 2：第二条（★★）
要点： - 两条都应入库
"""


@dataclass(frozen=True)
class Case:
    kind: str
    """The kind of bad input, as the table in tests/data/bad/README.md names it."""
    name: str
    """A file in tests/data/bad/, or the name of what ``make`` builds."""
    refused: bool
    says: str
    """Part of the error (refused) or of a warning (ingested; '' for none)."""
    line: int | None = None
    records: int = 0
    make: Callable[[Path], Path] | None = None

    def path(self, tmp: Path) -> Path:
        return self.make(tmp / self.name) if self.make else BAD / self.name


def _bytes(data: bytes) -> Callable[[Path], Path]:
    def make(path: Path) -> Path:
        path.write_bytes(data)
        return path

    return make


def _big_file(path: Path) -> Path:
    path.write_text("# Notes\n\n## One section\n" + "word " * (20 * 2**20 // 5), encoding="utf-8")
    return path


def _big_jsonl(path: Path) -> Path:
    # Read a line at a time, a JSONL file has no size limit: 21 records of 1 MB.
    with path.open("w", encoding="utf-8") as out:
        for i in range(21):
            out.write(json.dumps({"id": f"big{i}", "title": f"Record {i}", "text": "word " * (2**20 // 5)}) + "\n")
    return path


def _over_long_line(path: Path) -> Path:
    path.write_text(
        json.dumps({"title": "fine"}) + "\n" + json.dumps({"title": "t", "text": "x" * (10 * 2**20)}) + "\n",
        encoding="utf-8",
    )
    return path


def _one_megabyte_line(path: Path) -> Path:
    line = "token " * (2**20 // 6)
    path.write_text(f"# Notes\n\n## §1 One long paragraph\n{line}\n", encoding="utf-8")
    return path


def _long_title(path: Path) -> Path:
    title = "很长的标题 long title " * 10_000
    path.write_text(json.dumps({"id": "long", "title": title}) + "\n", encoding="utf-8")
    return path


def _deep_yaml(path: Path) -> Path:
    path.write_text("---\ncard: 1\ntitle: " + "[" * 5000 + "]" * 5000 + "\n---\nbody\n", encoding="utf-8")
    return path


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def _symlink_loop_folder(path: Path) -> Path:
    path.mkdir()
    (path / "good.jsonl").write_text(json.dumps(GOOD_ROWS[0] | {"id": "via-loop"}) + "\n", encoding="utf-8")
    os.symlink(path, path / "back-to-top")  # a folder loop: walked once, silently
    return path


def _self_loop(path: Path) -> Path:
    os.symlink(path, path)
    return path


def _nothing_readable(path: Path) -> Path:
    path.mkdir()
    (path / "figure.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (path / "paper.pdf").write_bytes(b"%PDF-1.7")
    (path / ".hidden.md").write_text("# hidden\n\ntext\n", encoding="utf-8")
    return path


CASES = [
    Case("empty file", "empty.md", True, "file is empty"),
    Case("whitespace only", "whitespace-only.txt", True, "file is empty"),
    Case(
        "binary",
        "figure.md",
        True,
        "binary file (contains NUL bytes)",
        3,
        make=_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4),
    ),
    Case(
        "NUL bytes",
        "nul.md",
        True,
        "binary file (contains NUL bytes)",
        3,
        make=_bytes(b"# Notes\n\nsome text\x00 and more\n"),
    ),
    Case(
        "invalid UTF-8",
        "latin1.md",
        True,
        "not valid UTF-8 (byte 0xe9",
        3,
        make=_bytes("# Notes\n\n## Café\ncrème brûlée\n".encode("latin-1")),
    ),
    Case(
        "GBK-encoded Chinese",
        "gbk-briefing.md",
        False,
        "read as GB18030",
        records=2,
        make=_bytes(BRIEFING.encode("gbk")),
    ),
    Case("UTF-16", "utf16.md", True, "file is UTF-16", make=_bytes("# 标题\n\n正文\n".encode("utf-16"))),
    Case("UTF-8 BOM", "utf8-bom-card.md", False, "", records=1),
    Case("CRLF line ends", "crlf-briefing.md", False, "", records=2),
    Case("a 20 MB file", "big.md", True, "file is too large (20.0 MB; the limit is 10 MB)", make=_big_file),
    Case("a 21 MB JSONL file", "big.jsonl", False, "", records=21, make=_big_jsonl),
    Case("a JSONL line over 10 MB", "long-line.jsonl", True, "line is longer than 10 MB", 2, make=_over_long_line),
    Case("one 1 MB line", "long-line.md", False, "", records=1, make=_one_megabyte_line),
    Case("briefing header, no increments", "briefing-header-only.md", True, "briefing has no increments", 1),
    Case("increment with no title", "increment-without-title.md", True, "briefing has no usable increment", 4),
    Case(
        "increment with no title among good ones",
        "increment-without-title-among-good.md",
        False,
        "line 6: increment without a title; skipped",
        records=1,
    ),
    Case("broken YAML front matter", "broken-front-matter.md", True, "broken YAML front matter", 4),
    Case("YAML python tag", "yaml-python-tag.md", True, "could not determine a constructor", 3),
    Case("YAML alias bomb", "yaml-alias-bomb.md", False, "", records=1),
    Case("YAML nested 5000 deep", "deep.md", True, "nested too deeply", make=_deep_yaml),
    Case("JSON that is not an object", "json-not-object.json", True, "JSON must be a card object"),
    Case("JSON list of numbers", "json-list-of-numbers.json", True, "JSON must be a card object"),
    Case("JSON nested 100000 deep", "deep.json", True, "unreadable JSON", make=_bytes(b"[" * 100_000 + b"]" * 100_000)),
    Case("invalid JSONL line in the middle", "jsonl-bad-line-in-middle.jsonl", True, "invalid JSON", 3),
    Case("invalid dates (JSONL)", "invalid-dates.jsonl", False, "invalid date '2026-13-45'", records=2),
    Case("invalid date (card)", "card-invalid-date.md", False, "invalid date '2026-13-45'", records=1),
    Case("arXiv-like junk", "card-arxiv-junk.md", False, "'9999.99999v0' is not an arXiv id", records=1),
    Case("duplicate ids (JSONL)", "duplicate-ids.jsonl", True, "duplicate id 'same' (first on line 1", 3),
    Case("duplicate ids (JSON cards)", "duplicate-cards.json", True, "duplicate card id 'card/1500'"),
    Case("duplicate increment numbers", "briefing-repeated-number.md", False, "increment number 1 repeats", records=2),
    Case("Rich/Textual markup in titles", "markup-and-escapes.jsonl", False, "", records=2),
    Case("ANSI and control sequences in titles", "briefing-escapes.md", False, "", records=1),
    Case("control sequences in an id", "jsonl-control-in-id.jsonl", True, "holds control characters", 1),
    Case("title made of escape codes only", "jsonl-title-only-escapes.jsonl", True, "neither title nor text", 1),
    Case("extremely long title", "long-title.jsonl", False, "", records=1, make=_long_title),
    Case("unpaired surrogate escape", "jsonl-lone-surrogate.jsonl", True, "unpaired surrogate", 1),
    Case("integer beyond SQLite's range", "jsonl-huge-integer.jsonl", True, "field 'position'", 1),
    Case("wrongly typed field", "jsonl-wrong-types.jsonl", True, "'title' must be a string", 1),
    Case("an id both about and cited", "jsonl-id-about-and-cited.jsonl", True, "2607.17715 is in both 'arxiv_ids'", 1),
    Case("record with no title and no text", "jsonl-no-title-no-text.jsonl", True, "neither title nor text", 1),
    Case("paper card with no content", "card-without-content.md", True, "paper card has no title, tldr or body"),
    Case("living doc with headings only", "doc-headings-only.md", True, "living doc has no section with text"),
    Case("prose in no known format", "unrecognised-prose.txt", True, "unrecognised format"),
    Case("a symlink loop in a folder", "looped", False, "", records=1, make=_symlink_loop_folder),
    Case("a symlink that points at itself", "self.md", True, "symlink loop", make=_self_loop),
    Case("a path that does not exist", "nowhere.md", True, "no such file or folder", make=lambda p: p),
    Case(
        "a folder with no readable files",
        "figures",
        True,
        "folder holds no file kbsearch reads",
        make=_nothing_readable,
    ),
    Case("a named pipe", "pipe.md", True, "not a regular file or folder", make=_fifo),
]


@pytest.fixture
def index(fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    return ingest_rows(capsys, tmp_path, GOOD_ROWS, name="good.jsonl")


@pytest.mark.parametrize("case", CASES, ids=[c.kind for c in CASES])
def test_bad_input_is_ingested_or_refused_in_one_line(
    case: Case, index: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = case.path(tmp_path)
    before = index_files(index)
    code, out, err = run(capsys, "ingest", str(path), "--index", str(index), "--json")
    if case.refused:
        assert code == 2 and out == ""
        assert err.count("\n") == 1, err
        assert path.name in err and case.says in err
        if case.line is not None:
            assert f"{path.name}:{case.line}: " in err
        assert index_files(index) == before  # byte for byte, kb.sqlite included
    else:
        assert code == 0, err
        report = json.loads(out)
        assert report["added"] == case.records
        assert not case.says or any(case.says in w for w in report["warnings"]), report["warnings"]
        assert run(capsys, "doctor", "--index", str(index))[0] == 0


def test_every_file_in_the_bad_corpus_is_a_case_and_in_its_readme() -> None:
    files = {p.name for p in BAD.iterdir() if p.name not in {"README.md", ".gitattributes"}}
    static = {c.name for c in CASES if c.make is None}
    assert files == static
    readme = (BAD / "README.md").read_text(encoding="utf-8")
    assert all(f"`{c.name}`" in readme for c in CASES)
    assert len({c.kind for c in CASES}) >= 25


def test_good_files_are_ingested_beside_bad_ones(
    index: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "mixed"
    shutil.copytree(BAD, folder, ignore=shutil.ignore_patterns("README.md", ".gitattributes"))
    code, out, err = run(capsys, "ingest", str(folder), "--index", str(index), "--json")
    assert code == 1
    static = [c for c in CASES if c.make is None]
    refused = [c for c in static if c.refused]
    assert json.loads(out)["added"] == sum(c.records for c in static)
    lines = err.splitlines()
    assert len(lines) == len(refused)
    for case in refused:
        assert sum(case.name in line for line in lines) == 1, case.name


def test_a_fifo_or_a_broken_link_in_a_folder_is_named_and_skipped(
    index: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A FIFO in a folder was skipped without a word (exit 0), though named on its own
    it is refused and a broken link in a folder is named (exit 1)."""
    folder = tmp_path / "inbox"
    folder.mkdir()
    (folder / "good.jsonl").write_text(json.dumps(GOOD_ROWS[0] | {"id": "beside"}) + "\n", encoding="utf-8")
    os.mkfifo(folder / "pipe.md")
    os.symlink(tmp_path / "nowhere.md", folder / "gone.md")
    code, out, err = run(capsys, "ingest", str(folder), "--index", str(index), "--json")
    assert code == 1 and json.loads(out)["added"] == 1
    lines = err.splitlines()
    assert len(lines) == 2
    assert any("pipe.md: not a regular file or folder" in line for line in lines)
    assert any("gone.md: broken symlink" in line for line in lines)


def test_nothing_to_ingest_creates_no_index(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(
        capsys, "ingest", str(BAD / "empty.md"), str(tmp_path / "nowhere"), "--index", str(tmp_path / "new")
    )
    assert code == 2 and "(and 1 more input)" in err
    assert not (tmp_path / "new").exists()


# --- a read-only index folder ---------------------------------------------------------

_PR_CAPBSET_DROP = 24
_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH = 1, 2


# Run the child without root's permission bypass, so that mode bits bind it.
# CI runs as root, and root ignores a folder's missing write bit. Dropping the
# two DAC capabilities from the bounding set before exec makes the child an
# ordinary owner of the files: that is what a read-only folder is for a normal
# user. A fresh interpreter drops them and execs the child: a preexec_fn would
# run in a fork of this process, which may hold grpc (the Milvus tests), whose
# fork handler aborts the child ("epoll_wait error: Bad file descriptor").
_PRCTL_REFUSED = 77
_DROP_AND_EXEC = f"""
import ctypes, os, sys
if os.geteuid() == 0:
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in ({_CAP_DAC_OVERRIDE}, {_CAP_DAC_READ_SEARCH}):
        if libc.prctl({_PR_CAPBSET_DROP}, cap, 0, 0, 0) != 0:
            sys.exit({_PRCTL_REFUSED})
os.execv(sys.executable, [sys.executable, "-c", *sys.argv[1:]])
"""


def _child(env: dict[str, str], code: str, *argv: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-c", _DROP_AND_EXEC, code, *argv], env=env, capture_output=True, text=True)
    if done.returncode == _PRCTL_REFUSED:
        raise subprocess.SubprocessError("prctl(PR_CAPBSET_DROP) refused")
    return done


CLI = "import sys; from kbsearch.cli import main; sys.exit(main(sys.argv[1:]))"
# The same, with the permission pre-check fooled, to reach SQLite's and filelock's own refusals.
CLI_FOOLED = (
    "import sys, kbsearch.kb, kbsearch.store.facade; "
    "kbsearch.kb.facade.writable = kbsearch.kb.opened.writable = kbsearch.store.facade.writable = lambda root: True; "
    + CLI
)


@pytest.fixture
def read_only_index(index: Path) -> Iterator[Path]:
    paths = [index, *index.iterdir()]
    for path in paths:
        path.chmod(0o555 if path.is_dir() else 0o444)
    yield index
    for path in paths:
        path.chmod(0o755 if path.is_dir() else 0o644)


def _child_env(fake_models: Path) -> dict[str, str]:
    root = Path(__file__).resolve().parents[1]
    return {
        **os.environ,
        "KBSEARCH_MODELS": str(fake_models),
        "PYTHONPATH": os.pathsep.join([str(root), str(root / "tests")]),
    }


def test_a_read_only_index_refuses_writers_and_serves_readers(read_only_index: Path, fake_models: Path) -> None:
    env = _child_env(fake_models)
    try:
        probe = _child(env, "import sys; open(sys.argv[1], 'w')", str(read_only_index / "probe"))
    except subprocess.SubprocessError:  # prctl refused: no CAP_SETPCAP to drop capabilities with
        probe = None
    if probe is None or probe.returncode == 0:
        pytest.skip("cannot make a folder read-only for a child here (root without droppable capabilities)")
    before = index_files(read_only_index)
    for code in (CLI, CLI_FOOLED):
        for argv in (["ingest", str(BAD / "utf8-bom-card.md")], ["reindex"]):
            done = _child(env, code, *argv, "--index", str(read_only_index))
            assert done.returncode == 2, done.stderr
            assert done.stderr.count("\n") == 1 and "read-only" in done.stderr, done.stderr
            assert str(read_only_index) in done.stderr
    assert index_files(read_only_index) == before
    found = _child(env, CLI, "search", "KV eviction", "--index", str(read_only_index), "--json")
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["results"][0]["id"] == "good-1"
    assert _child(env, CLI, "doctor", "--index", str(read_only_index)).returncode == 0
