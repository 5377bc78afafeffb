"""The rules: is a known record the same item, is a claim already known.

Pure functions over records and their passage vectors; ``check.py`` and
``audit.py`` fetch the candidates from the store and call these.

Evidence, strongest first:
1. Exact identifiers. Two records about the same arXiv id are the same paper;
   two records about different ids are different papers; a record that only
   cites the id the other is about is a different item.
2. Identical text.
3. A paper card's title is its paper's name: two cards with one title are
   one paper, and two cards whose titles in one language share little are two
   papers, however alike their summaries (papers on one topic read alike).
4. A rare name heading both titles (TriAttention, C²KV), or opening both
   texts, with a moderate cosine: rewrites of one item often share little else.
5. Meaning plus surface: cosine of the whole records, plus (within one
   language) the overlap of Chinese bigrams and English words. Across
   languages the overlap means little, so the cosine stands alone.

Claims: a claim is known when a passage says the same and it brings no
number the known records lack. Two cards of one paper summarise one fixed
text, so a later card's sentence is known unless it brings a new number.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.results import ClaimStatus, Match, RuleFinding, Verdict
from kbsearch.records import Kind, Record
from kbsearch.textsim import (
    head_names,
    jaccard,
    language,
    lexical_tokens,
    name_tokens,
    normalized,
    sentences,
    substantive_numbers,
)

# Word overlap of two paper titles below which they name different papers; a
# revised title ("Sparse Draft Trees…" → "Adaptive Sparse Draft Trees…") keeps most words.
DIFFERENT_TITLE_OVERLAP = 0.5
# Shorter titles ("Introduction", "Results") are headings, not names.
TITLE_MIN_WORDS = 3


@dataclass
class Embedded:
    """A record with one unit vector per passage (``Record.passages()`` order)."""

    record: Record
    vectors: np.ndarray
    passages: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.passages:
            self.passages = self.record.passages()
        self.whole_text = self.record.embed_text()
        self.language = language(self.whole_text)
        self.tokens = lexical_tokens(self.whole_text)
        self.numbers = substantive_numbers(self.whole_text + "\n" + "\n".join(self.record.claims))
        self.lead_names = name_tokens(lead_sentence(self.record))
        self._features: dict[int, tuple[str, set[str]]] = {}

    def passage_features(self, index: int) -> tuple[str, set[str]]:
        """(language, lexical tokens) of one passage, computed once."""
        if index not in self._features:
            text = self.passages[index]
            self._features[index] = (language(text), lexical_tokens(text))
        return self._features[index]

    @classmethod
    def whole_only(cls, record: Record, whole: np.ndarray) -> Embedded:
        """A record with only its whole-record vector: all that ``compare`` reads.
        ``audit`` uses it to avoid loading every title and claim vector."""
        text = record.embed_text()
        return cls(record, np.asarray(whole, dtype=np.float32)[None, :], [text])

    @cached_property
    def whole(self) -> np.ndarray:
        """The whole-record vector (looked up once: ``compare`` reads it for every pair)."""
        index = self.passages.index(self.whole_text) if self.whole_text in self.passages else 0
        return self.vectors[index]


def compare(
    item: Embedded,
    known: Embedded,
    config: DedupeConfig,
    is_rare: Callable[[str], bool],
    is_rare_in_text: Callable[[str], bool] | None = None,
) -> Match:
    """Decide whether ``known`` describes the same item, and say why."""
    a, b = item.record, known.record
    same_language = item.language == known.language
    cosine = config.calibrated(float(item.whole @ known.whole), not same_language)
    lexical = jaccard(item.tokens, known.tokens) if same_language else 0.0
    shared = sorted(set(a.arxiv_ids) & set(b.arxiv_ids))
    cited = sorted((set(a.arxiv_ids) & set(b.cited_ids)) | (set(a.cited_ids) & set(b.arxiv_ids)))
    same, reasons = _same_item(item, known, cosine, lexical, shared, cited, config, is_rare, is_rare_in_text or _never)
    return Match(
        id=b.id,
        kind=b.kind,
        title=b.title,
        instance=b.instance,
        date=b.date,
        score=round(cosine, 4),
        lexical=round(lexical, 4),
        same_item=same,
        reasons=reasons,
        shared_ids=shared,
        cited_ids=[c for c in cited if c not in shared],
    )


def lowest_same_item_cosine(config: DedupeConfig) -> float:
    """The lowest whole-record cosine at which a rule of ``compare`` can call two
    records the same item, apart from the rules that ignore the cosine (a shared
    arXiv id, identical text). Lexical overlap adds at most 1. The thresholds are
    on the dedupe scale; the result is the model's own cosine."""
    lowest = min(
        config.shared_name_cosine,
        config.shared_lead_name_cosine,
        config.same_item_cross_lingual,
        config.same_item - config.lexical_weight,
    )
    return min(config.raw_cosine(lowest, cross_lingual=False), config.raw_cosine(lowest, cross_lingual=True))


