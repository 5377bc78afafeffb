"""Migrations of the lexical index from 6 on, frozen (see ``migrations``).

Each copies what it needs as it was when it was written and never calls
today's code. Never edit a migration; add one.
"""

from __future__ import annotations

import json
import re
import sqlite3
import unicodedata
from decimal import Decimal

# -- migration 6, frozen -------------------------------------------------------

# A figure with a unit, a magnitude or a thousands' comma, as textsim read one on
# 6 December 2026; its one spelling, as textsim._canonical gave it.
_M6_NUMBER = re.compile(
    r"(?<![A-Za-z0-9_.@#§²³])(?<![A-Za-z]-)(\d+(?:,\d{3}(?!\d))*(?:\.\d+)*)"
    r"(?:\s*[多余]?(倍|千万|百万|万亿|千|万|亿)"
    r"|\s*(%|x|×|ms|s|gb|tb|thousand|million|billion|trillion|k|m|b)(?![A-Za-z0-9_])"
    r"|(?=[A-Za-z])|(?![A-Za-z0-9_]))",
    re.IGNORECASE,
)
_M6_MAGNITUDES = {
    "k": 3, "thousand": 3, "千": 3, "万": 4, "m": 6, "million": 6, "亿": 8, "b": 9, "billion": 9,
    "trillion": 12, "万亿": 12, "百万": 6, "千万": 7,
}  # fmt: skip
_M6_SHOWN_AS = ((12, "t"), (9, "b"), (6, "m"), (3, "k"))
_M6_CHUNK = 2000


def _add_figure_spellings(db: sqlite3.Connection) -> None:
    """End each FTS column with the one spelling of the figures it writes
    otherwise (10.7× and 10.7 倍 add 10.7x, 6.3万 and 63,000 add 63k), as
    queries spell them, and count the trigrams that adds. Rows without such
    a figure are left as they are; the records' own text is not touched."""
    last = -1
    while True:
        rows = db.execute(
            "SELECT rowid, title, body, meta FROM records_fts WHERE rowid > ? ORDER BY rowid LIMIT ?",
            (last, _M6_CHUNK),
        ).fetchall()
        if not rows:
            break
        last = rows[-1][0]
        added: dict[str, int] = {}
        for rowid, *parts in rows:
            old = [p or "" for p in parts]
            new = [_m6_with_figures(p) for p in old]
            if new == old:
                continue
            db.execute("UPDATE records_fts SET title = ?, body = ?, meta = ? WHERE rowid = ?", (*new, rowid))
            for trigram in _m6_trigrams(new) - _m6_trigrams(old):
                added[trigram] = added.get(trigram, 0) + 1
        db.executemany(
            "INSERT INTO lexical_counts(term, records) VALUES (?1, ?2) "
            "ON CONFLICT(term) DO UPDATE SET records = records + ?2",
            sorted(added.items()),
        )


def _m6_with_figures(folded: str) -> str:
    extra: list[str] = []
    for match in _M6_NUMBER.finditer(folded):
        value, unit = match.group(1), (match.group(2) or match.group(3) or "").lower()
        if value.count(".") >= 2 or not (unit or "," in value):
            continue
        spelling = _m6_spelling(value.replace(",", ""), "x" if unit in {"×", "倍"} else unit)
        if spelling != match.group(0).lower() and spelling not in folded and spelling not in extra:
            extra.append(spelling)
    return f"{folded}\n{' '.join(extra)}" if extra else folded


def _m6_spelling(value: str, unit: str) -> str:
    if unit not in _M6_MAGNITUDES and not (unit == "" and "." not in value and len(value) > 3):
        return value + unit
    amount = Decimal(value).scaleb(_M6_MAGNITUDES.get(unit, 0))
    for power, suffix in _M6_SHOWN_AS:
        shown = amount.scaleb(-power)
        if shown >= 1 and shown == shown.quantize(Decimal("0.1")):
            return f"{shown.normalize():f}{suffix}"
    return f"{amount.normalize():f}"


def _m6_trigrams(parts: list[str]) -> set[str]:
    """A record's distinct trigrams, every three characters of one column, as FTS5's tokenizer cuts them."""
    return {part[i : i + 3] for part in parts for i in range(len(part) - 2)}


# -- migration 7, frozen -------------------------------------------------------

_M7_CHUNK = 2000


