"""A record as the rules read it: its passages with their vectors, and what the
features need of it (names, numbers, tokens), computed once per record.

``check`` and ``audit`` load each candidate once and compare it with many items,
so everything here is a cached property of the record and its vectors."""

from __future__ import annotations

import copy
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Self, TypeVar, overload

import numpy as np

from kbsearch.dedupe.citations import cited_only, without_citations
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.counterparts import counterparts_differ
from kbsearch.dedupe.documents import documents_differ
from kbsearch.dedupe.features import Side, latin_names, other_spellings, whole_names
from kbsearch.dedupe.mention_roles import unroled
from kbsearch.dedupe.model_codes import models_differ
from kbsearch.dedupe.named_systems import (
    Named,
    cited_names,
    hyphenated_words,
    systems_only,
    texts_name_apart,
    title_words,
    versioned_names,
)
from kbsearch.dedupe.platforms import platform_names, platform_only
from kbsearch.dedupe.scores import Score, scored_on, scores_differ, title_score
from kbsearch.dedupe.subjects import (
    events_differ,
    hardware_differs,
    new_release,
    places_differ,
    release_not_theirs,
    releases,
    releases_differ,
    same_release,
    subjects_differ,
    title_subject,
)
from kbsearch.records import Record
from kbsearch.text.advisory_ids import AdvisoryIds, advisory_ids
from kbsearch.text.anchors import anchored_ids
from kbsearch.text.measures import Clause
from kbsearch.text.measures import clauses as clauses_of
from kbsearch.text.plain_names import title_plain_names, words_mentioned
from kbsearch.text.spelled import halves_unread
from kbsearch.text.textsim import language, lexical_tokens, name_tokens, normalized, numbers, substantive_numbers

_JOINERS = re.compile(r"[\s\-_]+")
_PER = re.compile(r"\bper\s+(\S+)")

_T = TypeVar("_T")


class text_property(cached_property[_T]):
    """A ``cached_property`` of the record's text alone, kept in the ``_shared`` dict that
    every copy of one Embedded holds: a warm process's kept records (``kept_records``) hand
    each check a copy, and the names, numbers and clauses of a candidate were read again
    by every check (about a third of a warm check's rules). Never for what the vectors,
    the passages or the judge give: ``with_passages`` and each check change those."""

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> Self: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> _T: ...

    def __get__(self, instance: object, owner: type | None = None) -> Self | _T:
        if instance is None:
            return self
        shared: dict[str, Any] = instance.__dict__["_shared"]
        name = self.func.__name__
        if name not in shared:
            shared[name] = self.func(instance)
        value: _T = shared[name]
        return value


