"""Two records that name different systems are two items.

A system's name (TriAttention, PolarKV, TGI) is written alike in Chinese and
English text, and a repeat names what it repeats, however it rewords the
rest. So when a title names a rare system that the other record never
mentions, and the other names a rare system of its own that this one never
mentions, no learned score makes them one item: two KV-cache papers read
alike on every topic word, and may even share a generic key point ("a vLLM
plugin that leaves model code alone"). A name both titles carry settles it the
other way, unless each title also names a system the other never mentions: then
the shared name is a vendor's (NVIDIA Dynamo beside an NVIDIA TensorRT-LLM guide).

A name written with an earlier day's anchor note ("与 TriAttention（9-17 锚定）叠加")
is a citation: the record is about something else, and names the known item as
context, so the name is not shared evidence, unless the record's title names it.
So is a name the record only sets itself against ("Unlike DuoCache, nothing is
quantized", "比 vLLM 快 2 倍", "与 H2O 不同"): a comparison names another item.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from kbsearch.text.anchors import EARLIER_DAY_NOTE, has_earlier_day_note
from kbsearch.text.field_terms import is_not_a_system
from kbsearch.text.misspelled import one_name, spelled_as
from kbsearch.text.ordinals import ordinals_among
from kbsearch.text.plain_names import GENERIC
from kbsearch.text.textsim import has_cjk

# Not an arXiv id after a word ("About 2609.40001" names no product About). A hyphenated
# word is named whole (Kestrel-Serve v2.0 is kestrel-serve, vLLM-Omni 0.2 is vllm-omni), as
# ``features.latin_names`` reads hyphenated names: probe 18 read "Serve" out of "Kestrel-Serve
# v2.0", a name its English twin (no version) never mentions, and stored the repeat as NEW.
_HYPHENATED = r"(?:[A-Za-z0-9]+-)*"
_VERSIONED = re.compile(
    rf"(?<![A-Za-z0-9\-])({_HYPHENATED}[A-Z][a-z]{{2,}}[A-Za-z]*)\s+v?(?!\d{{4}}\.\d{{4,5}}\b)\d+(?:\.\d+)+\b"
)
# The same hyphenated word written without its version ("Kestrel-Serve adds …"): a mention.
_WRITTEN = re.compile(r"(?<![A-Za-z0-9\-])((?:[A-Za-z0-9]+-)+[A-Z][a-z]{2,}[A-Za-z]*)(?![A-Za-z0-9\-])")
_NOT_PRODUCTS = frozenset(
    {"version", "release", "section", "figure", "table", "chapter", "step", "phase", "stage", "level", "appendix"}
    | {"part", "round", "rule", "equation", "apache", "the", "and", "with", "from", "since", "until"}
)


# A writer points at an item anchored on an earlier day by its name and a note:
# "TriAttention（9-17 锚定）", "ExpertFlow (jay 9-22 已锚定)", "C²KV（8-28 已记）".
_CITED = re.compile(rf"(\S{{1,40}}?)\s*[（(][^（()）\n]{{0,30}}?{EARLIER_DAY_NOTE}[^（()）\n]{{0,20}}[）)]")


# Sizes and hardware read as coined names (70b, 40gb, h100, gb300, mi300x, 8x22b), metrics
# and their units (p99, 1ms, 200us), licences (MIT, Apache-2.0) and kinds of chip (LPU, TPU):
# an item told on other hardware, at another size or by another metric is the same system.
# So are racks (NVL72) and the trade's fabrics, units and benchmarks (``field_terms.NOT_SYSTEMS``),
# and a video's or screen's resolution and rate (1080p, 720p, 4K, 60fps, 120Hz): two video
# models both at 1080p share no system, and a title giving its resolution names no system its
# repeat must mention (probe 36 read 1080p as one).
_NOT_A_SYSTEM = re.compile(
    r"(?:\d+x)?\d+(?:\.\d+)?[kmgbt]b?|(?:[abhlvt]|gb|mi|rtx)\d{2,4}[a-z]?"
    r"|\d{3,4}[pi]|\d+(?:\.\d+)?(?:fps|k?hz)"
    r"|nvl\d{2,3}|p\d{2,3}(?:\.\d+)?|\d+(?:\.\d+)?(?:ms|us|µs|ns|s|x|gbps|tbps|gb/s|tok/s)"
    r"|mit|apache(?:-?2(?:\.0)?)?|bsd(?:-\d-clause)?|[al]?gpl(?:-?v?\d(?:\.0)?)?|mpl(?:-?2(?:\.0)?)?"
    r"|[cgtnldi]pu|hbm\d?e?|sram|dram"
)


# Where an item is hosted, published or cleared, not what it is about: "code on GitHub", "weights on
# HF", "accepted at NeurIPS". Probe 22: mira's "…, code on GitHub" was set apart from the
# Chinese record of the same paper, which says nothing of its code; a young index holds such
# a word in few records, so its rarity cannot tell it from a system's name. A short list,
# not a shape: each is written like a coined name (GitHub, arXiv) or an acronym (ICML), and
# a system's own site is named after it (vllm.ai), so a name in a web address is no sign.
# Frameworks (PyTorch, JAX) stay names: a release of one is an item of its own.
_SITES = frozenset(
    {"github", "gitlab", "huggingface", "hf", "modelscope", "arxiv", "openreview", "pypi", "zenodo", "kaggle"}
    | {"neurips", "nips", "icml", "iclr", "acl", "emnlp", "naacl", "coling", "cvpr", "iccv", "eccv", "aaai"}
    | {"ijcai", "kdd", "sigir", "osdi", "sosp", "nsdi", "eurosys", "mlsys", "asplos", "isca", "hpca", "sigcomm"}
    | {"miccai", "icra", "iros", "icassp", "interspeech", "wacv", "semeval", "ieee", "acm"}
    # Regulators: who clears or approves an item ("cleared by FDA", "获 NMPA 批准"), as a venue
    # accepts a paper. Probe 50: in a young index FDA was rare, so "ChestGuard 获 FDA 批准" was
    # set apart from its English record "ChestGuard-PTX — … cleared" ("fda / ptx"). In the dev
    # digests EMA is the moving average: a technique, no system either.
    | {"fda", "ema", "nmpa", "mhra", "pmda", "tga"}
)


def systems_only(names: frozenset[str]) -> frozenset[str]:
    """``names`` without the sizes, hardware, fabrics, units, benchmarks, hosts and venues among them."""
    return frozenset(n for n in names if n not in _SITES and not _NOT_A_SYSTEM.fullmatch(n) and not is_not_a_system(n))


# A name the text sets itself against: "Unlike X", "compared with X", "X vs Y" (the Y),
# "faster than X", "与 X 不同", "相比 X", "不同于 X", "优于 X", "比 X 快". A list joined by
# and/or/、 is read whole ("than H2O and SnapKV"); a comma ends it ("Unlike X, SpillKV …").
# Between 与 and 不同 a name of up to three words is read whole ("与 Sonorus Realtime 不同"):
# the closing word bounds it, where an English "unlike X" has none.
_NAME = r"[A-Za-z0-9][A-Za-z0-9²³\-+.]*"
_LISTED = rf"{_NAME}(?:\s*(?:/|、|和|或|\band\b|\bor\b)\s*{_NAME})*"
_CONTRAST = re.compile(
    r"(?:(?i:\b(?:unlike|compared\s+(?:with|to)|in\s+contrast\s+(?:with|to)|as\s+opposed\s+to|relative\s+to"
    r"|vs\.?|versus|than|outperform(?:s|ed|ing)?|beats?|beating)\s+(?:the\s+)?)"
    r"|不同于|有别于|相比于?|相较于?|优于|胜过|好于|强于)"
    rf"\s*({_LISTED})"
    rf"|(?:与|和|跟|同)\s*({_LISTED}(?:\s+{_NAME}){{0,2}})\s*(?:不同|相比|相较|不一样)"
    rf"|比\s*({_LISTED})\s*(?:更|快|慢|高|低|少|多|好|强|省|小|大|短|长)"
)


def cited_names(text: str, coined: Callable[[str], set[str]]) -> set[str]:
    """The names ``text`` only cites: each written with an earlier day's anchor note, or
    named only where the text compares itself with it (every mention in a comparison).
    ``coined`` reads the names of the words cited (``features.latin_names``)."""
    # Every anchored citation holds the note: most texts hold none, and the lazy
    # name before the bracket made _CITED try each word of them (0.07 ms a record).
    anchored = list(_CITED.finditer(text)) if has_earlier_day_note(text) else []
    contrasted = [(m.start(g), m.end(g)) for m in _CONTRAST.finditer(text) for g in (1, 2, 3) if m.group(g)]
    spans = sorted([(m.start(1), m.end(1)) for m in anchored] + contrasted)
    rest, last = [], 0
    for start, end in spans:
        rest.append(text[last:start])
        last = max(last, end)
    rest.append(text[last:])
    compared = {name for start, end in contrasted for name in coined(text[start:end])}
    return {name for m in anchored for name in coined(m.group(1))} | (compared - coined(" ".join(rest)))


def versioned_names(text: str) -> set[str]:
    """Products named in plain words, told by the version beside them (NVIDIA Dynamo 1.2,
    Llama 3.3), lower-cased: a coined name is recognised by its shape, these only so."""
    return {m.group(1).lower() for m in _VERSIONED.finditer(text)} - _NOT_PRODUCTS


def hyphenated_words(text: str) -> frozenset[str]:
    """The hyphenated words ending in a capitalised word (Kestrel-Serve), lower-cased: the
    shape of a versioned name, so a record writing one without its version mentions it."""
    return frozenset(m.group(1).lower() for m in _WRITTEN.finditer(text))


@dataclass(frozen=True)
class Named:
    """The coined names a record carries, as the rule reads them."""

    title: frozenset[str]
    """The title's rare names (held by few known records)."""
    every: frozenset[str]
    """Every coined name anywhere (title, text, key points), rare or not."""
    is_rare: Callable[[str], bool]
    """Asked only for the few names the rule weighs: each is a lookup in the store."""
    cited: frozenset[str] = frozenset()
    """Names only cited (an earlier day's anchor note, a comparison, a background point), left out of ``every``."""
    title_every: frozenset[str] = frozenset()
    """Every coined name of the title, rare or not (vLLM, NVIDIA)."""
    written: frozenset[str] = frozenset()
    """Hyphenated words written without a version (``hyphenated_words``): mentions only."""
    words: frozenset[str] = frozenset()
    """What the title names, common names and an English title's plain names too (``title_words``)."""
    head: str | None = None
    """The coined name the title begins with (``sourced_names.coined_head``)."""
    sourced: frozenset[str] = frozenset()
    """What the sources name (``sourced_names``): mentions only, of a title led by the same name,
    when the other record's sources name it too."""

    @property
    def mentioned(self) -> frozenset[str]:
        """What the record mentions: its names, and its hyphenated words however written."""
        return self.every | self.written


