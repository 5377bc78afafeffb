"""Typed records: what every parser produces and the store keeps.

One flat ``Record`` model serves increments, paper cards and living-doc
sections, so the store, search and dedupe never branch on where a record came
from. Kind-specific fields are optional.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Iterator
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, computed_field

from kbsearch.text.textsim import sentences

# Long texts are cut before embedding: the models read a few hundred tokens at
# most, and the head of a record (title, TLDR, first points) carries its gist.
EMBED_CHARS = 2000
# Vector ids pack (record rowid, passage number) into one int64; see store.py.
MAX_PASSAGES = 64
PASSAGES_VERSION = 3
"""How ``Record.passages`` chooses: 1 embedded every sentence of every text;
2 embeds the sentences of a text only when it is long or its claims are
given, and never a sentence that repeats the whole text or the title; 3
never takes a markdown heading line ("## Method" in a card) for a sentence.
An index written by another version is re-chosen by ``kbsearch reindex``."""
CLAIMS_FROM_CHARS = 300
"""A text shorter than this (about three sentences) is embedded whole,
without its sentences: a query or claim about one of them still meets the
whole text's vector, and each sentence vector is one more to store and search."""
CLAIM_MAX_SHARE = 0.6
"""A sentence this large a share of the whole text repeats it: no vector of its own."""


class Kind(StrEnum):
    increment = "increment"
    paper_card = "paper_card"
    doc_section = "doc_section"


class Record(BaseModel):
    """One searchable unit of knowledge."""

    # Its JSON schema describes it as sent (with the computed content_hash):
    # `kbsearch show` over MCP and the JSON API sends records, never receives them.
    model_config = ConfigDict(extra="forbid", json_schema_mode_override="serialization")

    id: str
    """Stable id: given by the input, or derived from source file and position."""
    kind: Kind
    title: str = ""
    text: str = ""
    """The body used for embedding and display (TLDR, key points, section text)."""
    date: dt.date | None = None
    """When its text was written: a doc section's, the day its text last changed (``first_date``)."""
    first_date: dt.date | None = None
    """A living-doc section whose text changed: the day it was first stored, earlier than
    ``date`` (None when it never changed); ``first_text`` is its text as it was that day."""
    first_text: str | None = None
    """A living-doc section whose text changed: its text on ``first_date`` (what it held then)."""
    instance: str | None = None
    """Which writer produced it (tom, jay, ...), lower-case."""
    signed_at: str | None = Field(default=None, pattern=r"^([01]\d|2[0-3]):[0-5]\d$")
    """The time of day ("HH:MM") its briefing's signature gives with its date (a last line
    ``Tom · 2026-10-05 22:20``): audit's first of one day's records (None: not given)."""
    topic: str | None = None
    arxiv_ids: list[str] = Field(default_factory=list)
    """arXiv ids the record is *about* (its subject)."""
    cited_ids: list[str] = Field(default_factory=list)
    """arXiv ids the record only cites (related work, context)."""
    tags: list[str] = Field(default_factory=list)
    source: str | None = None
    """The file the record was read from."""
    position: int = Field(default=0, ge=0, lt=2**63)
    """Ordinal of the record inside its source file (an SQLite integer, hence the bound)."""
    section: str | None = None
    """Section path: suggested section of an increment, or a doc section's own path."""

    # Increments
    number: int | None = None
    stars: int | None = None
    claims: list[str] = Field(default_factory=list)
    """Key points (要点), one claim each."""
    sources: list[str] = Field(default_factory=list)
    """来源 lines."""
    credibility: str | None = None
    relation: str | None = None
    """与活文档现有脉络的关系."""
    caveats: list[str] = Field(default_factory=list)
    """警示 lines: what the writer warns about the item (vendor numbers, unconfirmed ids)."""
    anchor: str | None = None
    """A first-anchoring marker such as 首次锚入 or 本次新增, when the writer claims novelty."""

    # Paper cards
    card_number: str | None = None
    category: str | None = None

    def embed_text(self) -> str:
        """The text the encoder sees: title first, then the body (the claims,
        when a record has claims but no text of its own)."""
        body = self.text.strip() or "\n".join(c.strip() for c in self.claims)
        parts = [self.title.strip(), body]
        return "\n".join(p for p in parts if p)[:EMBED_CHARS]

    def claim_texts(self) -> list[str]:
        """The record's claims: its key points (要点), else the sentences of its text."""
        if self.claims:
            return [c.strip()[:EMBED_CHARS] for c in self.claims if c.strip()]
        found = sentences(self.text)
        return found if len(found) > 1 else []

    def passages(self) -> list[str]:
        """The texts embedded for this record: its title, the whole record,
        and each claim on its own when the text is long or its claims are
        given (see ``CLAIMS_FROM_CHARS``).

        A record matches a query or a claim through its best passage. One
        vector for a whole briefing increment blurs its point: a short query
        about one of its claims loses to an unrelated record that happens to
        be shorter.
        """
        title, whole = self.title.strip(), self.embed_text()
        texts = [title, whole, *self._claim_passages(title, whole)]
        unique = list(dict.fromkeys(t for t in texts if t))
        return unique[:MAX_PASSAGES]

    def _claim_passages(self, title: str, whole: str) -> list[str]:
        if not self.claims and len(whole) < CLAIMS_FROM_CHARS:
            return []
        folded_title = " ".join(title.lower().split())
        return [
            claim
            for claim in self.claim_texts()
            if " ".join(claim.lower().split()) != folded_title
            and not (claim in whole and len(claim) >= CLAIM_MAX_SHARE * len(whole))
        ]

    def reference_text(self) -> str:
        """Where the record's own repos and links are read: title, text, claims
        and sources (the relation names related work, not its subject)."""
        return "\n".join([self.title, self.text, *self.claims, *self.sources])

    def stored_json(self) -> str:
        """The JSON the store keeps: derived fields are recomputed on load."""
        # A section that never changed has no first version: its JSON is as before the fields came.
        unset = {"first_date", "first_text"} if self.first_date is None else set()
        # Nor has a record without a signing time: an index written before the field reads as it was.
        unset |= {"signed_at"} if self.signed_at is None else set()
        return self.model_dump_json(exclude={"content_hash", *unset})

    @classmethod
    def from_document(cls, text: str | bytes) -> Record:
        """A record from the JSON that ``show --json`` prints: its content_hash is
        computed, so it is dropped and computed again, never trusted."""
        payload = json.loads(text)
        payload.pop("content_hash", None)
        return cls.model_validate(payload)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def content_hash(self) -> str:
        """Hash of everything embedded: a record whose hash is unchanged keeps its vectors."""
        return text_hash("\x1e".join(self.passages()))


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


