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

from kbsearch.text.function_words import FUNCTION_WORDS
from kbsearch.text.ordinals import ordinals_among
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


# A title led by a product and its version, a short run of ordinary words between: "Lumen CLI v2",
# "Harrowgate SDK 2.3.1", "Ferrule MCP server 0.4：…". The head word names the product. Probe 32:
# read nowhere (no colon after it, not alone in its Latin run, its version not beside it), the
# Ferrule record's title named only its vendor, and another server of that vendor's was taken for it.
_HEAD_RELEASE = re.compile(
    r"^\s*([A-Z][a-z]{2,})((?:\s+(?:[a-z]{2,}|[A-Z]{2,5}))){1,3}\s+(?:v\d+(?:\.\d+)*|\d+(?:\.\d+)+)(?![\w.%+])"
)
_VERB = re.compile(r"(?:ing|ed)$")


def title_plain_names(title: str) -> frozenset[str]:
    """The plain-word names of a title, lower-cased: its head word before a dash, colon or
    bracket or owning the rest, or before the product words and version it leads (``_HEAD_RELEASE``),
    and in a Chinese title each capitalised Latin word standing alone between its characters
    (``_alone``). Not the word a phase or stage is counted off by ("进入 Phase 1 临床": ``ordinals``)."""
    found = {m.group(1) for m in [_HEAD.match(title)] if m}
    release = _HEAD_RELEASE.match(title)
    # Not a sentence ("Scores rose to 2.5") nor one led by its verb ("Announcing server v2").
    if release and not FUNCTION_WORDS & set(release.group(2).lower().split()) and not _VERB.search(release[1]):
        found.add(release.group(1))
    if has_cjk(title):
        found |= {w for run in _LATIN_RUN.split(_PART.sub(" ", title)) for w in _alone(run)}
    plain = frozenset(w.lower() for w in found if w.lower() not in GENERIC)
    return (plain - ordinals_among(plain, title)) | _head_pair(title)


_LATIN_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff—–:：（）()【】「」《》]+")
"""Where a Chinese title's Latin runs end: its characters, dashes, colons and brackets."""


# A word a Chinese title writes before the kind of code part it is ("Runner 接口", "Session 类"):
# a part of the system the title is about, as "the Runner interface" is in an English title,
# whose plain words but the head are no names. Probe 32: "Runner" read as the name of
# "Quillon 1.0 … Runner 接口" tied it to the record deprecating a class for the Runner API.
_PART = re.compile(r"(?<![A-Za-z0-9\-_.])[A-Z][a-z]{2,}\s*(?:接口|类|函数|参数|字段)")


def _alone(run: str) -> list[str]:
    """The run's plain word when it is the run's only word: "Thimble" of "Thimble 已合入", not
    "Buffer" of "No Buffer, No Bottleneck" (an English phrase, a paper's title, names no system)."""
    words = re.findall(r"[A-Za-z][A-Za-z0-9'’]*", run)
    return _PLAIN_WORD.findall(run) if len(words) == 1 else []


# Two capitalised plain words joined by a hyphen leading a title, or alone in a Chinese title's
# Latin run ("Vireo-Gen — … 文本生成视频模型"): the name the title is about, as one plain word
# before a dash is. Probe 36: Sablewing-Motion, Quillon-Motion, Vireo-Gen, Osprey-Cam were read
# nowhere, for ``product_names`` reads a Word-Word only with a product line's word (Pro, Mini)
# or its maker written alone elsewhere, and ``textsim.name_tokens`` splits the hyphen and finds
# two plain words; so a video model's title named nothing, and another lab's human-motion model
# was taken for it. Ordinary English (Long-Context, Multi-Agent) and describing words after the
# hyphen (Mask-Guided) make no name.
_PAIR = re.compile(r"([A-Z][a-z]{2,})-([A-Z][a-z]{1,})")
# Leading a title and then a dash, colon or bracket, Chinese, or a lower-case word or version
# ("Vireo-Gen clip length doubles", "Brindle-Voice v2"): not a Title Case paper's title, whose
# next word is capitalised too ("Log-Linear Attention": a technique, no product).
_PAIR_LEADS = re.compile(
    r"^\s*[\"“「《]?([A-Z][a-z]{2,}-[A-Z][a-z]{1,})"
    r"(?=\s*(?:[—–:：(（]|-\s|$|[\u3400-\u9fff])|['’]s\s|\s+[a-z0-9])"
)


def _head_pair(title: str) -> frozenset[str]:
    """The title's Word-Word name (``_PAIR``), lower-cased: its first word, or in a Chinese title
    a Latin run's only word."""
    pairs = [m.group(1) for m in [_PAIR_LEADS.match(title)] if m]
    if has_cjk(title):
        for run in _LATIN_RUN.split(title):
            words = run.split()
            if len(words) == 1 and _PAIR.fullmatch(words[0]):
                pairs.append(words[0])
    return frozenset(p.lower() for p in pairs if _names_pair(*p.lower().split("-")))


