"""Typed results of ``check`` and ``audit``: the CLI prints them as text or JSON and the TUI
shows them, one source of truth for what a verdict says."""

from __future__ import annotations

import datetime as dt
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field, model_validator

from kbsearch.dedupe.claim_decision import ClaimDecision, scored
from kbsearch.dedupe.claim_explanation import ClaimExplanation
from kbsearch.dedupe.flag_results import Flag as Flag
from kbsearch.dedupe.flag_results import FlagKind as FlagKind
from kbsearch.dedupe.item_words import worded
from kbsearch.filters import SearchFilter
from kbsearch.records import Kind
from kbsearch.responses import ListedRecord
from kbsearch.text.polarity import why_new

Outcome = Literal["checked", "stored", "replaced", "unchanged", "refused", "skipped"]
FIRST_TEXT = "A living-doc section changed after the check's day, read with its text of its first date (``date``)."


class Verdict(StrEnum):
    NEW = "NEW"
    """Nothing known describes the same paper, event or benchmark."""
    UPDATE = "UPDATE"  # the same item is known, but some of the claims are new
    DUPLICATE = "DUPLICATE"  # the same item is known and nothing in it is new


class Rule(StrEnum):
    """What settled a same-item judgement."""

    shared_id = "shared_id"
    """Both records are about one arXiv id."""
    cited_id = "cited_id"
    """One only cites the id the other is about: not the same item."""
    different_ids = "different_ids"
    """Both are about arXiv ids, none in common: different items."""
    identical_text = "identical_text"
    card_title = "card_title"
    """Two paper cards' titles name one paper, or two."""
    different_names = "different_names"
    """Each title names a rare system the other record never mentions: two items."""
    new_release = "new_release"
    """A later release of one product whose record gives the earlier one (``subjects.new_release``): one item."""
    doc_section = "doc_section"
    """A living-doc section covers a field: never the same item as an increment or a card
    (unless both are about one arXiv id), only evidence for the claims it states."""
    learned = "learned"  # the learned same-item decision: ``probability`` against ``threshold``
    surer_match = "surer_match"
    """Learned to be the same item, but the item's surer match is a different item from this
    record, or the arXiv ids set apart a record this one is surely the item of: the weaker yields."""


RELATION = "What the record is to the item: same item; evidence (a living-doc section: never the item); another item."
STATES_CLAIMS = "The item's claims (from 1) whose passage shown is this record's and says them (but for a new figure)."
PROBABILITY = (
    "The learned same-item probability, computed for every pair: only read when rule is learned or surer_match."
)


class Match(BaseModel):
    """A known record compared with the item under check."""

    id: str
    kind: Kind
    title: str
    instance: str | None
    date: dt.date | None
    relation: str = Field(default="", description=RELATION)
    states_claims: list[int] = Field(default_factory=list, description=STATES_CLAIMS)
    score: float = Field(description="Cosine of the two whole records under the index's model.")
    lexical: float
    """Overlap of Chinese bigrams and English words (0 across languages)."""
    probability: float = Field(description=PROBABILITY)
    threshold: float = Field(description='The probability at or above which the learned decision says "same item".')
    same_item: bool = Field(description="Whether it is the same item as the one compared: ``rule`` says what decided.")
    rule: Rule = Field(description="What decided ``same_item``: exact evidence, or the learned decision.")
    reasons: list[str] = Field(default_factory=list)
    """Why it is (or is not) the same item, in words."""
    features: dict[str, float] = Field(default_factory=dict)
    """What the learned decision read (kbsearch.dedupe.features): with the config, enough to re-decide."""
    shared_ids: list[str] = Field(default_factory=list)  # arXiv ids both records are about
    cited_ids: list[str] = Field(default_factory=list)  # ids one is about and the other only cites: not the same item
    first_text: bool = Field(default=False, description=FIRST_TEXT)

    @property
    def decided_by(self) -> str:
        """A match line's first column: the probability when the learned decision settled it, else "rule"
        (a rule overrules the probability, 1.00 beside "not the same item"; the reason line names the rule)."""
        return f"{self.probability:.2f}" if self.rule in (Rule.learned, Rule.surer_match) else "rule"

    @property
    def form(self) -> str:
        """Which learned form read the pair (``DedupeConfig.same_item_for``), by what it read."""
        return form_of(self.features)