class RecordHead(BaseModel):
    """What a search result shows of a record, read without its JSON: every
    field but the claims and the kind-specific ones, and the text's head."""

    model_config = ConfigDict(extra="forbid")

    id: str
    kind: Kind
    title: str = ""
    text: str = ""
    """The record's text, cut to the length the reader asked for."""
    text_cut: bool = False
    """True when the text goes on past ``text``."""
    date: dt.date | None = None
    instance: str | None = None
    topic: str | None = None
    section: str | None = None
    source: str | None = None
    category: str | None = None
    """A paper card's primary category, or an increment's 主分类."""
    arxiv_ids: list[str] = Field(default_factory=list)
    cited_ids: list[str] = Field(default_factory=list)


class IdMention(BaseModel):
    """A row of a briefing's "可引用 arXiv 号列表" table."""

    model_config = ConfigDict(extra="forbid")

    arxiv_id: str | None
    """None when the table says the id is still to be confirmed (待核实)."""
    title: str = ""
    status: str = ""
    """The row's own words: 本次新增, 9-16锚定, 首次锚入, 续用锚定, ..."""
    claims_new: bool = False
    """True when the status claims the id is new today."""
    anchored_on: str | None = None
    """The earlier day the status says it was anchored on, e.g. ``9-16``."""
    source: str | None = None
    date: dt.date | None = None
    instance: str | None = None


class ParsedFile(BaseModel):
    """Everything one input file yields."""

    source: str
    format: str
    """briefing, paper_card, doc, jsonl."""
    records: list[Record] = Field(default_factory=list)
    id_mentions: list[IdMention] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    """Problems that lost part of the file but not all of it, one line each."""
    not_records: list[str] = Field(default_factory=list)
    """Ids of parts of the file that are no record by rule (a living doc's preamble of
    metadata alone), which an index built before may hold: ingest drops them."""

    @property
    def count(self) -> int:
        return len(self.records)

    def iter_records(self) -> Iterator[Record]:
        """The records one at a time, as a streamed ``JsonlFile`` gives them."""
        return iter(self.records)