def _same_item(
    item: Embedded,
    known: Embedded,
    cosine: float,
    lexical: float,
    shared: list[str],
    cited: list[str],
    config: DedupeConfig,
    is_rare: Callable[[str], bool],
    is_rare_in_text: Callable[[str], bool],
) -> tuple[bool, list[str]]:
    a, b = item.record, known.record
    if shared:
        return True, [f"both are about arXiv {', '.join(shared)}"]
    if cited:
        return False, [f"one only cites arXiv {', '.join(cited)}, which the other is about"]
    if a.arxiv_ids and b.arxiv_ids:
        return False, ["about different arXiv ids"]
    if normalized(item.whole_text) == normalized(known.whole_text):
        return True, ["identical text"]
    by_title = _same_paper_title(a, b)
    if by_title is not None:
        return by_title
    by_name = _shared_rare_name(item, known, cosine, config, is_rare, is_rare_in_text)
    if by_name:
        return True, [by_name]
    if item.language != known.language:
        same = cosine >= config.same_item_cross_lingual
        return same, [
            f"{item.language}/{known.language} cosine {cosine:.2f} "
            f"{'≥' if same else '<'} {config.same_item_cross_lingual:.2f}"
        ]
    combined = cosine + config.lexical_weight * lexical
    same = combined >= config.same_item
    if not config.lexical_weight:
        return same, [f"cosine {cosine:.2f} {'≥' if same else '<'} {config.same_item:.2f}"]
    return same, [f"cosine {cosine:.2f} + overlap {lexical:.2f} {'≥' if same else '<'} {config.same_item:.2f}"]


def _shared_rare_name(
    item: Embedded,
    known: Embedded,
    cosine: float,
    config: DedupeConfig,
    is_rare: Callable[[str], bool],
    is_rare_in_text: Callable[[str], bool],
) -> str | None:
    """Why a rare name both records lead with makes them one item, or None."""
    names = sorted(n for n in head_names(item.record.title) & head_names(known.record.title) if is_rare(n))
    if names and cosine >= config.shared_name_cosine:
        return f"titles share the name {', '.join(names)}; cosine {cosine:.2f}"
    lead = sorted(n for n in item.lead_names & known.lead_names if is_rare_in_text(n))
    if lead and cosine >= config.shared_lead_name_cosine:
        return f"both open with the name {', '.join(lead)}; cosine {cosine:.2f}"
    return None


def lead_sentence(record: Record) -> str:
    """The first sentence of the body (else of the first claim): where a
    summary names its subject. Names further on are often related work."""
    for text in (record.text, *record.claims[:1]):
        found = sentences(text)
        if found:
            return found[0]
    return ""


def _never(_: str) -> bool:
    return False