def form_of(features: dict[str, float]) -> str:
    """The learned form a pair's features are read by: each has its own threshold, so a reason
    naming a threshold names its form too (probe 35: 0.45 beside 0.55, unexplained)."""
    claims, aligned = "claims_covered" in features, "aligned" in features
    return {(True, True): "key points, aligned", (True, False): "key points", (False, True): "aligned"}.get(
        (claims, aligned), "summary"
    )


class ClaimEvidence(BaseModel):
    """One passage the claim decision weighed: the best of the same-item records', or of the
    others' (a record that says that very fact). With the config, enough to re-decide."""

    id: str
    same_item: bool
    probability: float
    features: dict[str, float]
    new_numbers: list[str] = Field(default_factory=list)
    """Result numbers of the claim that this passage's record does not carry."""
    key_point: bool = False
    """The passage is one of its record's own key points (要点), not its title, whole
    text or a sentence cut from the text: a key point the claim restates carries the
    numbers it adds as detail, unless one is a figure changed (``claim_numbers.numbers_make_new``)."""
    changes_a_figure: bool = False  # a number the record lacks can be one of its figures changed (8 → 4 H200)
    added_counts: bool = False
    """Those numbers only count what the claim adds in detail (``quantities.added_counts``):
    a passage that surely says the claim carries them (``claim_numbers.SURELY_SAID``)."""
    moved_on: str | None = None
    """"<then> → <now>" when the claim says the item reached a later stage than this passage (else its
    record) says (``stages.moved_on``): a passage that says it otherwise does not make it known."""


# What a claim's fields mean, in the output schemas an agent reads (the MCP tools', /api/openapi.json).
KNOWN = "Said already: score ≥ threshold, cosine_known or restated, and no new number or stage."
SCORE = "The probability (0 to 1), by decided_by's form, that the best passage says it: a same-item record's, else any."
RESTATED = "Known with score below threshold: another card of a paper that has one; only a new number is new."
COSINE_KNOWN = "With claim_said: whether the judge's cosine decision alone calls the claim known (either suffices)."
DECIDED_BY = "The decision whose score and threshold are shown (its config key), or restated; null in older results."


DECISION = "In words: known or new, by which decision at its threshold; an override (overridden_by) first."
OVERRIDDEN_BY = "Of a new claim whose score clears its threshold: new numbers, stage or another item, which decided."


class ClaimStatus(BaseModel):
    text: str
    known: bool = Field(description=KNOWN)
    decision: str = Field(default="", description=DECISION)
    overridden_by: str | None = Field(default=None, description=OVERRIDDEN_BY)
    score: float = Field(description=SCORE)
    threshold: float = Field(description="The probability at or above which a passage says the same.")
    restated: bool = Field(default=False, description=RESTATED)
    cosine: float | None = None  # of the claim and that passage
    best_id: str | None = None
    best_kind: Kind | None = None
    """The kind of that record: when living-doc sections (``doc_section``) state every claim of an
    item no record is the same item as, the item is a DUPLICATE."""
    best_instance: str | None = None
    best_date: dt.date | None = None
    best_text: str | None = None
    best_first_text: bool = Field(default=False, description=FIRST_TEXT)
    new_numbers: list[str] = Field(default_factory=list)
    """Result numbers in the claim that the matched records do not carry (a section, issue, figure or
    version number is not a result)."""
    moved_on: str | None = None
    """Of a new claim: the stage it moves its item on to from the one the matched record told ("review → merged")."""
    extra_numbers: list[str] = Field(default_factory=list)
    """Of a known claim: numbers its records do not state, taken as detail beside
    figures they do state rather than a changed figure (``quantities.new_figures``),
    so the claim stays known; shown so that the figure is not lost."""
    features: dict[str, float] = Field(default_factory=dict)
    """What the claim decision read of the passage shown (``best_id``): with the config, enough to re-decide it."""
    evidence: list[ClaimEvidence] = Field(default_factory=list)
    """With ``claim_said``: the passages it weighed, each with its own probability (a same-item record's, another's)."""
    cosine_known: bool | None = Field(default=None, description=COSINE_KNOWN)
    decided_by: ClaimDecision | None = Field(default=None, description=DECIDED_BY)

    @property
    def how_said(self) -> str:
        """What a claim line says after the record it names: the deciding form's score against
        its threshold (``decided_by``), and why a NEW claim clearing it is new; of a restated claim, that."""
        if self.restated:
            return "a card of the same paper: a claim is known unless it brings a new number"
        if self.score < self.threshold:  # says nothing of the claim: only the nearest there is
            nearest = scored(self.decided_by, self.score, "<", self.threshold)
            return f"is the nearest{',' if self.decided_by is None else ''} {nearest}"
        said = f"says the same {scored(self.decided_by, self.score, '≥', self.threshold)}"
        if self.known and self.decided_by is ClaimDecision.background:
            return f"{said}: a fact the key point recalls as background"
        return f"{said}, {self.new_though_said}" if self.new_though_said else said

    @property
    def passage_shown(self) -> bool:
        """Whether a claim line quotes its passage: when it says the claim, or all of it
        but a figure, a stage or the item (the old figure is what the user compares)."""
        return bool(self.best_text) and (self.known or bool(self.new_though_said))

    @property
    def new_though_said(self) -> str:
        """Why a NEW claim whose passage clears the threshold is new, for the clause
        after its score ("" otherwise): a line must not read as known."""
        if self.said_by_another_item:
            return "but is not the same item"
        if self.known or self.score < self.threshold:
            return ""
        if self.new_numbers:
            return "but with new numbers"
        return why_new(self.moved_on or "")

    @property
    def said_by_another_item(self) -> bool:
        """New although its closest passage says the same: that passage is of a
        record that is not the same item (a claim is known only from one that is)."""
        return not self.known and self.score >= self.threshold and not self.new_numbers and not self.moved_on


