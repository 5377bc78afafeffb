"""Names written as plain words: Larkspur, Thimble, Cohort.

``features.latin_names`` reads a name by its shape (TriAttention, vLLM, RSVP): a plain
capitalised word is most often an English sentence's first word ("Improving …",
"Serving …"), so it is no name there. Yet writers give systems plain-word names, and a
title shows where one is the name: the head of "Cohort — a shared KV pool for agents" or
"Thimble: …", and a Latin word in a Chinese title ("Larkspur 在代码任务上的新测数",
"Thimble 已合入 vLLM 主干"), where Latin words are names or terms of the trade. Read
nowhere, such a name never tied a repeat to its record or to the living-doc section on
it (probe 23: the section naming Larkspur was not read as on the item, its facts were
called new, and "Thimble 已合入 vLLM 主干" was split from Thimble's record by vLLM alone).

A plain word is a name only in a title; anywhere else it is a mention (``mentions``), as
a hyphenated word written without its version is.
"""

from __future__ import annotations

import re

from kbsearch.text.textsim import has_cjk

_PLAIN_WORD = re.compile(r"(?<![A-Za-z0-9\-_.+²³])([A-Z][a-z]{2,})(?![A-Za-z0-9\-_²³+])")
_HEAD = re.compile(r"^\s*([A-Z][a-z]{2,})(?:\s*(?:[—–:：]|-\s|（|\()|['’]s\s)")
"""A title's head word before a dash, a colon or a bracket, or its owner ("Larkspur's dynamic
draft tree"): the name the title is about."""

# Plain words a writer capitalises that name no system: terms of the trade and the words an
# English title starts with. A term read as a name would be rare in a young index, and the
# names rule would split two records of one item, one writing "Agent", one "智能体".
GENERIC = frozenset(
    {"agent", "agents", "cache", "model", "models", "serving", "inference", "benchmark", "transformer"}
    | {"attention", "token", "tokens", "prompt", "memory", "kernel", "router", "scheduler", "server"}
    | {"cluster", "engine", "framework", "survey", "review", "paper", "update", "release", "news"}
    | {"note", "report", "study", "dataset", "training", "decoding", "quantization", "compression"}
    | {"speculative", "sparse", "mixture", "expert", "experts", "pipeline", "workflow", "tool", "tools"}
    | {"the", "new", "how", "why", "what", "when", "towards", "toward", "beyond", "improving"}
    | {"efficient", "fast", "faster", "scaling", "learning", "large", "small", "open", "multi", "long"}
    | {"context", "reasoning", "retrieval", "search", "code", "chat", "vision", "audio", "video", "data"}
    | {"github", "arxiv", "python", "linux", "windows", "docker", "kubernetes", "google", "meta"}
)


def title_plain_names(title: str) -> frozenset[str]:
    """The plain-word names of a title, lower-cased: its head word before a dash, colon or
    bracket or owning the rest, and in a Chinese title each capitalised Latin word standing alone
    between its characters (``_alone``)."""
    found = {m.group(1) for m in [_HEAD.match(title)] if m}
    if has_cjk(title):
        found |= {w for run in _LATIN_RUN.split(title) for w in _alone(run)}
    return frozenset(w.lower() for w in found if w.lower() not in GENERIC)


_LATIN_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff—–:：（）()【】「」《》]+")
"""Where a Chinese title's Latin runs end: its characters, dashes, colons and brackets."""


def _alone(run: str) -> list[str]:
    """The run's plain word when it is the run's only word: "Thimble" of "Thimble 已合入", not
    "Buffer" of "No Buffer, No Bottleneck" (an English phrase, a paper's title, names no system)."""
    words = re.findall(r"[A-Za-z][A-Za-z0-9'’]*", run)
    return _PLAIN_WORD.findall(run) if len(words) == 1 else []


def head_plain_name(title: str) -> frozenset[str]:
    """The title's first word when it is one of its plain-word names (``title_plain_names``):
    "Brimstone — …", "Larkspur 在代码任务上的新测数"; a title leads with its subject."""
    words = title.split()
    first = re.sub(r"['’]s$", "", words[0].strip('"“”「」《》')) if words else ""
    return title_plain_names(title) & {first.strip("'").lower()}


def mentions(text: str) -> frozenset[str]:
    """Every capitalised plain word of ``text``, lower-cased: where a record mentions a
    plain-word name (a name is written capitalised, "Thimble's drafts …")."""
    return frozenset(w.lower() for w in _PLAIN_WORD.findall(text))


def words_mentioned(text: str) -> frozenset[str]:
    """Every Latin word of ``text``, lower-cased, and its singular: where a record mentions a
    plain-word name its title may carry, in any case ("Key" of "旋转后的 4 比特 Key" is
    mentioned by "quantising keys"; probe: a term read as a name split a retelling)."""
    words = {w.lower() for w in re.findall(r"[A-Za-z]{3,}", text)}
    return frozenset(words | {w[:-1] for w in words if w.endswith("s")})
