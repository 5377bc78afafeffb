"""Where ``kbsearch audit`` spends its time and memory: the resident size after each phase.

    python bench/audit_phases.py INDEX

Runs ``kbsearch.dedupe.audit.audit`` in this process, as the command does,
and prints VmRSS and VmHWM from /proc/self/status as each of its phases
ends (the roster read in chunks with each chunk's neighbours, the candidate
pairs, the pairs judged, the clusters grown, the clusters shown), so what
grows with the records can be told from what does not. Use the models.txt
the index was built with (``KBSEARCH_MODELS``): for the bench corpus, one
whose line names no judge.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kbsearch.dedupe.audit import audit
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
    with kb.store.snapshot():
        _ = kb.store.vector_index
        mark("the vector index open")
        audit(kb.store, kb.spec.name, kb.dedupe_config(), phase=mark)


if __name__ == "__main__":
    main()