class ItemResult(BaseModel):
    """The verdict on one incoming item, with its evidence."""

    id: str
    title: str
    kind: Kind
    instance: str | None
    date: dt.date | None
    verdict: Verdict
    reason: str
    """One line: why this verdict."""
    matches: list[Match] = Field(default_factory=list)
    claims: list[ClaimStatus] = Field(default_factory=list)
    flags: list[Flag] = Field(default_factory=list)
    first_seen: Match | None = None
    """The earliest known record of the same item; with none, the earliest
    living-doc section stating every claim (``verdict.stating_sections``)."""
    held_in_doc: Match | None = None  # a doc section holding the item dated before first_seen (verdict.held_in_doc)
    stated_in_doc: list[str] = Field(default_factory=list)  # no record the same item: sections stating claims
    as_of: dt.date | None = None
    """Records dated after this day were not compared: ``--as-of``, else the item's own date when records
    written after it are stored. Undated records were compared either way: they cannot be shown to be later."""
    resubmitted: bool = False  # this very text is stored under this id (an earlier accept): not compared with itself
    own_earlier_version: bool = False
    """A same-item match is the record stored under this item's id with other
    text: the item itself, accepted or ingested before and edited since."""
    edited: bool = False
    """A DUPLICATE of its own earlier version alone (reworded, no new fact, no other record the same item):
    an edit, which does not fail the check, and which ``--accept`` stores in place of that version."""
    outcome: Outcome = "checked"
    """What this run did with the item: ``checked`` (no ``--accept``), ``stored`` (a new record),
    ``replaced`` (over the record under its id: an edit), ``unchanged`` (stored so already), ``refused``,
    ``skipped`` (a DUPLICATE left out by ``--skip-duplicates``: ``CheckResult.skipped``)."""
    notes: list[str] = Field(default_factory=list)
    """What is worth knowing about the comparison, such as a later record that would also be the same item."""

    @model_validator(mode="after")
    def _worded(self) -> ItemResult:
        """Each match's relation and claims stated, each claim's decision in words (``item_words``)."""
        worded(self)
        return self


class SkippedItem(BaseModel):
    """A DUPLICATE that ``--accept --skip-duplicates`` left out while storing the other items."""

    id: str
    title: str
    repeats: list[str]
    """What it repeats: the records (or earlier items of this same input) that are the same item, the one
    its reason names first; with none, the living-doc sections that state every claim of it."""
    reason: str  # the verdict's one-line reason


