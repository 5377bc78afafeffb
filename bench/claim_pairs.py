"""Labelled "says the same thing" pairs for the claim decision, from ../shared/eval.

    python bench/claim_pairs.py [--out DIR]

Writes two TSVs (columns a, b, label, lang) in the format ``kbsearch
calibrate`` reads: ``claims-fit.tsv`` and ``claims-test.tsv``. Nothing is in
both: WMT22 and Tatoeba are split by document (even / odd), LCQMC and MRPC
by row (even / odd). The files stay outside the repository (the sets'
licences forbid copying them into it).

- WMT22 en-zh: the two Chinese translations of one English sentence say the
  same (zh-zh), and so does each with the English source (zh-en). Another
  sentence of the same news document is a hard negative: same topic, same
  names, another statement.
- Tatoeba zh-en: translations are positives; the next row's English is a negative.
- LCQMC (zh-zh) and MRPC (en-en): their own labels; LCQMC's first 4,000
  rows only (it would otherwise be half of all pairs, and all of one kind).
"""

from __future__ import annotations

import argparse
import csv
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from cached_encoder import CACHE_DIR  # noqa: E402

EVAL = ROOT.parent / "shared" / "eval"
OUT = CACHE_DIR


def read(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


def wmt_pairs(rng: random.Random) -> tuple[list[tuple[str, str, int, str]], list[tuple[str, str, int, str]]]:
    rows = read(EVAL / "parallel" / "wmt22-en-zh.tsv")
    by_doc: dict[str, list[dict[str, str]]] = {}
    for row in rows:
        by_doc.setdefault(row["doc"], []).append(row)
    fit, test = [], []
    for number, doc in enumerate(sorted(by_doc)):
        out = fit if number % 2 == 0 else test
        members = by_doc[doc]
        for i, row in enumerate(members):
            if row["zh_a"] != row["zh_b"]:
                out.append((row["zh_a"], row["zh_b"], 1, "zh-zh"))
            out.append((row["en"], rng.choice([row["zh_a"], row["zh_b"]]), 1, "en-zh"))
            if len(members) > 1:
                other = members[(i + rng.randrange(1, len(members))) % len(members)]
                out.append((row["zh_a"], other["zh_b"], 0, "zh-zh"))
                out.append((row["en"], other["zh_a"], 0, "en-zh"))
    return fit, test


def tatoeba_pairs() -> tuple[list[tuple[str, str, int, str]], list[tuple[str, str, int, str]]]:
    rows = read(EVAL / "parallel" / "tatoeba-zh-en.tsv")
    fit, test = [], []
    for i, row in enumerate(rows):
        out = fit if i % 2 == 0 else test
        out.append((row["zh"], row["en"], 1, "zh-en"))
        out.append((row["zh"], rows[(i + 1) % len(rows)]["en"], 0, "zh-en"))
    return fit, test


def labelled(
    name: str, lang: str, limit: int | None = None
) -> tuple[list[tuple[str, str, int, str]], list[tuple[str, str, int, str]]]:
    rows = read(EVAL / "pairs" / name)[:limit]
    pairs = [(r["a"], r["b"], int(r["label"]), lang) for r in rows]
    return pairs[0::2], pairs[1::2]


def write(path: Path, pairs: list[tuple[str, str, int, str]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, delimiter="\t", quoting=csv.QUOTE_NONE, escapechar="\\", lineterminator="\n")
        writer.writerow(["a", "b", "label", "lang"])
        for a, b, label, lang in pairs:
            writer.writerow([a.replace("\t", " "), b.replace("\t", " "), label, lang])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    rng = random.Random(16)
    fit, test = [], []
    for part_fit, part_test in (
        wmt_pairs(rng),
        tatoeba_pairs(),
        labelled("lcqmc-dev.tsv", "zh-zh", limit=4000),
        labelled("mrpc-val.tsv", "en-en"),
    ):
        fit += part_fit
        test += part_test
    args.out.mkdir(parents=True, exist_ok=True)
    write(args.out / "claims-fit.tsv", fit)
    write(args.out / "claims-test.tsv", test)
    print(f"{len(fit)} fitting pairs, {len(test)} test pairs in {args.out}")


if __name__ == "__main__":
    main()
