"""A record's sentences and clauses as passages of their own, for a claim no passage says.

A record's stored passages are its title, its whole text and its key points: a text
under ``CLAIMS_FROM_CHARS`` without 要点 (a short card, a living-doc section) has no
sentence passage. A claim restating one line of such a text, or one clause of a key
point packing several facts ("吞吐仅下降 12%" of "从 8 张降到 4 张，吞吐下降 12%"), was
weighed against the whole text or the packed key point, whose other facts pull every
feature down: a writer who gave each fact its own 要点 was told each was new, though
the same facts in one key point were known.

Read only for a claim the stored passages leave new, and only of the records that may
make it known:

- of a living-doc section, the entries naming the item's arXiv id (or a rare coined name
  of its title, or copying one of its claims word for word: ``item_sentences``), whole
  (the list item or paragraph: a doc names the paper in an entry's first sentence only;
  its other entries are about other papers, so neither their words nor their figures
  count), each sentence with its clauses and the parts "and", "with" or "at" join on that
  state a figure (``figure_parts``); an entry's passage using what the claim says is
  not used ("不使用 LLM-as-judge") does not say it (``denies``); for a claim with a figure,
  the sections listing the item's arXiv id are read first, at their passages stating it;
- of a record judged the same item, the clauses of its key points and the lines of a
  text of several lines (a card's results), and only for a claim with a figure that the
  finer passage saying it states, or a fragment (``fragment``): a one-line summary beside
  the key points is not read, nor a sentence-long claim of words alone (a record's sentence
  rewords most of a same-item claim, and the dev digests' new claims, a method beside a
  summary, are such claims).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Set

import numpy as np

from kbsearch.dedupe.claims import PassageHit, PassageReader, judge_said
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.features import latin_names
from kbsearch.dedupe.named_systems import cited_names
from kbsearch.dedupe.names import holds_word
from kbsearch.dedupe.platforms import platform_names
from kbsearch.dedupe.results import ClaimStatus
from kbsearch.dedupe.rules import Embedded
from kbsearch.dedupe.scorer import Scorer
from kbsearch.dedupe.section_said import as_other_record
from kbsearch.embed import Encoder
from kbsearch.records import Kind, Record
from kbsearch.text.designations import designations
from kbsearch.text.hardware import other_hardware
from kbsearch.text.plain_names import mentions as plain_mentions
from kbsearch.text.quantities import figure_readings, unstated
from kbsearch.text.textsim import numbers, sentences, substantive_numbers

_HAN = re.compile(r"[\u4e00-\u9fff]")
_CLAUSE_END = re.compile(r"[，；：]|[,;:](?=\s)")
"""Where a clause ends: a Chinese comma, semicolon or colon, or an ASCII one before a space
(not the colon of "arXiv:2601.22222" nor the comma of "2,100")."""
MIN_CHARS = 4
"""A shorter clause is a label ("效果：") or a bare figure: it says no fact of its own."""
SPAN = 3
"""Consecutive clauses read together: a claim may restate two or three of a longer sentence's."""
MAX_TEXTS = 32
"""Finer passages per record at most, the first sentences' first (a long abstract is cut)."""


def finer_texts(record: Record, stored: list[str], whole: bool = False) -> list[str]:
    """Each sentence of the record's key points, of the lines of its text when it has several
    (of its text however long with ``whole``), and each run of up to ``SPAN`` of a
    sentence's clauses; none already stored as a passage."""
    lines = [line for line in record.text.splitlines() if line.strip()]
    read = [*record.claims, *(lines if whole or len(lines) > 1 else [])]
    out: dict[str, None] = {}
    for sentence in sentences("\n".join(read)):
        parts = [p.strip(" -•·\t") for p in _CLAUSE_END.split(sentence)]
        parts = [p for p in parts if len(p) >= MIN_CHARS]
        out[sentence] = None
        for start in range(len(parts)):
            for end in range(start + 1, min(start + SPAN, len(parts)) + 1):
                out["，".join(parts[start:end])] = None
    kept = set(stored)
    texts = [t for t in out if t not in kept][:MAX_TEXTS]
    return texts + [t for t in figure_parts(texts) if t not in out and t not in kept] if whole else texts


