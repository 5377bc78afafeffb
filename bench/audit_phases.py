"""Where ``kbsearch audit`` spends its time and memory: the resident size after each phase.

    python bench/audit_phases.py INDEX

Runs ``kbsearch.dedupe.audit.audit`` in this process, as the command does,
and prints VmRSS and VmHWM from /proc/self/status as each of its phases
ends (the roster read in chunks with each chunk's neighbours, the candidate
pairs, the pairs judged, the clusters grown, the clusters shown; the pairs judged note how many were decided again near
the line with the judge's token alignment, and in how long), so what
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
from kbsearch.embed import load_token_encoder
from kbsearch.kb import KnowledgeBase
from kbsearch.kb.explaining_check import check_of

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
        config = kb.dedupe_config()
        # The judge's token encoder, loaded as the command loads it: at the first pair near the line.
        tokens = (lambda: load_token_encoder(kb.judge_spec)) if kb.judge_spec and config.reads_tokens() else None
        # Check's candidate search, for a pair across languages (``audit_as_checked``): built at the first.
        checker = lambda: check_of(kb, config, None)  # noqa: E731
        audit(kb.store, kb.spec.name, config, phase=mark, tokens=tokens, checker=checker)


if __name__ == "__main__":
    main()
