"""``kbsearch calibrate`` with every model behind the benchmarks' vector cache.

    python bench/calibrate_cached.py [calibrate's arguments]

The same command and code, except that texts embedded by an earlier run
(of this or of bench/eval_dedupe.py), sentence vectors and token vectors
alike, are read from the benchmarks' cache ($KBSEARCH_GATE_CACHE, default
/work/cache/gate). The loaders are replaced before ``kbsearch.kb.calibration``
is imported (the CLI imports it when the command runs), so it binds these.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from cached_encoder import CachedEncoder, CachedTokenEncoder  # noqa: E402

import kbsearch.embed  # noqa: E402
from kbsearch.cli import main  # noqa: E402

_load = kbsearch.embed.load_encoder
kbsearch.embed.load_encoder = lambda spec: CachedEncoder(_load(spec))  # type: ignore[assignment]
_load_tokens = kbsearch.embed.load_token_encoder


def _cached_tokens(spec):  # type: ignore[no-untyped-def]
    inner = _load_tokens(spec)
    return None if inner is None else CachedTokenEncoder(inner)


kbsearch.embed.load_token_encoder = _cached_tokens  # type: ignore[assignment]

if __name__ == "__main__":
    sys.exit(main(["calibrate", *sys.argv[1:]]))
