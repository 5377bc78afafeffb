"""Search latency on an index holding one record with an 8 MB line, beside the same index without it.

    python bench/long_line.py [--megabytes 8] [--repeats 10]

Issue 13 item 3: a briefing whose 要点 is one line of megabytes (under the
10 MB file limit) made every search run for minutes. Two indexes are built
from examples/ with the real default model: one as it is, one plus a briefing
whose single increment has one 要点 line of ``--megabytes`` MB, made of the
corpus's own text repeated, so that every query below matches it and it is a
candidate of every search (the worst case). Then the same queries run on
both, alternating, through ``KnowledgeBase.search`` (what the CLI and the TUI
call), and the p50 and p90 print side by side with their ratio.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kbsearch.embed import load_encoder  # noqa: E402
from kbsearch.kb import KnowledgeBase  # noqa: E402
from kbsearch.models import resolve_model  # noqa: E402
from kbsearch.parse import iter_input_files, parse_file  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from benchlib import percentile  # noqa: E402

EXAMPLES = ROOT / "examples"
QUERIES = [
    "frequency-domain KV cache compression",
    "频域 KV cache 压缩",
    "zero-copy KV cache offloading",
    "TGI 维护模式",
    "SGLang suffix decoding",
    "2607.08057",
    "vLLM 与 SGLang 吞吐对比",
    "prefix cache autoscaling",
]
BRIEFING = """ai-industry · E1 预消化简报(2026-09-22)
执行： Stephen · ai-industry 主题 E1 日间预消化轮
一、最重要的 1 条增量
增量 1【推理引擎 · 行业信号】🟢 A pasted log of the week's inference news ★★
来源： inbox/stephen/2026-09-22-paste.md
TLDR： One increment whose key point is a single enormous line.
要点： - {line}
警示： - pasted without line breaks
建议归入节： ai-industry.md §9
"""


def long_line(megabytes: float) -> str:
    """The corpus's own text, repeated on one line to ``megabytes`` MB of UTF-8."""
    texts = [r.text for path in iter_input_files([EXAMPLES]) for r in parse_file(path.resolve()).records]
    unit = " ".join(" ".join(t.split()) for t in texts) + " "
    size = int(megabytes * 1_000_000)
    line = unit * (size // len(unit.encode("utf-8")) + 1)
    return line.encode("utf-8")[:size].decode("utf-8", errors="ignore")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--megabytes", type=float, default=8.0)
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    spec = resolve_model()
    encoder = load_encoder(spec)
    encoder.encode(["warm up"])
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        extra = root / "long" / "2026-09-22-stephen-ai-industry-e1prep.md"
        extra.parent.mkdir()
        extra.write_text(BRIEFING.format(line=long_line(args.megabytes)), encoding="utf-8")
        plain = KnowledgeBase(root / "plain", spec, create=True, encoder=encoder)
        plain.ingest([EXAMPLES])
        started = time.perf_counter()
        longer = KnowledgeBase(root / "long-index", spec, create=True, encoder=encoder)
        report = longer.ingest([EXAMPLES, extra.parent])
        print(
            f"ingest with the {extra.stat().st_size / 1e6:.1f} MB briefing: {time.perf_counter() - started:.1f}s, "
            f"{report.records} records, refused {len(report.refused)}"
        )
        times: dict[str, list[float]] = {"plain": [], "long": []}
        hits_long = 0
        for _ in range(args.repeats):
            for query in QUERIES:
                for name, kb in (("plain", plain), ("long", longer)):
                    started = time.perf_counter()
                    response = kb.search(query, 10)
                    times[name].append(1000 * (time.perf_counter() - started))
                    if name == "long":
                        hits_long += any(h.source and h.source.endswith(extra.name) for h in response.results)
        print(f"queries whose top 10 hold the long record: {hits_long} of {args.repeats * len(QUERIES)}\n")
        print(f"{'search (k=10), ms':22} {'with long line':>15} {'without':>10} {'ratio':>7}")
        for label, q in (("p50", 0.5), ("p90", 0.9)):
            with_line, without = percentile(times["long"], q), percentile(times["plain"], q)
            print(f"{label:22} {with_line:15.1f} {without:10.1f} {with_line / without:6.2f}x")
        print(f"{'mean':22} {statistics.mean(times['long']):15.1f} {statistics.mean(times['plain']):10.1f}")
        plain.close()
        longer.close()


if __name__ == "__main__":
    main()
