"""``kbsearch calibrate`` with every model behind the benchmarks' vector cache.

    python bench/calibrate_cached.py [calibrate's arguments]

The same command and code, except that texts embedded by an earlier run
(of this or of bench/eval_dedupe.py) are read from the benchmarks' cache
($KBSEARCH_GATE_CACHE, default /work/cache/gate).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from cached_encoder import CachedEncoder  # noqa: E402

import kbsearch.embed  # noqa: E402
from kbsearch.cli import main  # noqa: E402

_load = kbsearch.embed.load_encoder
kbsearch.embed.load_encoder = lambda spec: CachedEncoder(_load(spec))  # type: ignore[assignment]

if __name__ == "__main__":
    sys.exit(main(["calibrate", *sys.argv[1:]]))