def _same_paper_title(a: Record, b: Record) -> tuple[bool, list[str]] | None:
    """The verdict of two paper cards' titles, or None when titles do not settle it."""
    if a.kind is not Kind.paper_card or b.kind is not Kind.paper_card:
        return None
    if min(len(a.title.split()), len(b.title.split())) < TITLE_MIN_WORDS:
        return None
    if normalized(a.title) == normalized(b.title):
        return True, ["paper cards with the same title"]
    if language(a.title) != language(b.title):
        return None
    overlap = jaccard(lexical_tokens(a.title), lexical_tokens(b.title))
    if overlap < DIFFERENT_TITLE_OVERLAP:
        return False, [f"paper cards with different titles (word overlap {overlap:.2f})"]
    return None


def rule_findings(
    item: Embedded,
    known: Embedded,
    config: DedupeConfig,
    is_rare: Callable[[str], bool],
    is_rare_in_text: Callable[[str], bool],
) -> list[RuleFinding]:
    """What every rule of ``compare`` says about the pair, in its order; the
    first one with a say is the one ``compare`` decides by."""
    a, b = item.record, known.record
    same_language = item.language == known.language
    cosine = config.calibrated(float(item.whole @ known.whole), not same_language)
    shared = sorted(set(a.arxiv_ids) & set(b.arxiv_ids))
    cited = sorted((set(a.arxiv_ids) & set(b.cited_ids)) | (set(a.cited_ids) & set(b.arxiv_ids)))
    found = [RuleFinding(rule="arxiv ids", says=None, detail="no arXiv id is about both, or cited by one")]
    if shared:
        found[0] = RuleFinding(rule="arxiv ids", says=True, detail=f"both are about arXiv {', '.join(shared)}")
    elif cited:
        found[0] = RuleFinding(rule="arxiv ids", says=False, detail=f"one only cites arXiv {', '.join(cited)}")
    elif a.arxiv_ids and b.arxiv_ids:
        found[0] = RuleFinding(rule="arxiv ids", says=False, detail="about different arXiv ids")
    identical = normalized(item.whole_text) == normalized(known.whole_text)
    found.append(RuleFinding(rule="identical text", says=True if identical else None, detail=_yes_no(identical)))
    by_title = _same_paper_title(a, b)
    found.append(
        RuleFinding(rule="paper-card titles", says=None, detail="not two paper cards with titles that settle it")
        if by_title is None
        else RuleFinding(rule="paper-card titles", says=by_title[0], detail="; ".join(by_title[1]))
    )
    titles = sorted(n for n in head_names(a.title) & head_names(b.title) if is_rare(n))
    found.append(_name_finding("rare title name", titles, cosine, config.shared_name_cosine))
    leads = sorted(n for n in item.lead_names & known.lead_names if is_rare_in_text(n))
    found.append(_name_finding("rare lead name", leads, cosine, config.shared_lead_name_cosine))
    found.append(_cosine_finding(item, known, cosine, config))
    return found


def _yes_no(identical: bool) -> str:
    return "identical text" if identical else "the texts differ"


def _name_finding(rule: str, names: list[str], cosine: float, threshold: float) -> RuleFinding:
    if not names:
        return RuleFinding(rule=rule, says=None, detail="no rare name in common")
    held = cosine >= threshold
    return RuleFinding(
        rule=rule,
        says=True if held else None,
        detail=f"share {', '.join(names)}; cosine {cosine:.2f} {'≥' if held else '<'} {threshold:.2f}",
    )


def _cosine_finding(item: Embedded, known: Embedded, cosine: float, config: DedupeConfig) -> RuleFinding:
    if item.language != known.language:
        same = cosine >= config.same_item_cross_lingual
        detail = f"{item.language}/{known.language} cosine {cosine:.2f} {'≥' if same else '<'} "
        return RuleFinding(rule="cosine", says=same, detail=detail + f"{config.same_item_cross_lingual:.2f}")
    lexical = jaccard(item.tokens, known.tokens)
    combined = cosine + config.lexical_weight * lexical
    same = combined >= config.same_item
    sign = "≥" if same else "<"
    overlap = f" + {config.lexical_weight:g} × overlap {lexical:.2f}" if config.lexical_weight else ""
    return RuleFinding(rule="cosine", says=same, detail=f"cosine {cosine:.2f}{overlap} {sign} {config.same_item:.2f}")