def _add_caveats(db: sqlite3.Connection) -> None:
    """End the FTS body of each record whose JSON holds caveats (警示) with
    those it lacks in its text, folded and then with their figures' one
    spelling, as ``lexical_rows.document`` writes them now, and count the trigrams
    that adds. Records without caveats, and the records' JSON, are left as they are."""
    last = -1
    while True:
        rows = db.execute(
            "SELECT r.rowid, r.data, f.title, f.body, f.meta FROM records r JOIN records_fts f ON f.rowid = r.rowid "
            "WHERE r.rowid > ? ORDER BY r.rowid LIMIT ?",
            (last, _M7_CHUNK),
        ).fetchall()
        if not rows:
            break
        last = rows[-1][0]
        added: dict[str, int] = {}
        for rowid, data, title, body, meta in rows:
            record = json.loads(data)
            text, caveats = str(record.get("text") or ""), record.get("caveats")
            kept = [str(c) for c in caveats if c and str(c) not in text] if isinstance(caveats, list) else []
            if not kept:
                continue
            old = body or ""
            extra = _m6_with_figures(unicodedata.normalize("NFKC", "\n".join(kept)).lower())
            new = f"{old}\n{extra}" if old else extra
            db.execute("UPDATE records_fts SET body = ? WHERE rowid = ?", (new, rowid))
            for trigram in _m6_trigrams([title or "", new, meta or ""]) - _m6_trigrams([title or "", old, meta or ""]):
                added[trigram] = added.get(trigram, 0) + 1
        db.executemany(
            "INSERT INTO lexical_counts(term, records) VALUES (?1, ?2) "
            "ON CONFLICT(term) DO UPDATE SET records = records + ?2",
            sorted(added.items()),
        )


# -- migration 8, frozen -------------------------------------------------------

# A bare owner/repo, and the words marking one as a repo, as text.ids read them on 6 December 2026.
_M8_BARE_REPO = re.compile(
    r"(?<![^\s,，;；(（:：])((?=[\w.-]*[A-Za-z])[A-Za-z0-9][\w.-]*/(?=[\w.-]*[A-Za-z])[A-Za-z0-9][\w.-]*[A-Za-z0-9])"
    r"(?![^\s,，;；)）])",
    re.ASCII,
)
_M8_CUE = re.compile(
    r"(?:(?<![A-Za-z])(?:repository|repo|code|github)|仓库|代码|源码|开源[在于]?)\s*(?:[:：]|at|in|on)?\s*$",
    re.IGNORECASE,
)


_M8_PLAIN = re.compile(r"[A-Za-z][a-z]*")


def _add_bare_repos(db: sqlite3.Connection) -> None:
    """Add to ``record_refs`` each bare ``owner/repo`` a record's title, text,
    claims or sources mark as a repo: after a word naming a repository
    ("Repository:", "开源在"), or in parentheses after the name it holds
    ("OpenHands 1.0 (All-Hands-AI/OpenHands)"). Nothing is removed."""
    last = -1
    while True:
        rows = db.execute(
            "SELECT rowid, data FROM records WHERE rowid > ? ORDER BY rowid LIMIT ?", (last, _M7_CHUNK)
        ).fetchall()
        if not rows:
            break
        last = rows[-1][0]
        refs: list[tuple[int, str]] = []
        for rowid, data in rows:
            record = json.loads(data)
            parts = [str(record.get("title") or ""), str(record.get("text") or "")]
            for key in ("claims", "sources"):
                value = record.get(key)
                parts += [str(v) for v in value] if isinstance(value, list) else []
            refs += [(rowid, f"github:{repo}") for repo in _m8_bare_repos("\n".join(parts))]
        db.executemany("INSERT OR IGNORE INTO record_refs(rowid, ref) VALUES (?, ?)", refs)


def _m8_bare_repos(text: str) -> list[str]:
    found: list[str] = []
    for match in _M8_BARE_REPO.finditer(text):
        start, repo = match.start(), match.group(1)
        owner, name = repo.split("/", 1)
        name = name.removesuffix(".git")
        before = text[max(0, start - 31) : start - 1]
        named = (
            start > 0 and text[start - 1] in "(（" and not (_M8_PLAIN.fullmatch(owner) and _M8_PLAIN.fullmatch(name))
        )
        named = (
            named
            and re.search(rf"(?<![\w/]){re.escape(name)}(?:\s+v?\d[\w.]*)?\s*$", before, re.IGNORECASE) is not None
        )
        if named or _M8_CUE.search(text[max(0, start - 24) : start]):
            found.append(unicodedata.normalize("NFKC", repo).lower().removesuffix(".git"))
    return list(dict.fromkeys(found))
