"""A shared model-family name is not the item, with the real default models (``platforms``):
audit put "阿里云百炼下调 Qwen3 系列输入价格" (a price cut) and "Medusa-3 heads for Qwen3" (a
speculative-decoding release) in one cluster, the same item at 0.37, by the Qwen3 both name
(rare in a small index). Marked slow; runs in CI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import check_json, ingest_rows

pytestmark = pytest.mark.slow

ROWS = [
    {
        "id": "bailian-price",
        "title": "阿里云百炼下调 Qwen3 系列输入价格",
        "text": (
            "阿里云百炼平台宣布下调 Qwen3 系列模型的输入 token 价格，Qwen3-235B"
            " 输入价格降至每百万 token 2 元，降幅 60%，输出价格不变。新价格自 9 月 1"
            " 日起生效，面向所有按量付费用户。"
        ),
        "instance": "jay",
        "date": "2026-08-28",
    },
    {
        "id": "medusa3-qwen3",
        "title": "Medusa-3 heads for Qwen3",
        "text": (
            "The Medusa team released Medusa-3 draft heads"
            " trained for Qwen3 models. Speculative decodi"
            "ng with the new heads reaches a 2.6x decoding"
            " speedup on Qwen3-32B with an acceptance leng"
            "th of 3.4 tokens, and the heads plug into vLL"
            "M's speculative decoding API."
        ),
        "instance": "tom",
        "date": "2026-08-29",
    },
    {
        "id": "eagle-llama",
        "title": "EAGLE-3 adds Llama 4 support",
        "text": (
            "EAGLE-3 speculative decoding now ships draft "
            "models for Llama 4 Scout, with a 3.1x speedup"
            " at batch size 1 on an H100."
        ),
        "instance": "tom",
        "date": "2026-08-20",
    },
    {
        "id": "deepseek-price",
        "title": "DeepSeek API 夜间时段价格下调 50%",
        "text": (
            "DeepSeek 宣布 API 在北京时间 00:30 至 08:30 的夜间时段价格下调"
            " 50%，DeepSeek-V3 与 R1 均适用，缓存命中的输入价格同样减半。"
        ),
        "instance": "jay",
        "date": "2026-08-15",
    },
    {
        "id": "kvquant",
        "title": ("HexKV: 2-bit KV cache quantization merged into SGLang"),
        "text": (
            "HexKV, a 2-bit KV cache quantization scheme w"
            "ith per-channel keys, was merged into SGLang;"
            " on long-context benchmarks it keeps accuracy"
            " within 0.3 points while cutting KV memory by"
            " 7x."
        ),
        "instance": "spark",
        "date": "2026-08-22",
    },
    {
        "id": "vllm-release",
        "title": "vLLM 0.11 released with disaggregated prefill",
        "text": (
            "vLLM 0.11 ships disaggregated prefill as a st"
            "able feature and a new KV connector API; thro"
            "ughput on mixed workloads improves by 1.4x."
        ),
        "instance": "spark",
        "date": "2026-08-25",
    },
]


def test_a_price_cut_and_draft_heads_for_one_model_family_are_two_items(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = ingest_rows(capsys, tmp_path, ROWS)
    _, audited = check_json(capsys, "audit", "--index", str(index))
    clusters = [{c["first_seen"]["id"], *(r["id"] for r in c["repeats"])} for c in audited["clusters"]]
    assert not any({"bailian-price", "medusa3-qwen3"} <= ids for ids in clusters), json.dumps(audited)