_JOINED = re.compile(r"\s+(?:and|with|at)\s+")
"""Where an English sentence joins another fact on without a comma: "… is training-free: it guesses
… and reaches 1.5x on chat workloads", "serves 512 adapters … with 1.6x the throughput of S-LoRA"."""


def figure_parts(texts: list[str]) -> list[str]:
    """Of a section's sentences and clauses, each run of up to ``SPAN`` of the parts "and", "with"
    or "at" join that states a figure: a short claim restating that one figure ("聊天负载上加速
    1.5 倍") was weighed against the whole sentence, whose other facts pulled the form's cosine
    down (probe 19)."""
    out: dict[str, None] = {}
    for text in texts:
        joins = list(_JOINED.finditer(text))
        starts, ends = [0, *(j.end() for j in joins)], [*(j.start() for j in joins), len(text)]
        for first in range(len(starts)):
            for last in range(first, min(first + SPAN, len(starts))):
                part = text[starts[first] : ends[last]].strip(" .。")
                if (first, last) != (0, len(joins)) and len(part) >= MIN_CHARS and substantive_numbers(part):
                    out[part] = None
    return list(out)


_ENTRY_START = re.compile(r"(?:[-*+•·]|\d{1,3}[.)、])\s|#{1,6}\s|>|\|")
"""A line starting a list item, a heading, a quote or a table row: an entry of its own."""
_HEADING = re.compile(r"#{1,6}\s")
_ENDS_SENTENCE = re.compile(r"[。！？.!?][)）\]」”\"'*]*$")
"""A line ending a sentence: a plain line after it is a paragraph of its own (the stored text
keeps no blank line), a plain line after one ending mid-sentence continues it."""


def entries(text: str) -> list[str]:
    """A section's entries: each list item, heading or paragraph, a line with the plain lines
    continuing its sentence (a line wrapped mid-sentence; never a heading's)."""
    out: list[str] = []
    for line in text.splitlines():
        if out and not _ENTRY_START.match(line) and not _HEADING.match(out[-1]) and not _ENDS_SENTENCE.search(out[-1]):
            out[-1] += f" {line}"
        elif line.strip():
            out.append(line)
    return out


COPIED = "the section states a claim word for word"
"""Why a section holds an item by a copy of one of its claims (audit reads it: ``doc_subject``)."""
MIN_VERBATIM = 8
"""A claim shorter than this, its words and figures run together, is a label: its copy in a
section's entry does not make the entry one on the item."""


def flat(text: str) -> str:
    """The text's letters, digits and characters run together, lower-cased: a copied line
    told apart from its spacing and punctuation."""
    return re.sub(r"[\W_]+", "", text.lower())


def naming(
    section: Record, ids: set[str], coined: frozenset[str] = frozenset(), copied: tuple[str, ...] = ()
) -> Record | None:
    """The section cut to its entries naming one of ``ids``, a rare coined name of the item
    (``coined``: "SuffixTree", not only compared with: ``cited_names``), or copying one of
    its claims word for word (``copied``, flat) in a sentence naming no other paper; None when none
    does. Each list item or paragraph naming it, whole, and every entry under a heading
    (the section's title or one in its text) naming it; not an entry under it naming only
    another of the section's papers, nor an entry's sentences naming only another
    (``entries``)."""
    others = set(section.arxiv_ids) - ids

    def on_item(text: str) -> bool:
        return (
            any(i in text for i in ids)
            or bool(coined and (named_in(text) - cited_names(text, named_in)) & coined)
            or any(not other(s) and any(c in flat(s) for c in copied) for s in sentences(text))
        )

    def other(text: str) -> bool:
        return any(i in text for i in others)

    said: list[str] = []
    under = on_item(section.title)  # under a heading naming the item: every entry is on it
    for entry in entries(section.text):
        if _HEADING.match(entry):
            under = on_item(entry)
        elif on_item(entry) or (under and not other(entry)):
            kept = [s for s in sentences(entry) if on_item(s) or not other(s)]
            said.append(" ".join(kept))
    said = [s for s in said if s]
    if not said:
        return None
    return section.model_copy(update={"text": "\n".join(said), "arxiv_ids": sorted(ids)})


