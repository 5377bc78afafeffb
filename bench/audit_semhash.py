"""``kbsearch audit`` as a whole process beside SemHash's self-deduplication, on labelled duplicates.

    python bench/audit_semhash.py [--sizes 100000,1000000] [--runs 5] [--million-runs 1] [--work DIR]
                                  [--baseline CHECKOUT] [--no-semhash]

Needs ``semhash`` (bench only: ``make bench-deps``). The records are the
corpus of ``bench/corpus.py`` (first 100k, and all 1M): its labelled part is
every summary of the three dev digest streams (feed a and c in Chinese, feed
g in English), so two records of one paper are a true duplicate within a
feed, across feeds and across languages; the rest is real text around them.
The index is the one ``python -m bench scale_million`` imported (``bulk-N`` in the
work folder), built again here the same way if it is missing.

- **kbsearch**: ``kbsearch audit --index IDX --json``, a whole process (model
  loading, index open, reading the records, the clustering, the JSON out).
  Predicted duplicates: two labelled records in one cluster.
- **SemHash**: ``SemHash.from_embeddings`` + ``self_deduplicate`` on the same
  records' whole-text vectors (the ones audit scores), read from an .npy file
  before the clock starts. Predicted duplicates: two labelled records in one
  group (a selected record and those filtered as its duplicates). Its
  threshold is chosen on one half of the papers (even crc32 of the paper id)
  for the best F1 there; SemHash's default (0.9) is shown too.

Precision and recall are counted on pairs of labelled records, on the other
half of the papers only (a pair counts when either record's paper is in that
half). kbsearch's rules were tuned on these dev streams elsewhere, not here;
SemHash is fitted here, on the other half. Each tool runs ``--runs`` times
(``--million-runs`` at 1M): the median and range (min-max) of its seconds
and of its peak RSS; the clusters of the first run are scored (a note says
when a later run's differ).

``--baseline CHECKOUT`` runs that checkout's ``kbsearch audit`` (a git
worktree of an earlier commit) on the same index, alternating with this
code's runs, as a row of its own with the ratio of the times;
``--no-semhash`` leaves SemHash out.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import time
import zlib
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import corpus
from benchlib import report_peak_rss, run_child

SELF = [sys.executable, __file__]
ROOT = Path(__file__).resolve().parents[1]
SEMHASH_DEFAULT = 0.9


# -- truth ------------------------------------------------------------------------


class Truth:
    """Labelled ids, their papers and feeds, and the half each paper is in."""

    def __init__(self, records: int) -> None:
        self.paper = corpus.truth(records)
        self.feed = {rid: rid.split("/")[0] for rid in self.paper}

    def reported(self, paper: str) -> bool:
        return zlib.crc32(paper.encode()) % 2 == 1

    def true_pairs(self, reported: bool) -> set[tuple[str, str]]:
        by_paper: dict[str, list[str]] = {}
        for rid, paper in self.paper.items():
            if self.reported(paper) == reported:
                by_paper.setdefault(paper, []).append(rid)
        return {tuple(sorted(p)) for ids in by_paper.values() for p in itertools.combinations(ids, 2)}  # type: ignore[misc]

    def kind(self, pair: tuple[str, str]) -> str:
        feeds = {self.feed[pair[0]], self.feed[pair[1]]}
        if len(feeds) == 1:
            return "within feed"
        return "across languages" if "g" in feeds else "across feeds"

    def score(self, groups: list[list[str]], reported: bool) -> dict[str, float]:
        """Precision, recall and F1 of the pairs inside ``groups`` on one half of the papers."""
        predicted = set()
        for group in groups:
            labelled = sorted(m for m in group if m in self.paper)
            predicted.update(itertools.combinations(labelled, 2))
        mine = {
            p
            for p in predicted
            if self.reported(self.paper[p[0]]) == reported or self.reported(self.paper[p[1]]) == reported
        }
        truth = self.true_pairs(reported)
        hits = mine & truth
        precision = len(hits) / len(mine) if mine else 1.0
        recall = len(hits) / len(truth) if truth else 1.0
        by_kind = Counter(self.kind(p) for p in truth)
        found = Counter(self.kind(p) for p in hits)
        out = {"pairs": len(mine), "P": precision, "R": recall, "F1": _f1(precision, recall)}
        out.update({f"R {kind}": found[kind] / total for kind, total in by_kind.items()})
        return out


def _f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r else 0.0


# -- the two tools, each a child process ------------------------------------------------


def child_semhash(vectors_file: str, ids_file: str, threshold: str, out: str) -> None:
    from semhash import SemHash

    vectors = np.load(vectors_file)
    ids = json.loads(Path(ids_file).read_text(encoding="utf-8"))
    started = time.perf_counter()
    semhash = SemHash.from_embeddings(vectors, ids, model=_NoEncoder())
    result = semhash.self_deduplicate(threshold=float(threshold))
    seconds = time.perf_counter() - started
    groups: dict[str, list[str]] = {}
    for dup in result.filtered:
        groups.setdefault(str(dup.duplicate_of), [str(dup.duplicate_of)]).append(str(dup.record))
    sweep = {}
    if float(threshold) <= 0.5:  # a fitting run: the same neighbours, rethresholded upwards
        for higher in np.arange(float(threshold), 1.0, 0.01):
            result.rethreshold(float(higher))
            sweep[f"{higher:.2f}"] = _groups(result)
    Path(out).write_text(json.dumps({"seconds": seconds, "groups": list(groups.values()), "sweep": sweep}))
    report_peak_rss()


def _groups(result) -> list[list[str]]:  # type: ignore[no-untyped-def]
    groups: dict[str, list[str]] = {}
    for dup in result.filtered:
        groups.setdefault(str(dup.duplicate_of), [str(dup.duplicate_of)]).append(str(dup.record))
    return list(groups.values())


class _NoEncoder:
    """SemHash wants an encoder; self-deduplication of given vectors never calls it."""

    def encode(self, inputs: object, **kwargs: object) -> np.ndarray:
        raise AssertionError("not used")


def audit_groups(out: str) -> list[list[str]]:
    clusters = json.loads(out)["clusters"]
    return [[c["first_seen"]["id"], *(m["id"] for m in c["repeats"])] for c in clusters]


def audit_runs(index: Path, runs: int, checkouts: list[Path]) -> dict[Path, list[tuple[float, int, str, dict]]]:
    """``kbsearch audit --json`` of each checkout as a whole process, ``runs``
    times, the checkouts alternating so that a busy spell falls on each."""
    done: dict[Path, list[tuple[float, int, str, dict]]] = {checkout: [] for checkout in checkouts}
    for _ in range(runs):
        for checkout in checkouts:
            command = [sys.executable, str(checkout / "bench" / "scale.py"), "_cli", "audit", "--index", str(index)]
            done[checkout].append(run_child([*command, "--json"]))
    return done


# -- inputs --------------------------------------------------------------------------------


def whole_vectors(records: int, work: Path) -> tuple[Path, Path]:
    """The records' whole-text vectors from the corpus cache, as .npy and an id list."""
    vectors_file, ids_file = work / f"whole-{records}.npy", work / f"whole-{records}-ids.json"
    if vectors_file.is_file() and ids_file.is_file():
        return vectors_file, ids_file
    rows = corpus.corpus(records)
    db = corpus.vector_db()
    out = np.empty((len(rows), 512), dtype=np.float32)
    for start in range(0, len(rows), 500):
        chunk = rows[start : start + 500]
        hashes = [corpus.text_hash(r.text) for r in chunk]
        marks = ",".join("?" * len(hashes))
        found = dict(db.execute(f"SELECT content_hash, vector FROM vectors WHERE content_hash IN ({marks})", hashes))
        if len(found) < len(set(hashes)):
            sys.exit("the corpus vectors are not all cached: run python bench/corpus.py --encode")
        out[start : start + len(chunk)] = np.frombuffer(b"".join(found[h] for h in hashes), np.float32).reshape(-1, 512)
    np.save(vectors_file, out)
    ids_file.write_text(json.dumps([r.id for r in rows]))
    return vectors_file, ids_file