def names_differ(item: Named, known: Named) -> str | None:
    """Why ``item`` and ``known`` are two items by the systems they name, or None.

    Either title may carry the name: an item titled for its technique
    ("用极坐标量化压缩 KV Cache") names its system (PolarKV) only in its text.
    A name one record writes with a slip (HiCahce) is the other's name (``misspelled``)."""
    return respelled_differ(*respelled(item, known))


def respelled(item: Named, known: Named) -> tuple[Named, Named]:
    """Each side with the names the other writes with a slip written as the other writes
    them, both read against the other's names as given: the same two either way round, so
    a rule reading a pair both ways (``rules.different_names``) respells it once."""
    if item.head is not None and item.head == known.head and (both := item.sourced & known.sourced):
        # Both titles lead with one coined name: a maker one title gives beside it, which both
        # records' sources give, is where the item comes from, no system of its own (``sourced_names``).
        item, known = replace(item, written=item.written | both), replace(known, written=known.written | both)
    return _respelled(item, known.mentioned), _respelled(known, item.mentioned)


def respelled_differ(item: Named, known: Named) -> str | None:
    """``names_differ`` of a pair ``respelled`` already."""
    if item.title & known.mentioned or known.title & item.mentioned:
        # One names what the other's title names: the same system, unless the shared name
        # is only the vendor's and each title names a system the other never mentions
        # (NVIDIA Dynamo against an NVIDIA TensorRT-LLM guide).
        unmentioned = (item.title - known.mentioned, known.title - item.mentioned)
        if not all(unmentioned):
            return shared_name_only(item, known)
        return f"each title names what the other never mentions ({' / '.join(map(_listed, unmentioned))})"
    if item.title:
        if not known.title and item.title_every & known.title_every:
            # Only this title names a rare system, and both titles name a common one
            # ("vLLM v0.30 … over NIXL" against "vLLM v0.30 默认开启 PD 分离"): the rare
            # name may be a detail of the shared subject, so the learned decision weighs it.
            return None
        theirs = f" / {', '.join(sorted(known.title))}" if known.title else ""
        reason = f"a title names what the other record never mentions ({', '.join(sorted(item.title))}{theirs})"
        return reason + _only_cited(item, known)
    ours = sorted(n for n in item.every - known.mentioned if item.is_rare(n)) if known.title else []
    if ours:
        return (
            f"one title names {', '.join(sorted(known.title))}, never mentioned in the other record, "
            f"which names {', '.join(ours)}, never mentioned in the first"
        )
    return None


