"""Input files → typed records.

``parse_file`` picks the parser from the extension and then the content, so
a briefing saved as ``.md``, ``.txt`` or with no extension reads the same.
Every parser raises only ``KbError``; partial losses (one broken increment,
a bad date) become ``ParsedFile.warnings`` instead.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Any

from kbsearch.errors import KbError
from kbsearch.parse.bare import NAMED_PATH, parse_bare
from kbsearch.parse.briefing import looks_like_briefing, parse_briefing
from kbsearch.parse.card import has_card_front_matter, parse_card_markdown, parse_card_objects
from kbsearch.parse.common import SUPPORTED_FORMATS, read_text, unclosed_front_matter
from kbsearch.parse.doc import looks_like_doc, parse_doc
from kbsearch.parse.jsonl import CappedWarnings, JsonlFile, iter_jsonl, load_json, parse_jsonl, records_from_objects
from kbsearch.records import ParsedFile

__all__ = ["SUPPORTED_FORMATS", "JsonlFile", "iter_input_files", "open_input", "parse_file", "parse_json", "parse_text"]

# Files found by walking a folder; a file named explicitly is always read.
# Extension-less names are included: writers drop briefings such as
# inbox/tom/2026-09-18-inference-e1prep without one.
FOLDER_SUFFIXES = frozenset({".md", ".markdown", ".txt", ".json", ".jsonl", ""})


def parse_file(path: Path) -> ParsedFile:
    """Parse one input as listed by ``iter_input_files``; KbError naming it if it can't be read.

    The records' ``source`` is the resolved path.
    """
    check_input(path)
    path = path.resolve()
    if path.suffix.lower() == ".jsonl":
        # Read a line at a time: no limit on the file's length, one per line.
        capped = CappedWarnings()
        records = list(iter_jsonl(path, capped))
        return ParsedFile(source=str(path), format="jsonl", records=records, warnings=capped.summary())
    warnings: list[str] = []
    text = read_text(path, warnings)
    parsed = parse_json(text, path) if path.suffix.lower() == ".json" else parse_text(text, path)
    parsed.warnings = warnings + parsed.warnings
    return parsed


def open_input(path: Path) -> ParsedFile | JsonlFile:
    """``parse_file`` for ingest: a .jsonl file is checked line by line now and
    read again when written, so a bulk file is never held in memory whole."""
    if path.suffix.lower() != ".jsonl":
        return parse_file(path)
    check_input(path)
    return JsonlFile.checked(path.resolve())


def check_input(path: Path) -> None:
    """KbError unless ``path`` is a regular file that can be opened."""
    try:
        info = path.stat()
    except OSError as exc:
        raise KbError(
            _stat_problem(path, exc), path=str(path), hint="give files or folders of briefings, cards, docs or .jsonl"
        ) from exc
    except RuntimeError as exc:  # pathlib's own symlink-loop error on some versions
        raise KbError("symlink loop", path=str(path)) from exc
    if stat.S_ISDIR(info.st_mode):
        # iter_input_files lists a folder itself only when it found nothing to read in it.
        raise KbError(
            "folder holds no file kbsearch reads",
            hint="looked for .md, .markdown, .txt, .json, .jsonl and extension-less files, skipping hidden ones",
            path=str(path),
        )
    if not stat.S_ISREG(info.st_mode):
        # A FIFO or device would block or stream forever when read.
        raise KbError("not a regular file or folder", path=str(path))


def _stat_problem(path: Path, exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "symlink loop"
    if exc.errno == errno.ENOENT and path.is_symlink():
        return "broken symlink (its target does not exist)"
    if exc.errno == errno.ENOENT:
        return "no such file or folder"
    return f"cannot open: {exc.strerror}"


def parse_text(text: str, path: Path) -> ParsedFile:
    """Detect the format of markdown or plain text by its content."""
    if has_card_front_matter(text):
        return parse_card_markdown(text, path)
    if looks_like_briefing(text):
        return parse_briefing(text, path)
    if looks_like_doc(text):
        return parse_doc(text, path)
    if text.lstrip().startswith("{"):
        # A .txt or extension-less file may still hold JSON Lines.
        return parse_jsonl(text, path)
    if bare := parse_bare(text, path):  # one finding, its writer and day named by inbox/WRITER/DAY-….md
        return bare
    if (opened := unclosed_front_matter(text)) is not None:
        raise KbError(
            f"front matter opened with '---' at line {opened} is never closed",
            hint="close it with a line '---' after its last key",
            path=str(path),
            line=opened,
        )
    named = f"a bare item (a title line and key points) named {NAMED_PATH}"
    raise KbError("unrecognised format", hint=f"supported: {SUPPORTED_FORMATS}, {named}", path=str(path))


def parse_json(text: str, path: Path) -> ParsedFile:
    data: Any = load_json(text, path)
    items = data if isinstance(data, list) else [data]
    if not items or not all(isinstance(item, dict) for item in items):
        raise KbError(
            "JSON must be a card object or a list of objects",
            hint=f"supported: {SUPPORTED_FORMATS}",
            path=str(path),
        )
    # Canonical records say what they are; paper cards never carry "kind".
    if any("kind" in item for item in items):
        return records_from_objects(list(enumerate(items, start=1)), path, unit="item")
    return parse_card_objects(items, path)


def iter_input_files(paths: list[Path]) -> list[Path]:
    """The inputs to read: named paths as given, folders walked recursively.

    Folder contents are sorted, hidden files and folders are skipped, and a
    folder reached twice through symlinks is walked once. Nothing is checked
    here: a missing path, a broken link or a folder with nothing to read is
    listed as it is, and ``parse_file`` refuses it by name, so that one bad
    input costs only itself. A path named twice is listed once.
    """
    found: dict[Path, None] = {}
    for path in paths:
        files = _walk(path) if path.is_dir() else []
        for file in files or [path]:
            found.setdefault(file, None)
    return list(found)


def _walk(root: Path) -> list[Path]:
    files: list[Path] = []
    seen: set[tuple[int, int]] = set()
    for folder, subfolders, names in os.walk(root, followlinks=True):
        try:
            info = os.stat(folder)
        except OSError:
            subfolders[:] = []
            continue
        # A symlink back up the tree would otherwise be walked forever.
        if (info.st_dev, info.st_ino) in seen:
            subfolders[:] = []
            continue
        seen.add((info.st_dev, info.st_ino))
        subfolders[:] = [d for d in subfolders if not d.startswith(".")]
        files += [Path(folder, n) for n in names if _wanted(Path(folder, n))]
    return sorted(files)


def _wanted(path: Path) -> bool:
    if path.name.startswith(".") or path.suffix.lower() not in FOLDER_SUFFIXES:
        return False
    # A link that leads nowhere (broken, or a loop), a FIFO, a socket or a device is
    # listed so that it is reported (and skipped, never read), as a file named is.
    return not path.is_dir()