@dataclass
class Embedded:
    """A record with one unit vector per passage (``Record.passages()`` order),
    and the judge's vector of its whole text when there is a judge."""

    record: Record
    vectors: np.ndarray
    passages: list[str] = field(default_factory=list)
    judge: np.ndarray | None = None
    judge_tokens: np.ndarray | None = None
    """The judge's token vectors of the whole text, when check reads them
    (no rows: a text longer than ``DedupeConfig.aligned_max_tokens``)."""

    def __post_init__(self) -> None:
        self._shared: dict[str, Any] = {}  # the text_property values, shared by the copies
        if not self.passages:
            self.passages = self.record.passages()
        self.whole_text = self.record.embed_text()
        self.language = language(self.whole_text)
        # Audit holds every record's tokens at once: one frozenset, shared with
        # ``side``, of interned strings (a bigram recurs across thousands of records).
        self.tokens = frozenset(map(sys.intern, lexical_tokens(self.whole_text)))
        # A figure given only with an earlier day's citation ("53.1%, 11-03锚定") is not stated here.
        self.numbers = substantive_numbers(halves_unread(without_citations(self._text_and_claims)))
        self._features: dict[int, tuple[str, set[str]]] = {}

    def passage_features(self, index: int) -> tuple[str, set[str]]:
        """(language, lexical tokens) of one passage, computed once."""
        if index not in self._features:
            text = self.passages[index]
            self._features[index] = (language(text), lexical_tokens(text))
        return self._features[index]

    def is_key_point(self, index: int) -> bool:
        """Whether the passage is one of the writer's own key points (要点), not the
        title, the whole text or a sentence cut from it."""
        return index < len(self.passages) and self.passages[index] in self._key_points

    def stating(self, index: int, cosine: float, vector: np.ndarray) -> tuple[int, float]:
        """The passage at ``index`` with its cosine to ``vector``, or when that is the title
        alone, the nearest of the others: a title names its item, and says no fact that
        another item's claim could repeat ("An Internet for the KV Cache" for HydraKV's)."""
        others = self._body_indices
        if index in others or not others:
            return index, cosine
        cosines = self.vectors[others] @ vector
        best = int(np.argmax(cosines))
        return others[best], float(cosines[best])

    def facts(self, cosines: np.ndarray) -> list[tuple[int, float]]:
        """(index, cosine) of each passage but the title alone (``cosines``: one per passage): a
        title names its item and says none of its facts, its own item's claims neither (probe
        39: a same-item record's title "Korvex 0.9.0 发布…" made a correction's cause known)."""
        return [(i, float(cosines[i])) for i in self._body_indices]

    @text_property
    def _key_points(self) -> frozenset[str]:
        return frozenset(self.record.claim_texts()) if self.record.claims else frozenset()

    @classmethod
    def whole_only(cls, record: Record, whole: np.ndarray, judge: np.ndarray | None = None) -> Embedded:
        """A record with only its whole-record vectors: all that ``compare`` reads.
        ``audit`` uses it to avoid loading every title and claim vector."""
        text = record.embed_text()
        return cls(record, np.asarray(whole, dtype=np.float32)[None, :], [text], judge)

    def with_passages(self, vectors: np.ndarray) -> Embedded:
        """This record with every passage's vector (``Record.passages()`` order), keeping what was
        computed of its text: audit reads a pair again by its key points (``key_points``)."""
        full = copy.copy(self)
        for name in ("whole", "claim_rows", "body_rows", "_body_indices", "side"):
            full.__dict__.pop(name, None)  # computed from the vectors: computed again
        full.vectors, full.passages, full._features = vectors, self.record.passages(), {}
        return full

    @cached_property
    def whole(self) -> np.ndarray:
        """The whole-record vector (looked up once: ``compare`` reads it for every pair)."""
        index = self.passages.index(self.whole_text) if self.whole_text in self.passages else 0
        return self.vectors[index]

    @text_property
    def stated_numbers(self) -> frozenset[str]:
        """Every number the record states, incidental ones too: a claim's "6 layers"
        is not new against a record that says "6-ply", though a lone 6 is no result there."""
        return frozenset(numbers(self._text_and_claims))

    @property
    def text_and_claims(self) -> str:
        """The whole text and the key points: what a claim's stage is read against (``stages.untold``)."""
        return self._text_and_claims

    @text_property
    def _text_and_claims(self) -> str:
        """The whole text and the key points, as the name and number rules read them."""
        return "\n".join([self.whole_text, *self.record.claims])

    @text_property
    def all_names(self) -> frozenset[str]:
        """The coined names anywhere in the record: title, text and claims."""
        text = self._text_and_claims
        return frozenset(latin_names(text) | versioned_names(text))

    def named(self, config: DedupeConfig, name_count: Callable[[str], int]) -> Named:
        """The names the different-systems rule reads: those only cited are left out, and
        sizes and hardware. Only the rarity lookups are made per pair: audit compares a
        record with ten others."""
        rare = config.rare_name_records
        # A hyphenated name is the system its title names, not the acronym in it (MCP of MCP-Bench).
        title = frozenset(n for n in whole_names(self._title_systems) if name_count(n) <= rare)
        is_rare = lambda name: name_count(name) <= rare  # noqa: E731
        written = self._written
        words = self._title_words
        return Named(
            title, self._systems_mentioned, is_rare, self._only_cited_names, self._title_systems, written, words
        )

    @text_property
    def _title_words(self) -> frozenset[str]:
        return title_words(self.record.title, self._title_systems)  # read once, not at each comparison

    @text_property
    def _written(self) -> frozenset[str]:
        # Plain-word names are mentions only: a title reads them as names (``plain_names``).
        text = self._text_and_claims
        return (hyphenated_words(text) | words_mentioned(text)) - self._only_cited_names

    def told_apart(self, known: Embedded) -> str | None:
        """Why the titles make this record and ``known`` two items (``subjects``): different
        releases of one product, scores of different models or on different benchmarks (``scores``),
        different documents (``documents``), sites in different countries, news of different names or
        one company's deals with different parties (``counterparts``), the titles sharing no coined
        one, or sharing only what one item is for (``platforms``)."""
        reason = releases_differ(self._title_releases, known._title_releases)
        reason = reason or scores_differ(
            (self._score, self.record.title, self._lowered), (known._score, known.record.title, known._lowered)
        )
        reason = reason or places_differ((self.record.title, self._text), (known.record.title, known._text))
        reason = reason or platform_only((self.record.title, self._lowered), (known.record.title, known._lowered))
        reason = reason or hardware_differs(self.record.title, known.record.title)
        reason = reason or models_differ((self.record.title, self._unroled), (known.record.title, known._unroled))
        reason = reason or documents_differ((self.record.title, self._text), (known.record.title, known._text))
        shared = self._title_systems & known._title_systems
        # A shared name the titles only set their news on ("on SWE-bench Verified", "per GPU-hour")
        # leaves the subjects to tell two coding agents, two clouds' price cuts, apart.
        if reason is None and not shared - self._title_platforms - known._title_platforms:
            reason = subjects_differ((self._subject, self._unroled), (known._subject, known._unroled))
        # One company's other event: the names the titles share are the companies they report on.
        if reason is None and not shared - self._title_platforms - known._title_platforms - {
            self._subject,
            known._subject,
        }:
            reason = events_differ((self._subject, self.record.title), (known._subject, known.record.title))
            reason = reason or counterparts_differ(  # one company's deals with different parties
                (self._subject, self.record.title, self._unroled), (known._subject, known.record.title, known._unroled)
            )
        if reason is None and not shared:
            reason = release_not_theirs(self._title_releases, known.record.title, known._lowered)
            reason = reason or release_not_theirs(known._title_releases, self.record.title, self._lowered)
        return reason

    def release_after(self, known: Embedded) -> str | None:
        """Why the titles make this record and ``known`` one item: releases of one product, the
        later's record giving the earlier (``subjects.new_release``), or None."""
        return new_release((self._title_releases, self._lowered), (known._title_releases, known._lowered))

    def release_shared(self, known: Embedded) -> str | None:
        """The release this record's title and ``known``'s both name ("fenwick-code 2.5"), or None."""
        return same_release(self._title_releases, known._title_releases)

    def texts_apart(self, known: Embedded, is_rare: Callable[[str], bool]) -> str | None:
        """Why two untitled records are two items by the systems their texts name
        (``named_systems.texts_name_apart``), or None."""
        ours = frozenset(n for n in self._text_systems if is_rare(n))
        theirs = frozenset(n for n in known._text_systems if is_rare(n))
        return texts_name_apart((ours, self._mentions), (theirs, known._mentions))

    @text_property
    def _text_systems(self) -> frozenset[str]:
        """The coined systems the text itself names (not its key points), none only cited."""
        return systems_only(frozenset(name_tokens(self.record.text))) - self._only_cited_names

    @text_property
    def _mentions(self) -> tuple[str, str]:
        """Title, text and key points lower-cased, as written and run together (ResNet-110, resnet110)."""
        return self._lowered, _JOINERS.sub("", self._lowered)

    @text_property
    def _title_platforms(self) -> frozenset[str]:
        """The title's names it sets its news on or prices by (``platforms``, "per GPU-hour")."""
        title = self.record.title
        return platform_names(title) | frozenset(n for m in _PER.finditer(title) for n in latin_names(m.group(1)))

    @text_property
    def _subject(self) -> str | None:
        return title_subject(self.record.title)

    @text_property
    def _score(self) -> Score | None:
        return title_score(self.record.title)

    @text_property
    def _title_releases(self) -> frozenset[tuple[str, str]]:
        return releases(self.record.title)

    @text_property
    def _text(self) -> str:
        """The title, text and key points, as the places rule reads them (their case kept), without
        what they only cite of an earlier day's item (``citations``)."""
        return "\n".join([self.record.title, *map(without_citations, [self.record.text, *self.record.claims])])

    @text_property
    def _lowered(self) -> str:
        """The title, text and key points, lower-cased: where a name is looked for as mentioned."""
        return self._text.lower()

    @text_property
    def _unroled(self) -> str:
        """``_lowered`` without the names only derived from, compared with or disowned
        (``mention_roles``): where the subject and model rules look for the other's subject."""
        return unroled(self._text)

    @text_property
    def _only_cited_names(self) -> frozenset[str]:
        """The names only cited, with an earlier day's anchor note or in a comparison
        (``named_systems.cited_names``), that the title does not name."""
        cited = frozenset(cited_names(self._text_and_claims, latin_names))
        return (cited | self._cited_context) - self._title_coined

    @text_property
    def _cited_context(self) -> frozenset[str]:
        """The names, plain words too, written only in citations of an earlier day's item
        (``citations``: "Brindle (53.1%, 11-03锚定)"), that the title does not name."""
        return cited_only(self._text_and_claims) - self._title_coined

    @text_property
    def _systems_mentioned(self) -> frozenset[str]:
        # Mentioned also as written apart or run together (MCP Bench, MCPBench for MCP-Bench).
        names = self.all_names | other_spellings(self._text_and_claims, set(self.all_names))
        return systems_only(names - self._only_cited_names)

    @text_property
    def _title_systems(self) -> frozenset[str]:
        # Not the benchmark or leaderboard a score title's model is scored on (``scores.scored_on``).
        systems = systems_only(frozenset(self._title_coined))
        return systems - scored_on(self._score, systems)

    @text_property
    def anchored_ids(self) -> frozenset[str]:
        """The ids written with an earlier day's anchor note (``text.anchors``): neither
        the record's subject nor a bare citation."""
        return frozenset(anchored_ids("\n".join([self.record.relation or "", self._text_and_claims])))

    @text_property
    def advisories(self) -> AdvisoryIds:
        """The advisory ids (CVE, GHSA, ...) of its text, key points and sources (``text.advisory_ids``)."""
        return advisory_ids("\n".join([self._text_and_claims, *self.record.sources]))

    @text_property
    def _title_coined(self) -> set[str]:
        """The coined names of the title (once: ``compare`` reads them for every pair)."""
        title = self.record.title
        return latin_names(title) | versioned_names(title) | title_plain_names(title)

    @text_property
    def normalized_text(self) -> str:
        """The whole text as the identical-text rule reads it (once: audit compares a record ten times)."""
        return normalized(self.whole_text)

    @text_property
    def names(self) -> frozenset[str]:
        """The coined names of the whole text."""
        return frozenset(latin_names(self.whole_text))

    @cached_property
    def _body_indices(self) -> list[int]:
        """The passages but the title alone: the whole text and each key point."""
        title = self.record.title.strip()
        return [i for i, text in enumerate(self.passages) if text != title or text == self.whole_text]

    @cached_property
    def body_rows(self) -> np.ndarray:
        """The passage vectors but the title's: the whole text and each key point."""
        rows = self._body_indices
        return self.vectors[rows] if rows else self.whole[None, :]

    @text_property
    def clauses(self) -> list[Clause]:
        """The clauses of the whole text and the key points, with their figures and words
        (``measures``): split once, however many claims read them."""
        return [clause for text in (self.whole_text, *self.record.claims) for clause in clauses_of(text)]

    @cached_property
    def claim_rows(self) -> np.ndarray | None:
        """The key points' passage vectors; None without key points or their vectors (``whole_only``)."""
        claims = set(self.record.claim_texts()) if self.record.claims else set()
        rows = [i for i, text in enumerate(self.passages) if text in claims and text != self.whole_text]
        return self.vectors[rows] if rows else None

    @cached_property
    def side(self) -> Side:
        """What the same-item features read of this record."""
        return Side(
            vector=self.whole,
            judge=self.judge,
            language=self.language,
            tokens=self.tokens,
            names=self.names - self._cited_context,
            numbers=frozenset(self.numbers),
            length=len(self.whole_text),
        )