def _respelled(named: Named, other: frozenset[str]) -> Named:
    """``named`` with each name the other record writes with a slip written as it writes it."""
    return replace(named, title=spelled_as(named.title, other), every=spelled_as(named.every, other))


def _only_cited(item: Named, known: Named) -> str:
    """What the reason adds when ``item`` names the other's system only as a citation."""
    cited = sorted(item.cited & known.title)
    return f"; {', '.join(cited)} only cited here (an anchor note, a comparison or a background point)" if cited else ""


def _listed(names: frozenset[str]) -> str:
    """Names as a reason lists them."""
    return ", ".join(sorted(names))


def texts_name_apart(
    ours: tuple[frozenset[str], tuple[str, ...]], theirs: tuple[frozenset[str], tuple[str, ...]]
) -> str | None:
    """Why two untitled records are two items: each text names a rare system (KVmix, MoQAE)
    that the other record, title, text and key points, never mentions, as two titles would
    (``names_differ``). Each side is its text's rare names and its record's lower-cased
    text (as written, and run together). A digest has no title; its text names the paper's
    system, and a retelling in the other language keeps the name, so two KV-cache
    quantisation papers (KVmix against MoQAE, judge's cosine 0.85) are not one item
    however alike the rest reads. A name one record carries in the other settles nothing."""
    (our_names, our_texts), (their_names, their_texts) = ours, theirs
    if not our_names or not their_names:
        return None
    if any(name in text for name in our_names for text in their_texts):
        return None
    if any(name in text for name in their_names for text in our_texts):
        return None
    if any(one_name(ours, theirs) for ours in our_names for theirs in their_names):
        return None  # one name, written with a slip (``misspelled``)
    return f"each text names what the other record never mentions ({_listed(our_names)} / {_listed(their_names)})"