def named_in(text: str) -> set[str]:
    """The names ``text`` writes: coined ones, plain words a title may name (``plain_names``), Rover-M."""
    return latin_names(text) | plain_mentions(text) | designations(text)


def item_names(told: Embedded, config: DedupeConfig, name_count: Callable[[str], int]) -> frozenset[str]:
    """The rare coined names of the item's title that name the item: not a name the title
    sets it on or does it to (``platforms.platform_names``), as check reads such a name
    between two items (``platform_only``). "Kestrel merged into vLLM main" is named by
    Kestrel; a survey's line on vLLM is no line on it (probe 19: §1 推理引擎, naming vLLM
    beside SGLang, was "in doc" for Kestrel and had held it "since 2026-11-01"). One reading
    for audit's "in doc", check's section evidence and explain's named-systems line. A word-and-letter
    product (``designations``: Rover-M, no coined name) names it too when rare (probe 47)."""
    rare = {n for n in designations(told.record.title) if name_count(n) <= config.rare_name_records}
    title = told.named(config, name_count).title | rare
    return title - platform_names(told.record.title) if title else title


def item_sentences(item: Record, sections: list[Embedded], coined: frozenset[str] = frozenset()) -> list[Record]:
    """Of the living-doc sections, the entries on the item (``section_on_item``), each section's
    as a record of its own (its id and kind kept: it is the section)."""
    copied = copies(item)
    out = []
    for section in sections:
        if section.record.kind is not Kind.doc_section:
            continue
        found = section_on_item(item, section.record, coined, copied)
        if found is not None:
            out.append(found[0])
    return out


def copies(item: Record) -> tuple[str, ...]:
    """The item's claims (its text without any) run together (``flat``), those long enough
    that a section's copy of one is a copy and not a label (``MIN_VERBATIM``)."""
    return tuple(c for c in map(flat, item.claim_texts() or [item.text]) if len(c) >= MIN_VERBATIM)


def section_on_item(
    item: Record, section: Record, coined: frozenset[str] = frozenset(), copied: tuple[str, ...] | None = None
) -> tuple[Record, str] | None:
    """The section's word on the item, and why it is on it; None when it says none. Its entries
    (``naming``) naming one of the item's arXiv ids or a rare coined name of its title
    (``coined``: a doc names a system it folded in without a paper by its name), or copying one
    of its claims word for word (an editor's line pasted into a briefing, when the section lists
    none of its papers: a survey's line sharing the topic words is no copy). ``check`` reads
    these entries as the section's evidence for the item's claims, and ``audit`` lists such a
    section "in doc" in the item's cluster: one rule for both."""
    shared = set(item.arxiv_ids) & set(section.arxiv_ids)
    coined = names_about(item.title, coined)
    # A section listing the item's paper has its lines on it: a copy of another entry is another's.
    cut = naming(section, shared, coined, () if shared else copies(item) if copied is None else copied)
    if cut is None:
        return None
    if shared:
        return cut, f"the section lists arXiv {', '.join(sorted(shared))}"
    if other_hardware(item.title, cut.text):
        return None  # its lines are on another chip (probe 49: TPU v8p's, for TPU v7's price cut)
    # The name the item's title leads with first: "OpenHarness: … speaking MCP and A2A" is
    # named by OpenHarness, not by the protocols it speaks.
    title = item.title.lower()
    names = sorted(named_in(cut.text) & coined, key=lambda n: (title.find(n) % (len(title) + 1), n))
    if not names:
        return cut, COPIED
    at = cut.text.lower().find(names[0])  # the name as the section writes it
    return cut, f"the section names {cut.text[at : at + len(names[0])] if at >= 0 else names[0]}"


_LEAD_END = re.compile(r"[：；，]|[:;,](?=\s)|\s[-–—]+\s|—")
"""Where a title's leading part ends: "Vireo 1.0 开源：面向多 LoRA 的推理引擎"."""
_SET_FOR = re.compile(r"(?:面向|针对|适用于|专为)[^，。；：:]{0,24}?的")
"""What a title says its item is for: "面向多 LoRA 的推理引擎" (a name there is not the item)."""


