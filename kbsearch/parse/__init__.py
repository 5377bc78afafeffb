"""Input files → typed records.

``parse_file`` picks the parser from the extension and then the content, so
a briefing saved as ``.md``, ``.txt`` or with no extension reads the same.
Every parser raises only ``KbError``; partial losses (one broken increment,
a bad date) become ``ParsedFile.warnings`` instead.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from kbsearch.errors import KbError
from kbsearch.parse.briefing import looks_like_briefing, parse_briefing
from kbsearch.parse.card import has_card_front_matter, parse_card_markdown, parse_card_objects
from kbsearch.parse.common import SUPPORTED_FORMATS, read_text
from kbsearch.parse.doc import looks_like_doc, parse_doc
from kbsearch.parse.jsonl import load_json, parse_jsonl, records_from_objects
from kbsearch.records import ParsedFile

__all__ = ["SUPPORTED_FORMATS", "iter_input_files", "parse_file", "parse_json", "parse_text"]

# Files found by walking a folder; a file named explicitly is always read.
# Extension-less names are included: writers drop briefings such as
# inbox/tom/2026-09-18-inference-e1prep without one.
FOLDER_SUFFIXES = frozenset({".md", ".markdown", ".txt", ".json", ".jsonl", ""})


def parse_file(path: Path) -> ParsedFile:
    """Parse one input file; KbError (naming the file) if it can't be read."""
    text = read_text(path)
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        return parse_jsonl(text, path)
    if suffix == ".json":
        return parse_json(text, path)
    return parse_text(text, path)


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
    raise KbError("unrecognised format", hint=f"supported: {SUPPORTED_FORMATS}", path=str(path))


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
    """The files to read: named files as given, folders walked recursively.

    Folder contents are sorted, hidden files and folders are skipped, and a
    folder reached twice through symlinks is walked once. A file named twice
    is returned once, at its first place.
    """
    found: dict[Path, None] = {}
    for path in paths:
        if not path.exists():
            raise KbError(
                "no such file or folder",
                hint="check the spelling; give files or folders of briefings, cards, docs or .jsonl",
                path=str(path),
            )
        if not (path.is_dir() or path.is_file()):
            # A FIFO or device would block or stream forever when read.
            raise KbError("not a regular file or folder", path=str(path))
        for file in _walk(path) if path.is_dir() else [path]:
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
    return not path.name.startswith(".") and path.suffix.lower() in FOLDER_SUFFIXES and path.is_file()