class CheckResult(BaseModel):
    input: str
    model: str
    as_of: dt.date | None
    items: list[ItemResult]
    flags: list[Flag] = Field(default_factory=list)  # about the input as a whole, such as its arXiv id table
    accepted: list[str] = Field(default_factory=list)
    """Ids stored by ``--accept``: every item, or none when any is a DUPLICATE (not an edit)."""
    unchanged: list[str] = Field(default_factory=list)
    """Of ``accepted``, the ids stored already with this very content (the same submission
    accepted again): nothing was written for them. Each item's ``outcome`` says the same."""
    created_index: str | None = None  # the index folder ``--accept`` created (there was none), else None
    accept_refused: str | None = None  # why ``--accept`` stored nothing (a DUPLICATE among the items), else None
    skipped: list[SkippedItem] = Field(default_factory=list)
    """``--accept --skip-duplicates``: the DUPLICATEs (not edits) left out; every other item was stored."""
    warnings: list[str] = Field(default_factory=list)
    """What the parser skipped or could not tell in the input (an increment with
    no title, no writer named), as ``ingest`` reports them."""
    notes: list[str] = Field(default_factory=list)
    """About the input as a whole, no problem: a briefing that says it has 0 increments today."""

    @property
    def exit_code(self) -> int:
        """0 when every item is NEW, UPDATE, an edit or skipped (``--skip-duplicates`` did what it was asked:
        the rest is stored), 1 when any other is a DUPLICATE of something else."""
        skipped = {s.id for s in self.skipped}
        return 1 if any(_repeat(i) and i.id not in skipped for i in self.items) else 0

    def refuse(self, skip_duplicates: bool = False) -> bool:
        """Set ``accept_refused`` (``accept_refusal``) and, when refused, every item's outcome; True if refused.
        ``skip_duplicates``: never refused; the DUPLICATEs go to ``skipped`` and the rest may be stored."""
        if skip_duplicates:
            self.skipped = [_skipped(item) for item in self.items if _repeat(item)]
            for item in self.items:
                item.outcome = "skipped" if _repeat(item) else item.outcome
            self.accept_refused = None
            return False
        self.accept_refused = self.accept_refusal()
        for item in self.items if self.accept_refused else []:
            item.outcome = "refused"
        return self.accept_refused is not None

    def accept_refusal(self) -> str | None:
        """Why accepting must store nothing (its DUPLICATE items, by id); None when it may store every item."""
        duplicates = [item.id for item in self.items if _repeat(item)]
        if not duplicates:
            return None
        named = ", ".join(duplicates[:5]) + (f" and {len(duplicates) - 5} more" if len(duplicates) > 5 else "")
        one = len(duplicates) == 1
        return (
            f"nothing accepted: {len(duplicates)} item{'' if one else 's'} {'is a' if one else 'are'} "
            f"DUPLICATE{'' if one else 's'} ({named}); drop {'it' if one else 'them'} from the input, "
            "or keep only what is new in it, and check again"
        )


def _repeat(item: ItemResult) -> bool:
    """A DUPLICATE of something other than its own earlier version: what the gate keeps out."""
    return item.verdict is Verdict.DUPLICATE and not item.edited


def _skipped(item: ItemResult) -> SkippedItem:
    same = sorted(
        (m for m in item.matches if m.same_item and m.id != item.id), key=lambda m: m.kind is Kind.doc_section
    )
    identical = [m.id for m in same if m.rule is Rule.identical_text][:1]  # the one its reason names, when any
    repeats = list(dict.fromkeys(identical + [m.id for m in same]))
    if not repeats:  # every claim stated by living-doc sections (verdict.stating_sections)
        repeats = sorted({c.best_id for c in item.claims if c.known and c.best_id})
    return SkippedItem(id=item.id, title=item.title, repeats=repeats, reason=item.reason)


class RuleFinding(BaseModel):
    """What one same-item rule says about two records (``kbsearch explain``)."""

    rule: str
    """The rule, in ``compare``'s order: ``arxiv ids``, ``identical text``, ``paper-card titles``, ``learned``."""
    says: bool | None
    """True: the same item; False: different items; None: no say on this pair, the next rule is asked."""
    detail: str
    """The evidence the rule read, with the values and thresholds."""


class Neighbours(BaseModel):
    """``kbsearch similar ID``: a stored record's nearest records, each judged as ``check`` judges."""

    record: ListedRecord
    model: str
    k: int
    filters: SearchFilter
    matches: list[Match]
    """Same-item records first, then by cosine: the ``k`` nearest, and any sharing an arXiv id."""
    seconds: float


class Explanation(BaseModel):
    """``kbsearch explain A B``: whether two stored records are one item, and what every rule saw."""

    a: ListedRecord
    b: ListedRecord
    model: str
    match: Match  # the judgement ``check`` would make of B as a known record for A
    rules: list[RuleFinding]
    """Every rule in the order they are applied; the first with a say decides."""
    notes: list[str] = Field(default_factory=list)
    """Where ``check`` may read the pair otherwise (what explain cannot see of A)."""
    as_of: dt.date | None = None
    """``--as-of``: the index read as a check that day read it (later records and A hidden)."""
    claim: ClaimExplanation | None = None  # ``--claim N``: why check calls A's claim N known or new
    form_why: str = ""  # which learned form read the pair, and why that one (as check reads A coming in)
