"""Terms of the field written like coined names: LoRA, RAG, MoE, NVLink, GPU-hour, SWE-bench.

A name's rarity is read from how many records of the index hold it: a name few records
hold is a system's own (TriAttention, Vireo), and two records sharing it are likely one
item. A technique or a kind of model written as an acronym or in camel case looks like
such a name, and a young index (tens to a few hundred records) holds it in few records
too: probe 26 joined "Kubernetes Gateway API inference extension … routes by LoRA
adapter" to "Vireo 1.0 开源：面向多 LoRA 的推理引擎" as one item through "LoRA", held by
two records. A term names a field many items belong to however few records hold it yet,
so it never counts as a rare name (``dedupe.names.NameHolders.count``). Written by hand:
each is a technique, a training method or a kind of model of LLM systems, never one
system; two-letter ones (KV, PD, TP) are never looked up at all (too short).

The trade's ordinary vocabulary is the same (probes 27 and 29, GPU operations and coding
agents): in a week's index NVLink, GPU-hour, PUE, SWE-bench and PostgreSQL were each held
by a handful of records, so Marlin's B200 outage and Kestrel's H200 outage were one item
("both name nv-link (rare)"), two clouds' price cuts were one ("both name GPU-hour"), two
coding agents were one ("both name swebench"), and a repeat titled with NVSwitch or
InfiniBand was set apart from its first report, which wrote neither ("a title names what
the other record never mentions (nvswitch)"). Some of these terms are not systems at all
(``NOT_SYSTEMS``): a fabric, a unit or metric, a benchmark, a quantization format is what an
item runs on, is measured in, scored on or stored in, never what it is, so it neither joins two items nor sets two
apart (``dedupe.named_systems.systems_only``), as the chip an item runs on (H100) does not.

A name is compared with its hyphens taken out: a text writes NVLink, a reading of it
apart gives nv-link, and run together gpuhour (``features.other_spellings``).
"""

from __future__ import annotations

from kbsearch.text.currencies import CODES as CURRENCY_CODES

# Never rare, never a system: what an item runs on, is measured in or is scored on.
NOT_SYSTEMS = frozenset(
    # Interconnects and fabrics: the links and networks GPUs and hosts are wired with. Two
    # outages on NVLink, two clusters on InfiniBand NDR are two items; a repeat that names
    # the fabric its first report left out (NVSwitch firmware, "IB" for InfiniBand) is one.
    {"nvlink", "nvswitch", "nvlinkc2c", "infiniband", "ib", "roce", "rocev2", "ndr", "hdr", "xdr", "edr"}
    | {"pcie", "pcie4", "pcie5", "pcie6", "cxl", "ethernet", "rdma", "gpudirect", "ualink", "uec"}
    # Units and metrics: what a price, a loss or a service level is counted in. A price per
    # GPU-hour is every cloud's; a fleet's PUE or MFU is a figure of it, not its name; nor is
    # a leaderboard's Elo ("进入 … 排行榜，Elo 1287" named Elo alone in its Latin run).
    | {"gpuhour", "gpuhours", "gpuhr", "gpuhrs", "pue", "wue", "mfu", "hfu", "tco", "mtbf", "mttr", "iops"}
    | {"flops", "tflops", "pflops", "eflops", "tops", "ttft", "tpot", "qps", "rps", "slo", "slos", "sla", "slas"}
    | {"kwh", "mwh", "gwh", "xid", "ecc", "elo"}
    # Currencies: what a price, a round or an order is counted in (RMB, USD; ``currencies``).
    | CURRENCY_CODES
    # Benchmarks: the yardstick a result is scored on. Two coding agents' SWE-bench Verified
    # scores are two items; a benchmark's own release is told by its version (``subjects``).
    | {"swebench", "swe", "humaneval", "mbpp", "mmlu", "mmlupro", "gsm8k", "mtbench", "terminalbench"}
    | {"taubench", "livecodebench", "gpqa", "aime", "arenahard", "alpacaeval", "ifeval", "bfcl", "webarena"}
    | {"osworld", "longbench", "hellaswag"}
    # Quantization methods and formats: what a checkpoint is stored in, never the model. An
    # official 4-bit AWQ re-upload of a model is news of that model (probe 34: "a title names
    # what the other record never mentions (awq)" set it apart from every record of it), and
    # two models' GGUF builds are two items.
    | {"awq", "gptq", "gguf", "ggml", "exl2", "exl3", "hqq", "aqlm", "bnb", "bitsandbytes", "safetensors"}
    | {"fp4", "fp6", "fp8", "nvfp4", "mxfp4", "mxfp6", "mxfp8", "int2", "int3", "int4", "int8", "nf4"}
    | {"w4a16", "w8a8", "w4a8", "w8a16", "w4a4"}
)

# Never rare, but systems: the backends, runtimes and protocols items plug into or run on.
# Two Postgres MCP servers, two fleets on ROCm are two items, so a shared mention joins
# nothing; a release of one ("ROCm 6.4", "Redis 8.0") is still read by the release rules
# (``subjects.releases``), and a title naming one is about it (``platforms``), so they stay
# names. Not here: platforms whose own news is the trade's items (Kubernetes and its DRA,
# Slurm and its GRES, Ray, MCP): "The official MCP registry" is named by MCP, and a doc
# section naming MCP states its claims (probe 27); "Kubernetes 1.35 的 DRA 正式 GA" is told
# from the NVIDIA device plugin by DRA (probe 29). Their counts in the index decide.
_PLATFORMS = {"postgresql", "postgres", "pgvector", "mysql", "redis", "sqlite", "mongodb", "s3", "docker"} | {
    "cuda",
    "rocm",
    "nccl",
    "rccl",
    "dcgm",
    "grpc",
    "openaicompatible",
}

FIELD_TERMS = frozenset(
    # adapters and fine-tuning
    {"lora", "qlora", "dora", "peft", "sft"}
    # retrieval, prompting and learning in context
    | {"rag", "cot", "icl"}
    # preference and reinforcement learning
    | {"rlhf", "dpo", "grpo", "ppo"}
    # architectures: experts, attention variants, state-space models, model kinds
    | {"moe", "mla", "gqa", "mqa", "mha", "ssm", "vlm", "mllm"}
    | _PLATFORMS
    | NOT_SYSTEMS
)


def is_field_term(name: str) -> bool:
    """Whether ``name`` (lower-cased, as ``features.latin_names`` gives it) is a term of the field."""
    return name in FIELD_TERMS or name.replace("-", "") in FIELD_TERMS


def is_not_a_system(name: str) -> bool:
    """Whether ``name`` (lower-cased) is a fabric, unit, metric or benchmark (``NOT_SYSTEMS``)."""
    return name in NOT_SYSTEMS or name.replace("-", "") in NOT_SYSTEMS