def _names_pair(first: str, second: str) -> bool:
    """Whether a Word-Word's words (lower-cased) may name a product: the first no ordinary word."""
    return not ordinary(first) and not _DESCRIBES.search(second)


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


# A product named by two plain words joined by a hyphen (Quill-Vision, Orbit-Mini, Nova-Flash):
# a maker's name and the product's. Probe 30: read nowhere, "Quill-Vision 公布 API 定价" shared
# no name with its record "Quill 发布多模态模型 Quill-Vision" and was taken for "Quill 下调
# Quill-Pro API 价格"; "Orbit 发布小模型 Orbit-Mini" for Orbit-3's news.
_WORD_WORD = re.compile(r"(?<![A-Za-z0-9\-_.+²³])([A-Z][a-z]{2,})-([A-Z][a-z]{1,})(?![A-Za-z0-9\-_+²³])")
PRODUCT_SUFFIXES = frozenset({"pro", "mini", "max", "flash", "vision", "turbo", "lite", "ultra", "nano", "plus"})
"""The words a maker names a product line by (Quill-Pro, Orbit-Mini): after a name, a product."""
# Ordinary English a Title Case title capitalises on both sides of a hyphen (Open-Source,
# Zero-Copy, Long-Context, Multi-Agent, Fine-Grained, Real-Time): no product. A word of either
# side here, or of ``GENERIC``, makes no name; "State-of-the-Art" and "Mixture-of-Experts"
# have a lower-case part and are not read at all.
_ENGLISH = frozenset(
    {"source", "zero", "copy", "short", "state", "art", "low", "high", "rank", "real", "time", "fine", "grained"}
    | {"plug", "play", "next", "key", "value", "few", "shot", "test", "pre", "post", "decoder", "encoder"}
    | {"only", "edge", "cloud", "mixed", "precision", "end", "top", "down", "one", "two", "single", "dual"}
    | {"self", "cross", "non", "semi", "sub", "super", "hyper", "ultra", "full", "half", "step", "text", "image"}
    | {"language", "instruction", "tuned", "chain", "thought", "layer", "level", "wise", "aware", "free", "based"}
    | {"driven", "world", "human", "machine", "deep", "neural", "graph", "task", "user", "level", "grain", "agentic"}
    | {"computer", "min", "style"}
    | {"general", "purpose", "domain", "specific", "global", "local", "online", "offline", "read", "write", "like"}
)


def product_names(text: str) -> set[str]:
    """The plain-word hyphenated names of ``text`` read as products, lower-cased: Quill-Vision,
    Orbit-Mini. Each side a capitalised word, neither of ordinary English (``_ENGLISH``,
    ``GENERIC``), and either the second a product line's word (``PRODUCT_SUFFIXES``) or the
    first written alone in running text as the maker's name ("Quill 发布… Quill-Voice"), the
    second then no describing word (``_DESCRIBES``)."""
    if "-" not in text:
        return set()
    found = set()
    alone: frozenset[str] | None = None
    for head, tail in _WORD_WORD.findall(text):
        maker, line = head.lower(), tail.lower()
        if ordinary(maker) or (line not in PRODUCT_SUFFIXES and ordinary(line)):
            continue
        if line not in PRODUCT_SUFFIXES:
            alone = _makers(text) if alone is None else alone
            if maker not in alone or _DESCRIBES.search(line):
                continue
        found.add(f"{maker}-{line}")
    return found


# A describing word after the hyphen (Knowledge-Rich, Mask-Guided, Byzantine-Resilient,
# Information-Theoretic): a paper's adjective, not a product line.
_DESCRIBES = re.compile(r"(?:ed|ic|al|ble|ive|ness|ing|ous|ent|ant|ful|less|ary|ory|rich)$")
_MAKER = re.compile(r"(?<![A-Za-z0-9\-_.+²³])([A-Z][a-z]{2,})(?=\s+[a-z]|\s*[\u3400-\u9fff])")


def _makers(text: str) -> frozenset[str]:
    """The capitalised words ``text`` writes alone in running text, lower-cased: before a
    lower-case word or Chinese ("Quill 发布…", "Lumen ships…"), not a word of a Title Case
    title ("Knowledge Distillation via Knowledge-Rich …"), where no maker is named."""
    return frozenset(w.lower() for w in _MAKER.findall(text))


def ordinary(word: str) -> bool:
    """Whether a lower-cased word is ordinary English or a term of the trade, no maker's name."""
    return word in _ENGLISH or word in GENERIC