_KIND = re.compile(r"\s*(?:an?\s|一个|一款|一种|一套)")
"""An indefinite description after a title's lead ("kestrel: a small Python MCP client library",
"Kestrel, an MCP server"): what kind of thing the item is, not its name."""


def names_about(title: str, coined: frozenset[str]) -> frozenset[str]:
    """Of the item's coined names (``item_names``), those its title is about: not one in a
    "面向 X 的" clause (what the item is for) nor in an indefinite description after the lead
    (``_KIND``: what kind of thing it is), and of the rest those in the title's leading part,
    before its first colon, comma or dash, when it names one there. "Vireo 1.0 开源：面向多
    LoRA 的推理引擎" is about Vireo: a survey section on multi-LoRA serving (S-LoRA, Punica)
    names LoRA, not Vireo (probe 26: it was "in doc" for Vireo and held it first). "kestrel:
    a small Python MCP client library" is named by no coined name: a section's line on MCP
    servers or MCP client libraries is a line on the field, not on it (probe 32: its claims
    were known from "MCP server 的写操作应默认关闭" read as the item's own line)."""
    if not coined:
        return coined
    parts = _LEAD_END.split(_SET_FOR.sub(" ", title.lower()))
    if len(parts) > 1 and _KIND.match(parts[1]):
        parts = [parts[0], *parts[2:]]
    about = " ".join(parts)
    kept = frozenset(n for n in coined if holds_word(about, n))
    return frozenset(n for n in kept if holds_word(parts[0], n)) or kept


class FinerPassages:
    """Each record's finer passages with the index encoder's vectors, made once per check."""

    def __init__(self, encoder: Encoder) -> None:
        self.encoder = encoder
        self._made: dict[tuple[str, str], Embedded | None] = {}

    def of(self, record: Record, stored: list[str]) -> Embedded | None:
        """The record's finer passages (``finer_texts``) as a record of their own; a section's
        sentences naming the item (``item_sentences``) are read whole."""
        key = (record.id, record.text)
        if key not in self._made:
            texts = finer_texts(record, stored, whole=record.kind is Kind.doc_section)
            self._made[key] = Embedded(record, self.encoder.encode(texts), texts) if texts else None
        return self._made[key]

    def hits(self, vector: np.ndarray, records: list[tuple[Record, list[str]]]) -> list[PassageHit]:
        """Every finer passage of ``records`` (each with its stored passages) with its cosine
        to the claim's ``vector``."""
        finer = [f for f in (self.of(*each) for each in records) if f is not None]
        hits = [PassageHit(f, i, float(c)) for f in finer for i, c in enumerate(f.vectors @ vector)]
        return sorted(hits, key=lambda hit: -hit.cosine)  # nearest first: a tie of the judge's cosine keeps them


Finer = tuple[FinerPassages, PassageReader, Scorer, bool]
"""The finer passages, the reader, ``claim_said`` and whether the item restates its paper."""


def finer_said(
    claim: str, vector: np.ndarray, shown: ClaimStatus, same: list[Embedded], sections: list[Record], finer: Finer
) -> ClaimStatus:
    """``shown``, a claim the stored passages leave new, or known when a finer passage says
    it (the decision of ``claims.judge_said``, the record taken for the same item) and no
    figure of it is new: first of the sections' entries naming the item, unless the claim
    says what the passage uses is not used (``denies``), then of the same-item records, for
    a claim with a figure that the passage saying it states."""
    if shown.known:
        return shown
    figures = substantive_numbers(claim)
    # A section listing the item's own arXiv id, read first at its passages stating the claim's
    # figures: a survey entry on the item by a coined name covering more of the claim's words
    # ("选型时看吞吐…") was weighed instead of the one stating "1.6x the throughput of S-LoRA".
    listing: list[tuple[Record, list[str]]] = [(s, []) for s in sections if s.arxiv_ids] if figures else []
    stating = _said(claim, vector, listing, finer, figures) if listing else None
    if stating is not None and stating.known and not denies(claim, stating):
        return stating.model_copy(update={"cosine_known": shown.cosine_known})
    on_sections: list[tuple[Record, list[str]]] = [(s, []) for s in sections]
    clause_read = bool(figures) or fragment(claim)  # what a same-item record's clauses may say
    readings = [(on_sections, False), ([(k.record, k.passages) for k in same if clause_read], True)]
    but_figures = None  # a passage saying all of the claim but a figure: the one to show, not the nearest
    for records, same_item in readings:
        said = _said(claim, vector, records, finer)
        if said is None:
            continue
        # A same-item passage must state the claim's figures; a section's entry, read whole, not gainsay it.
        if said.known and not (_unstated(said, figures, claim) if same_item else denies(claim, said)):
            return said.model_copy(update={"cosine_known": shown.cosine_known})
        if not said.known and said.new_numbers and said.score >= said.threshold:
            but_figures = but_figures or said
    if but_figures is not None and shown.score < shown.threshold:  # 2.4x said of H100, the claim's is on H200
        return but_figures.model_copy(update={"cosine_known": shown.cosine_known})
    return shown


