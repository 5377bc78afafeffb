"""What the rules read of a record's text (names, numbers, clauses, the titles' subjects and
releases), computed once per record and shared by every copy of it.

``Embedded`` (a record with its vectors) is a ``RecordText``: what is here depends on the
record's text alone, never on its vectors, its passages or the judge, so a warm process's
kept record (``kept_records``) reads it once for every check that takes a copy of it."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cached_property
from typing import Any, Self, TypeVar, overload

from kbsearch.dedupe.background import background_points, blanked, recalled_only
from kbsearch.dedupe.citations import cited_only, without_citations
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.counterparts import counterparts_differ
from kbsearch.dedupe.documents import documents_differ
from kbsearch.dedupe.features import latin_names, other_spellings, whole_names
from kbsearch.dedupe.maker_products import maker_products
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
from kbsearch.dedupe.sourced_names import coined_head, source_names
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
from kbsearch.dedupe.title_leads import Lead, leads_differ
from kbsearch.records import Record
from kbsearch.text.advisory_ids import AdvisoryIds, advisory_ids
from kbsearch.text.anchors import anchored_ids
from kbsearch.text.measures import Clause
from kbsearch.text.measures import clauses as clauses_of
from kbsearch.text.plain_names import title_plain_names, words_mentioned
from kbsearch.text.textsim import name_tokens, normalized, numbers

_JOINERS = re.compile(r"[\s\-_]+")
_PER = re.compile(r"\bper\s+(\S+)")

_T = TypeVar("_T")

FIRST_READ = (
    "_text_and_claims", "_text", "_lowered", "normalized_text", "_unroled", "advisories", "_score", "_sourced",
    "all_names", "names", "_written", "_systems_mentioned", "_only_cited_names", "_cited_context",
    "_title_coined", "_title_systems", "_title_words", "_title_releases", "_title_platforms", "_subject",
)  # fmt: skip
"""What a check's comparisons read of a candidate's text (``text_property``): on the 10k bench
index each of these was read for more than half of the candidates 60 first checks met; the key
points' clauses and numbers, read for a claim's nearest records alone, are left to the check."""


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


class RecordText:
    """The record's text as the name, number and title rules read it: every ``text_property``
    is kept in ``_shared``, which the holder (``Embedded``) makes once and its copies share."""

    record: Record
    whole_text: str
    _shared: dict[str, Any]

    def read_first(self) -> None:
        """Read ``FIRST_READ`` now, once for every copy: what a process that builds its
        records ahead (``kb.warm_checks``) spares its checks' first comparisons."""
        for name in FIRST_READ:
            getattr(self, name)

    @text_property
    def _key_points(self) -> frozenset[str]:
        return frozenset(self.record.claim_texts()) if self.record.claims else frozenset()

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
        record with ten others. Read again only with another config or another count: a check
        reads its item against each of 35 candidates, and a candidate both ways round; a count
        is one state of the index (``names.NameHolders``), so after a write it is another."""
        kept = self.__dict__.get("_named_kept")
        if kept is not None and kept[0] is config and kept[1] is name_count:
            return kept[2]
        named = self._read_named(config, name_count)
        self.__dict__["_named_kept"] = (config, name_count, named)
        return named

    def _read_named(self, config: DedupeConfig, name_count: Callable[[str], int]) -> Named:
        rare = config.rare_name_records
        # A hyphenated name is the system its title names, not the acronym in it (MCP of MCP-Bench).
        title = frozenset(n for n in whole_names(self._title_systems) if name_count(n) <= rare)
        is_rare = lambda name: name_count(name) <= rare  # noqa: E731
        written = self._written
        words, (head, sourced) = self._title_words, self._sourced
        cited = self._only_cited_names
        return Named(title, self._systems_mentioned, is_rare, cited, self._title_systems, written, words, head, sourced)

    @text_property
    def _sourced(self) -> tuple[str | None, frozenset[str]]:
        """The coined name the title begins with, and what the sources name: mentions only
        beside a title led by the same name (``sourced_names``)."""
        return coined_head(self.record.title), source_names(self.record.sources)

    @text_property
    def _title_words(self) -> frozenset[str]:
        return title_words(self.record.title, self._title_systems)  # read once, not at each comparison

    @text_property
    def _written(self) -> frozenset[str]:
        # Plain-word names are mentions only: a title reads them as names (``plain_names``).
        text = self._text_and_claims
        return (hyphenated_words(text) | words_mentioned(text)) - self._only_cited_names

    def told_apart(self, known: RecordText) -> str | None:
        """Why the titles make this record and ``known`` two items (``subjects``): different
        releases of one product, scores of different models or on different benchmarks (``scores``),
        different documents (``documents``), different coined names as their leads (``title_leads``),
        sites in different countries, news of different names or one company's deals with different
        parties (``counterparts``), the titles sharing no coined one, or sharing only what one item is
        for (``platforms``)."""
        reason = releases_differ(self._title_releases, known._title_releases)
        reason = reason or scores_differ(
            (self._score, self.record.title, self._lowered), (known._score, known.record.title, known._lowered)
        )
        reason = reason or places_differ((self.record.title, self._text), (known.record.title, known._text))
        reason = reason or platform_only((self.record.title, self._lowered), (known.record.title, known._lowered))
        reason = reason or hardware_differs(self.record.title, known.record.title)
        reason = reason or models_differ((self.record.title, self._unroled), (known.record.title, known._unroled))
        reason = reason or leads_differ(self._lead, known._lead)
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

    def release_after(self, known: RecordText) -> str | None:
        """Why the titles make this record and ``known`` one item: releases of one product, the
        later's record giving the earlier (``subjects.new_release``), or None."""
        return new_release((self._title_releases, self._lowered), (known._title_releases, known._lowered))

    def release_shared(self, known: RecordText) -> str | None:
        """The release this record's title and ``known``'s both name ("fenwick-code 2.5"), or None."""
        return same_release(self._title_releases, known._title_releases)

    def texts_apart(self, known: RecordText, is_rare: Callable[[str], bool]) -> str | None:
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
    def _lead(self) -> Lead:
        """What the title-lead rule reads (``title_leads.Lead``)."""
        title, unroled = self.record.title, self._unroled
        return title, unroled, maker_products(title, self._text, unroled)

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
        (``mention_roles``), nor those of the key points recalling another item as background
        (``background``): where the subject and model rules look for the other's subject."""
        return unroled(blanked(self._text, self.background_points))

    @text_property
    def background_points(self) -> frozenset[str]:
        """The key points recalling another item as background (``background.background_points``)."""
        return background_points(self.record.claim_texts() if self.record.claims else [], self.record.title)

    @text_property
    def _only_cited_names(self) -> frozenset[str]:
        """The names only cited, with an earlier day's anchor note or in a comparison
        (``named_systems.cited_names``), or only recalled as background (``background``),
        that the title does not name."""
        cited = frozenset(cited_names(self._text_and_claims, latin_names))
        return (cited | self._cited_context | self._recalled) - self._title_coined

    @text_property
    def _recalled(self) -> frozenset[str]:
        """The names written only in key points recalling another item as background (``background``)."""
        return recalled_only(self.record.title, self.record.text, self.record.claims)

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

    @text_property
    def clauses(self) -> list[Clause]:
        """The clauses of the whole text and the key points, with their figures and words
        (``measures``): split once, however many claims read them."""
        return [clause for text in (self.whole_text, *self.record.claims) for clause in clauses_of(text)]