def index_for(records: int, work: Path, judge: bool = False) -> Path:
    """The bench's index of the first ``records`` records; with ``judge``, one
    whose ingest ran the default judge too (e5 over every record: about 30 ms
    a record here, so 50 minutes at 100k)."""
    import corpus_encoder
    import scale

    index = work / f"{'judge' if judge else 'bulk'}-{records}"
    if not (index / "manifest.json").is_file():
        if judge:
            data, models = corpus.corpus_file(records), corpus_encoder.judged_models_file(work)
        else:
            data = corpus.corpus_file(records) if records == 1_000_000 else scale.first_lines(records, work)
            models = corpus_encoder.models_file(work)
        env = {**os.environ, "KBSEARCH_MODELS": str(models)}
        run_child([*scale.SELF, "_cli", "ingest", str(data), "--index", str(index)], env)
    return index


# -- the table ---------------------------------------------------------------------------------


def compare(
    records: int,
    runs: int,
    work: Path,
    fitted: str | None,
    default: bool = True,
    baseline: Path | None = None,
    semhash: bool = True,
    judge: bool = False,
) -> str | None:
    """One size's table; returns SemHash's fitted threshold, which larger sizes reuse."""
    truth = Truth(records)
    index = index_for(records, work, judge)
    _header(records, runs, truth)
    checkouts = [ROOT] if baseline is None else [baseline, ROOT]
    done, notes = audit_runs(index, runs, checkouts), []
    for checkout in checkouts:
        groups = audit_groups(done[checkout][0][2])
        if any(audit_groups(r[2]) != groups for r in done[checkout][1:]):
            print("(the runs' clusters differ: the first run's are scored)")
        label = "kbsearch audit (whole process)" if checkout == ROOT else f"kbsearch audit at {checkout} (baseline)"
        _row(truth, label, [r[0] for r in done[checkout]], [r[1] for r in done[checkout]], groups)
        other = truth.score(groups, reported=False)
        notes.append(
            f"{label}, on the other half of the papers (the half a setting is chosen on): P {other['P']:.3f}, "
            f"R {other['R']:.3f}, F1 {other['F1']:.3f}, R across languages {other.get('R across languages', 0):.3f}"
        )
    print("\n" + "\n".join(notes), flush=True)
    notes = []
    if baseline is not None:
        ratio = np.median([r[0] for r in done[ROOT]]) / np.median([r[0] for r in done[baseline]])
        print(f"\nthis code's audit takes {ratio:.2f}x the baseline's time (medians, runs alternating)", flush=True)
    if not semhash:
        return fitted
    vectors, ids = whole_vectors(records, work)
    out = work / "semhash-out.json"
    if fitted is None:
        run_child([*SELF, "_semhash", str(vectors), str(ids), "0.50", str(out)])
        sweep = json.loads(out.read_text())["sweep"]
        fitted = max(sweep, key=lambda t: truth.score(sweep[t], reported=False)["F1"])
        where = "fitted"
    else:
        where = "fitted at the smaller size or an earlier run"
    rows = [(f"SemHash, threshold {fitted} ({where})", fitted)]
    if default:
        rows.append((f"SemHash, its default {SEMHASH_DEFAULT}", f"{SEMHASH_DEFAULT}"))
    for label, threshold in rows:
        times, peaks, groups, whole = [], [], [], []
        for _ in range(runs):
            process, rss, _, _ = run_child([*SELF, "_semhash", str(vectors), str(ids), threshold, str(out)])
            result = json.loads(out.read_text())
            times.append(result["seconds"])
            peaks.append(rss)
            whole.append(process)
            groups = result["groups"]
        _row(truth, label, times, peaks, groups)
        notes.append(f"{label}: {np.median(whole):.1f} s median as a whole process (imports, reading the vectors)")
    print("\n" + "\n".join(notes), flush=True)
    return fitted


