"""The million-record rows: bulk import, re-import and a search session at 1M.

1. Bulk import of the 1M corpus from one JSONL file (343 MB), beside the same
   import of its first 100k lines: whole processes, peak RSS before the
   vector index is built and overall, the index build, the re-import.
   The encoder's answers come from the corpus's vector cache
   (``bench/corpus_encoder.py``; the real model is loaded as well and encodes
   whatever the cache lacks): encoding a million texts takes hours on a
   shared 2-core machine, and section 2 of scale.py measures the encoder
   side. A first import that embeds everything is estimated as this import
   plus its passages at the raw encoder's rate, measured in this run.
2. A warm search session at 1M with the real model, held-apart queries, and
   the index alone against an exact scan.

    python -m bench scale_million [--work DIR]    # after python -m bench scale, with the same --work
    python -m bench scale_million --work DIR --search-only    # section 2 alone, on DIR/bulk-1000000 as built
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
from pathlib import Path

import corpus
import corpus_encoder
import scale
from benchlib import run_child


def run(work: Path, queries: Path) -> None:
    env = dict(
        os.environ,
        KBSEARCH_MODELS=str(corpus_encoder.models_file(work)),
        PYTHONPATH=os.pathsep.join([str(Path(__file__).resolve().parent), str(scale.corpus.ROOT)]),
    )
    print("\n## 4. Bulk import from one JSONL file (encoder answers served from the corpus cache; see below)\n")
    print(
        "| lines | file | import | records/s | peak RSS before the index | peak RSS | index build "
        "| vectors | index file | re-import | speed-up | embedded on re-import |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    imported, notes = {}, []
    for lines in (100_000, 1_000_000):
        data = corpus.corpus_file(lines) if lines == 1_000_000 else scale.first_lines(lines, work)
        index = work / f"bulk-{lines}"
        shutil.rmtree(index, ignore_errors=True)
        command = [*scale.SELF, "_cli", "ingest", str(data), "--index", str(index), "--json"]
        seconds, rss, out, marks = run_child(command, env)
        again, _, out_again, _ = run_child(command, env)
        vectors = _manifest(index)["count"]
        print(
            f"| {lines:,} | {data.stat().st_size / 2**20:.0f} MB | {seconds / 60:.1f} min | {lines / seconds:.0f} "
            f"| {marks['before-index']['peak_mb']:,} MB | {rss:,} MB "
            f"| {marks['index']['seconds'] / 60:.1f} min ({marks['index']['kind']}) | {vectors:,} "
            f"| {(index / 'vectors.faiss').stat().st_size / 2**20:.0f} MB "
            f"| {again:.0f} s | {seconds / again:.0f}x | {json.loads(out_again)['embedded']} |"
        )
        imported[lines] = (seconds, again, json.loads(out)["embedded"], index)
        served = marks.get("cached-encoder", {})
        notes.append(
            f"{lines:,} lines: {json.loads(out)['embedded']:,} texts embedded, {served.get('served', 0):,} of them "
            f"served from the corpus cache and {served.get('encoded', 0):,} encoded by the model"
        )
    print("\n" + "; ".join(notes) + ".")
    seconds, again, _, index = imported[1_000_000]
    _, passages = scale.planned_texts(corpus.corpus_file(1_000_000))
    _, encode, note = scale.baseline_encode(passages, work, 3)
    full = seconds + encode
    print(
        f"\nA first import that embeds everything: about {full / 3600:.1f} h (this import, {seconds / 60:.0f} min, "
        f"plus its {len(passages):,} passages at the raw encoder's rate measured now: {encode / 60:.0f} min{note}). "
        f"Re-import speed-up against it: {full / again:.0f}x."
    )
    scale.latency({1_000_000: index}, queries)


def _manifest(index: Path) -> dict:
    return json.loads((index / "manifest.json").read_text(encoding="utf-8"))


def main() -> None:
    parser = argparse.ArgumentParser(description="The million-record rows (bulk import, re-import, search session).")
    parser.add_argument("--work", type=Path, default=corpus.CACHE / "work", help="indexes are built (and kept) here")
    parser.add_argument(
        "--search-only", action="store_true", help="skip the imports: the search session on WORK/bulk-1000000 as it is"
    )
    args = parser.parse_args()
    scale.without_judge()  # the corpus cache holds the index model's vectors only
    corpus.require_eval()
    args.work.mkdir(parents=True, exist_ok=True)
    load = os.getloadavg()[0]
    print(f"# kbsearch at a million records, model {scale.MODEL}, {os.cpu_count()} cores, load {load:.1f}")
    if args.search_only:
        scale.latency({1_000_000: args.work / "bulk-1000000"}, scale.queries_file(args.work))
        return
    run(args.work, scale.queries_file(args.work))


if __name__ == "__main__":
    main()