def _said(
    claim: str,
    vector: np.ndarray,
    records: list[tuple[Record, list[str]]],
    finer: Finer,
    figures: Set[str] = frozenset(),
) -> ClaimStatus | None:
    """``judge_said`` on the records' finer passages; with ``figures``, only those stating them all."""
    passages, reader, form, restatement = finer
    hits = passages.hits(vector, records) if records else []
    if figures:
        rough = figure_readings(claim)
        hits = [h for h in hits if not unstated(figures, numbers(h.known.passages[h.index]), rough)]
    if not hits:
        return None
    said = judge_said(claim, hits, {r.id for r, _ in records}, reader, form, restatement)
    return as_other_record(said, form)  # a section's entry, read as the item's record to pick its passages


_DENIED = re.compile(
    r"(?:不再|(?<![尚仍还])不|未|并未|没有)(?:使用|采用|用|依赖)\s*(?P<zh>[A-Za-z][\w.+-]*(?:[- ][A-Za-z][\w.+-]*)?)"
    r"|\b(?:does not|doesn't|do not|don't|no longer|without)\s+(?:using|uses?|relying on|relies on|rely on)\s+"
    r"(?:an?\s+|the\s+)?(?P<en>[A-Za-z][\w.+-]*(?:[- ][A-Za-z][\w.+-]*)?)",
    re.IGNORECASE,
)
"""A claim saying something is not used ("不使用 LLM-as-judge", "no longer uses FlashAttention")."""
_NEGATED = re.compile(r"(?:不|未|没有|无需|no|not|without|n't)[^，。；,.;]{0,6}$", re.IGNORECASE)


def denies(claim: str, said: ClaimStatus) -> bool:
    """Whether the claim says what the passage saying it uses is not used: "评分方式：不使用
    LLM-as-judge" says the opposite of a section's "评测用 LLM-as-judge 打分", whose every
    other word it shares."""
    passage = said.best_text or ""
    for match in _DENIED.finditer(claim):
        term = (match["zh"] or match["en"]).lower()
        at = passage.lower().find(term)
        if at >= 0 and not _NEGATED.search(passage[max(0, at - 12) : at]):
            return True
    return False


FRAGMENT_WORDS = 6
"""A claim of at most this many words ("Keyed by content hash", "按内容哈希索引"), a Chinese
character counting half, restates a clause: weighed against a whole key point packing
several facts it was new (probe 23: 0.03 for "…缓存 embedding 向量，按内容哈希索引"). The dev
digests' claims, a method or a result in a sentence, are longer but for under 1%."""


def fragment(claim: str) -> bool:
    """Whether ``claim`` is a fragment (``FRAGMENT_WORDS``), read against clauses."""
    latin = len(re.findall(r"[A-Za-z0-9]+", claim))
    return latin + len(_HAN.findall(claim)) / 2 <= FRAGMENT_WORDS


def _unstated(said: ClaimStatus, figures: set[str], claim: str) -> bool:
    """Whether the passage saying the claim leaves one of its figures unstated."""
    return bool(unstated(figures, numbers(said.best_text or ""), figure_readings(claim)))
