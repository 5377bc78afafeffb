"""Helpers every parser shares: reading text, dates, cleaning, front matter."""

from __future__ import annotations

import contextlib
import datetime as dt
import re
import unicodedata
from pathlib import Path

from kbsearch.errors import KbError
from kbsearch.text.terminal import ESCAPE_SEQUENCE

SUPPORTED_FORMATS = (
    "E1 briefings (.md/.txt/.markdown or no extension), "
    "paper cards (markdown with YAML front matter, or .json), "
    "living docs (markdown with # headings), canonical records (.jsonl)"
)

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
# What Chinese text decoded from GB18030 is made of: CJK, CJK and full-width
# punctuation, printable ASCII, whitespace and general punctuation.
_PLAIN_GB = re.compile(
    r"[\u3400-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef"
    r"\u2000-\u206f\u00b7\x20-\x7e\t\n\r]"
)
# Files above this are refused before they are read.
MAX_FILE_BYTES = 10 * 2**20
# C0 controls except \t and \n, DEL and C1 controls: terminals interpret them.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_DATE = re.compile(r"(\d{4})[-/.年](\d{1,2})[-/.月](\d{1,2})日?")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?)\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)


def read_text(path: Path, warnings: list[str] | None = None) -> str:
    """The file as normalized text, or a KbError a user can act on.

    ``warnings`` collects what was accepted but is worth saying, such as a
    file that had to be read as GB18030.
    """
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            # Checked before reading: no briefing, card or doc comes near this,
            # and reading a log dump or a disk image would only eat memory.
            raise KbError(
                f"file is too large ({size / 2**20:.1f} MB; the limit is {MAX_FILE_BYTES // 2**20} MB)",
                hint="split it into smaller files",
                path=str(path),
            )
        data = path.read_bytes()
    except OSError as exc:
        raise KbError(f"cannot read file: {exc.strerror}", path=str(path)) from exc
    text = decode(data, path, warnings)
    if not text.strip():
        raise KbError("file is empty: it has no items", path=str(path))
    return text


def decode(data: bytes, path: Path, warnings: list[str] | None = None) -> str:
    if _is_utf16(data):
        # UTF-16 is full of NUL bytes; name the real problem instead of "binary".
        raise KbError("file is UTF-16", hint="save it as UTF-8", path=str(path))
    if b"\x00" in data:
        raise KbError(
            "binary file (contains NUL bytes)",
            hint="expected a text file",
            path=str(path),
            line=_line_of(data, data.index(b"\x00")),
        )
    data = data.removeprefix(b"\xef\xbb\xbf")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = _decode_gb18030(data, path, exc)
        if warnings is not None:
            warnings.append("not UTF-8; read as GB18030 Chinese")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def _is_utf16(data: bytes) -> bool:
    if not data.startswith((b"\xff\xfe", b"\xfe\xff")) or b"\x00" not in data:
        return False
    try:
        data.decode("utf-16")
    except UnicodeDecodeError:
        return False
    return True


def _decode_gb18030(data: bytes, path: Path, utf8_error: UnicodeDecodeError) -> str:
    # Some Windows tools still save Chinese as GB18030. Accept it only when it
    # decodes cleanly AND reads as Chinese text: almost any byte string
    # "decodes" as something, usually rare characters and control codes.
    try:
        text = data.decode("gb18030")
    except UnicodeDecodeError:
        text = ""
    if text and _CJK.search(text) and len(_PLAIN_GB.findall(text)) >= 0.9 * len(text):
        return text
    raise KbError(
        f"not valid UTF-8 (byte 0x{data[utf8_error.start]:02x} at offset {utf8_error.start})",
        hint="save the file as UTF-8",
        path=str(path),
        line=_line_of(data, utf8_error.start),
    ) from utf8_error


def require_unicode(value: object, path: Path, line: int | None = None) -> None:
    """Refuse strings that cannot be stored as UTF-8.

    JSON and YAML escapes can spell a lone surrogate (``\\ud800``): Python
    keeps it, but SQLite and the hash of the text cannot encode it. The walk
    is iterative and visits each container once: YAML aliases can make a
    small file describe a structure of billions of nodes.
    """
    pending, seen = [value], set()
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            _require_utf8(item, path, line)
        elif isinstance(item, (dict, list)) and id(item) not in seen:
            seen.add(id(item))
            pending.extend([*item.keys(), *item.values()] if isinstance(item, dict) else item)


def _require_utf8(text: str, path: Path, line: int | None) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise KbError(
            f"text holds an unpaired surrogate ({text[exc.start]!a})",
            hint="fix the \\u escape that produced it",
            path=str(path),
            line=line,
        ) from exc


def clean_line(text: str) -> str:
    """One line of display text: no escapes or controls, single spaces."""
    text = ESCAPE_SEQUENCE.sub("", text)
    text = _CONTROL.sub(" ", text)
    return " ".join(text.split())


def clean_block(text: str) -> str:
    """Multi-line text: each line cleaned, blank runs dropped."""
    lines = (clean_line(line) for line in text.split("\n"))
    return "\n".join(line for line in lines if line)


def parse_date(value: object) -> dt.date | None:
    """A date from ``2026-09-19``, ``2026/9/19``, ``2026年9月19日`` or a date object.

    None when absent or impossible (2026-13-45): callers warn instead of
    dropping the record, because a bad date should not cost the content.
    """
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if not isinstance(value, str):
        return None
    match = _DATE.search(unicodedata.normalize("NFKC", value))
    if not match:
        return None
    year, month, day = (int(g) for g in match.groups())
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def dates_in(text: str) -> set[dt.date]:
    """Every real day ``text`` names as ``parse_date`` reads one (years 1990-2100)."""
    found = set()
    for match in _DATE.finditer(unicodedata.normalize("NFKC", text)):
        year, month, day = (int(g) for g in match.groups())
        with contextlib.suppress(ValueError):
            if 1990 <= year <= 2100:
                found.add(dt.date(year, month, day))
    return found


def split_front_matter(text: str) -> tuple[str | None, str, int]:
    """(YAML text or None, body, line number where the body starts)."""
    match = _FRONT_MATTER.match(text)
    if not match:
        return None, text, 1
    consumed = match.group(0)
    return match.group(1), text[len(consumed) :], consumed.count("\n") + 1


def unclosed_front_matter(text: str) -> int | None:
    """The line a front matter opens at (``---``, the first line that is not blank) when no
    ``---`` or ``...`` line closes it; else None. Read only for a text no format took."""
    lines = text.splitlines()
    start = next((n for n, line in enumerate(lines) if line.strip()), None)
    if start is None or lines[start].rstrip() != "---":
        return None
    closed = any(line.rstrip() in ("---", "...") for line in lines[start + 1 :])
    return None if closed else start + 1


def split_list(value: object) -> list[str]:
    """Tags given as a list or as ``a, b，c、d`` text."""
    if isinstance(value, (list, tuple)):
        items = [str(v) for v in value if v is not None and not isinstance(v, (dict, list))]
    elif isinstance(value, (str, int)):
        items = re.split(r"[,，、;；]", str(value))
    else:
        return []
    seen: dict[str, None] = {}
    for item in items:
        cleaned = clean_line(item)
        if cleaned:
            seen.setdefault(cleaned, None)
    return list(seen)


def unique_id(wanted: str, taken: set[str]) -> str:
    """``wanted``, or ``wanted-2``, ``wanted-3``... when it is already used."""
    candidate, n = wanted, 2
    while candidate in taken:
        candidate, n = f"{wanted}-{n}", n + 1
    taken.add(candidate)
    return candidate
