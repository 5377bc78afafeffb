"""Run the SIGKILL crash trials of tests/test_crash.py as many times as wanted.

    PYTHONPATH=. python bench/crash_trials.py --trials 200 --seed 1

Prints one line per trial and a table of where the kills landed; exits 1 at
the first trial whose checks fail (the assertion says which).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1] / "tests"
sys.path.insert(0, str(TESTS))

from crash_harness import fake_model_env, prepare, run_trial  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    began = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder, fake_model_env(Path(folder)) as env:
        setup = prepare(Path(folder), env)
        print(
            f"corpus: {len(setup.reference['records'])} records; uninterrupted ingest: "
            + ", ".join(
                f"from {n} {c.seconds:.2f}s (WAL up to {c.wal_bytes} bytes)" for n, c in setup.calibration.items()
            )
        )
        rng = random.Random(args.seed)
        table: Counter[tuple[str, str, str]] = Counter()
        for number in range(args.trials):
            try:
                outcome = run_trial(setup, rng, number)
            except AssertionError as err:
                print(f"trial {number}: FAILED: {err}")
                return 1
            cache = outcome.cache.split(" (")[0]
            table[(outcome.mode, outcome.landed, cache)] += 1
            print(
                f"trial {number:3d}: kill by {outcome.mode:5} from {outcome.start:5} → {outcome.landed}, "
                f"{outcome.cache}, {outcome.temp_files} temp files left; recovered"
            )
    print(f"\n{args.trials} trials, all recovered, {time.perf_counter() - began:.0f}s")
    print(f"{'kill by':8} {'database found':15} {'cache on reopen':16} trials")
    for (mode, landed, cache), count in sorted(table.items()):
        print(f"{mode:8} {landed:15} {cache:16} {count}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