def restates_same_paper(item: Record, same_items: list[Embedded]) -> bool:
    """Whether the item is a paper card and a known card is the same paper."""
    return item.kind is Kind.paper_card and any(k.record.kind is Kind.paper_card for k in same_items)


@dataclass
class PassageHit:
    """A known passage found for one claim of the item."""

    known: Embedded
    index: int
    cosine: float


def judge_claim(
    claim: str,
    vector: np.ndarray,
    hits: list[PassageHit],
    same_items: list[Embedded],
    config: DedupeConfig,
    restatement: bool = False,
) -> ClaimStatus:
    """Known when some passage says the same, and no number in it is unseen.

    ``hits`` come from a search over everything known and must clear the
    strict thresholds; every passage of a same-item record is compared too,
    against the lower same-item thresholds. With ``restatement`` (a card of a
    paper that already has one) only an unseen number makes the claim new.
    """
    claim_language, claim_tokens = language(claim), lexical_tokens(claim)
    candidates = [(hit, False) for hit in hits]
    for known in same_items:
        scores = known.vectors @ vector
        candidates += [(PassageHit(known, i, float(s)), True) for i, s in enumerate(scores)]
    best: tuple[float, float, PassageHit] | None = None
    for hit, same_item in candidates:
        passage_language, passage_tokens = hit.known.passage_features(hit.index)
        cross = passage_language != claim_language
        cosine = config.calibrated(hit.cosine, cross)
        score = cosine if cross else cosine + config.lexical_weight * jaccard(claim_tokens, passage_tokens)
        threshold = _claim_threshold(config, cross, same_item)
        if best is None or score - threshold > best[0] - best[1]:
            best = (score, threshold, hit)
    if best is None:
        return ClaimStatus(text=claim, known=False, score=0.0)
    score, threshold, hit = best
    seen_numbers = hit.known.numbers.union(*(k.numbers for k in same_items))
    unseen = sorted(substantive_numbers(claim) - seen_numbers)
    record = hit.known.record
    said_before = score >= threshold or restatement
    return ClaimStatus(
        text=claim,
        known=said_before and not unseen,
        score=round(score, 4),
        best_id=record.id,
        best_instance=record.instance,
        best_date=record.date,
        best_text=hit.known.passages[hit.index][:300],
        new_numbers=unseen,
    )


def _claim_threshold(config: DedupeConfig, cross_lingual: bool, same_item: bool) -> float:
    if same_item:
        return config.claim_known_same_item_cross_lingual if cross_lingual else config.claim_known_same_item
    return config.claim_known_cross_lingual if cross_lingual else config.claim_known


def decide(item: Embedded, matches: list[Match], claims: list[ClaimStatus]) -> tuple[Verdict, str]:
    """The verdict and a one-line reason."""
    same = [m for m in matches if m.same_item]
    identical = [m for m in same if "identical text" in m.reasons]
    if identical:
        return Verdict.DUPLICATE, f"identical text to {identical[0].id}"
    if not same:
        best = f"; closest {matches[0].id} at {matches[0].score:.2f}" if matches else ""
        return Verdict.NEW, "no known record describes the same item" + best
    new = [c for c in claims if not c.known]
    if not new:
        return Verdict.DUPLICATE, f"same item as {same[0].id}, and all {len(claims)} claims are known"
    numbers = sorted({n for c in new for n in c.new_numbers})
    extra = f" (new numbers: {', '.join(numbers)})" if numbers else ""
    return Verdict.UPDATE, f"same item as {same[0].id}, {len(new)} of {len(claims)} claims new{extra}"