KINDS = ("within feed", "across feeds", "across languages")


def _header(records: int, runs: int, truth: Truth) -> None:
    print(
        f"\n### {records:,} records ({len(truth.paper):,} labelled), {runs} runs each, "
        "scored on the held-out half of the papers\n"
    )
    print(
        "| tool | seconds: median (min-max) | peak RSS, MB: median (min-max) | predicted pairs "
        "| precision | recall | F1 | " + " | ".join(f"R {k}" for k in KINDS) + " |"
    )
    print("|---|---|---|---|---|---|---|" + "---|" * len(KINDS), flush=True)


def _row(truth: Truth, label: str, times: list[float], peaks: list[int], groups: list[list[str]]) -> None:
    """One tool's row, printed as soon as its runs are done (a long run cut short keeps it)."""
    s = truth.score(groups, reported=True)
    spread = f"{np.median(times):.1f} ({min(times):.1f}-{max(times):.1f})"
    memory = f"{np.median(peaks):,.0f} ({min(peaks):,}-{max(peaks):,})"
    parts = " | ".join(f"{s.get('R ' + k, 0):.3f}" for k in KINDS)
    print(
        f"| {label} | {spread} | {memory} | {s['pairs']:,} | {s['P']:.3f} | {s['R']:.3f} | {s['F1']:.3f} | {parts} |",
        flush=True,
    )


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "_semhash":
        return child_semhash(*sys.argv[2:6])
    import corpus_encoder
    import scale

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--million-runs", type=int, default=1)
    parser.add_argument("--work", type=Path, default=corpus.CACHE / "work")
    parser.add_argument(
        "--semhash-threshold", help="SemHash's threshold as fitted by an earlier run (skips the fitting run)"
    )
    parser.add_argument(
        "--no-default-at-million",
        action="store_true",
        help="at 1M, skip SemHash at its default threshold (15-20 minutes a run, and it finds a fifth of the pairs)",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        help="a checkout (a git worktree) whose kbsearch audit runs on the same index, alternating with this code's",
    )
    parser.add_argument("--no-semhash", action="store_true", help="kbsearch's rows only")
    parser.add_argument(
        "--judge",
        action="store_true",
        help="an index whose ingest ran the default judge (e5), audited with it (built once: e5 over every record)",
    )
    parser.add_argument(
        "--dedupe",
        type=Path,
        help="a dedupe config for the model (dedupe= on its models.txt line), to try a setting; --baseline reads it",
    )
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    if args.judge:
        os.environ["KBSEARCH_MODELS"] = str(corpus_encoder.judged_models_file(args.work))
    else:
        scale.without_judge()  # an index built from the corpus cache has no judge vectors
    if args.dedupe is not None:
        models = Path(os.environ["KBSEARCH_MODELS"])
        lines = models.read_text(encoding="utf-8").splitlines()
        ours = [
            f"{line} dedupe={args.dedupe.resolve()}" if line.split()[:1] == [corpus.MODEL] else line for line in lines
        ]
        models.write_text("\n".join(ours) + "\n", encoding="utf-8")
    corpus.require_eval()
    print("## 5. kbsearch audit beside SemHash, labelled duplicates of the three dev digest streams")
    fitted = args.semhash_threshold
    for records in sorted(int(s) for s in args.sizes.split(",")):
        runs = args.million_runs if records >= 1_000_000 else args.runs
        fitted = compare(
            records,
            runs,
            args.work,
            fitted,
            default=not (args.no_default_at_million and records >= 1_000_000),
            baseline=args.baseline,
            semhash=not args.no_semhash,
            judge=args.judge,
        )


if __name__ == "__main__":
    main()
