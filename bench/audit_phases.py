"""Where ``kbsearch audit`` holds its memory: the resident size after each of its phases.

    python bench/audit_phases.py INDEX

Runs the steps of ``kbsearch.dedupe.audit.audit`` one after another in this
process (the records read from SQLite, their whole vectors as one matrix,
their text features, their files, the vector index opened, the candidate
pairs judged, the clusters) and prints VmRSS and VmHWM from
/proc/self/status after each, so what grows with the records can be told
from what does not. Use the models.txt the index was built with
(``KBSEARCH_MODELS``): for the bench corpus, one whose line names no judge.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kbsearch.dedupe import audit as steps
from kbsearch.dedupe.rules import Embedded
from kbsearch.kb import KnowledgeBase

STARTED = time.perf_counter()


def mark(phase: str, note: object = "") -> None:
    sizes = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(("VmRSS", "VmHWM")):
            key, value = line.split(":")
            sizes[key] = int(value.split()[0]) // 1024
    print(
        f"| {phase} | {sizes['VmRSS']:,} MB | {sizes['VmHWM']:,} MB | {time.perf_counter() - STARTED:.1f} s | {note} |",
        flush=True,
    )


def main() -> None:
    print("| after | resident | peak | clock | |\n|---|---|---|---|---|")
    mark("imports")
    kb = KnowledgeBase.open(sys.argv[1])
    config = kb.dedupe_config()
    store = kb.store
    with store.snapshot():
        records = store.by_rowids(store.all_rowids())
        mark("the records", f"{len(records):,}")
        matrix, order = steps._whole_matrix(store, records)
        mark("their whole vectors")
        judges = store.judge_vectors(records, config.judge) if config.judge is not None else {}
        embedded = {r: Embedded.whole_only(records[r], matrix[i], judges.get(r)) for i, r in enumerate(order)}
        mark("their text features")
        read_from = store.files_of(list(embedded))
        files = {rowid: item.record.source or read_from.get(rowid) for rowid, item in embedded.items()}
        mark("their files")
        _ = store.vector_index
        mark("the vector index open")
        judged = steps._judge_pairs(store, embedded, files, config, matrix)
        mark("the candidate pairs judged", f"{len(judged):,} same-item pairs")
        earlier: steps.Earlier = {}
        for (a, b), match in judged.items():
            earlier.setdefault(b, []).append((a, match))
        groups = steps._grow_clusters(embedded, judged, earlier)
        clusters = [steps._cluster(embedded, group, earlier) for group in groups]
        mark("the clusters", f"{len(clusters):,}")


if __name__ == "__main__":
    main()