_CAPITALISED = re.compile(r"[A-Z][a-z]{2,}")
# Two letters are a term of the trade (KV, PD, SM; "PD" retells "prefill-decode"), and a version
# (v0 of "v0.6") is written "0.6" in the other language: neither is what a title names.
_SHORT_OR_VERSION = re.compile(r".{1,2}|v\d+")


def title_words(title: str, systems: frozenset[str]) -> frozenset[str]:
    """What a title names, lower-cased: its coined names, common ones too (``systems``), and
    in an English title in sentence case each capitalised word after the first (Redis of
    "LMCache adds a Redis Cluster backend") but the trade's terms (``plain_names.GENERIC``).
    A title in Title Case capitalises every word, so none of its words is read so. Two-letter
    terms and versions are left out (``_SHORT_OR_VERSION``), and the word a phase or stage is
    counted off by (the Phase of "Phase 2a topline": ``ordinals``, probe 50)."""
    words = re.findall(r"[A-Za-z][A-Za-z0-9'\u2019]*", title)[1:]
    capitalised = [w for w in words if _CAPITALISED.fullmatch(w)]
    if not has_cjk(title) and 2 * len(capitalised) <= len(words):
        plain = frozenset(w.lower() for w in capitalised) - GENERIC
        systems |= systems_only(plain - ordinals_among(plain, title))
    return frozenset(n for n in systems if not _SHORT_OR_VERSION.fullmatch(n))


def shared_name_only(item: Named, known: Named) -> str | None:
    """Why two titles sharing only a rare system's name are two items: each also names
    something (``title_words``) the other record, title, text and key points, never mentions,
    as "LMCache 与 vLLM 的 PD 分离联调踩坑" (vLLM) and "LMCache adds a Redis Cluster backend"
    (Redis) do: two items on one system. A retelling keeps the names it retells, and one adding
    a detail names what the other does, so one side has nothing of its own; titles sharing two
    names (the system and its new part) share more than the system. A common shared name
    (vLLM) is a platform, which ``platforms`` weighs."""
    ours, theirs = spelled_as(item.words, known.mentioned), spelled_as(known.words, item.mentioned)
    shared = ours & theirs
    mine, yours = ours - known.mentioned, theirs - item.mentioned
    if len(shared) != 1 or not mine or not yours or not item.is_rare(next(iter(shared))):
        return None  # titles sharing two names (LMCache, Valkey) are tied by more than the system
    return (
        f"the titles share only {_listed(shared)}; each names what the other record never mentions "
        f"({_listed(mine)} / {_listed(yours)})"
    )
