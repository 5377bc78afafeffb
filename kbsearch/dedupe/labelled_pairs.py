"""The labelled pairs the claim decision is fitted on: a TSV file, read and refused with its fix.

The format: a header row naming the columns ``a``, ``b`` and ``label`` (a fourth, ``lang``, may
follow), then one pair a line, label 0 ("says another thing") or 1 ("says the same thing")."""

from __future__ import annotations

import csv
from pathlib import Path

from kbsearch.errors import KbError

PAIRS_FORMAT = (
    "a header row 'a<TAB>b<TAB>label' (a fourth column 'lang' may follow), then one pair a line, label 0 or 1"
)


def read_pairs(path: Path) -> list[dict[str, str]]:
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            rows = list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    except (OSError, UnicodeDecodeError) as err:
        raise KbError(f"cannot read the pairs: {err}", path=str(path)) from err
    if not rows or not {"a", "b", "label"} <= set(rows[0]):
        raise KbError(
            "expected labelled pairs: a TSV with a header row naming the columns a, b and label",
            path=str(path),
            hint=f"write {PAIRS_FORMAT}; docs/dedupe.md has an example",
        )
    for number, row in enumerate(rows, start=2):
        if row["label"] not in {"0", "1"} or row["a"] is None or row["b"] is None:
            raise KbError(f"label must be 0 or 1, not {row['label']!r}", path=str(path), line=number)
    return rows
