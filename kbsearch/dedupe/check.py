"""``kbsearch check``: gather the evidence for each incoming item and judge it.

An item is never compared with itself: the records stored under the items' ids with the
items' very content (an earlier accept of the same submission) are left out, and nothing
else, so what a reused inbox file held yesterday is evidence like any other record.
``as_of`` hides everything dated later, so a past day can be replayed honestly; without it
a dated item is compared with nothing written after its own date. Either way a record with
no date stays (a living doc that states none): it cannot be shown to be later, and
``--as-of`` the item's own date gives the default's evidence. A doc section dated that day
is left out too: on one day it comes after the rest (``check_day``); one changed later is
read with its first text when that was written by the day (``sections_as_of``).

Candidates come from the index's model (nearest by whole text, title and each key point),
shared ids and rare shared names; with a judge model, each item's whole text is embedded
by the judge too, and the known records' judge vectors are read from the store, so the
decision reads both encoders.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache

import numpy as np

import kbsearch.runtime.timings as timings
from kbsearch.dedupe.background_facts import recalled_said
from kbsearch.dedupe.beyond_cap import near_line_past_cap
from kbsearch.dedupe.check_day import check_filter, later_notes, later_sections_note
from kbsearch.dedupe.check_reading import Reading, TokenVectors, judge_vectors_of, to_align
from kbsearch.dedupe.cited_entries import cited_entries, on_cited
from kbsearch.dedupe.claim_dates import dated
from kbsearch.dedupe.claim_inputs import ClaimInputs, claims_of, with_claims
from kbsearch.dedupe.claim_versions import versioned
from kbsearch.dedupe.claims import PassageHit, PassageReader, either_says, judge_claim, judge_said
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.doc_facts import doc_said
from kbsearch.dedupe.doc_holding import holding_sections
from kbsearch.dedupe.features import NAME_COUNT_CAP
from kbsearch.dedupe.finer import FinerPassages, finer_said, item_names, item_sentences
from kbsearch.dedupe.flags import item_flags, listed_in_doc, table_flags
from kbsearch.dedupe.judged_passages import judged_passages
from kbsearch.dedupe.kept_records import kept_records
from kbsearch.dedupe.names import NameHolders, kept_lookups, rare_name_candidates
from kbsearch.dedupe.results import CheckResult, ClaimStatus, ItemResult, Match, Rule
from kbsearch.dedupe.rules import Embedded, compare_all, one_item, restates_same_paper, ruled_out
from kbsearch.dedupe.same_input import InputItems, input_notes
from kbsearch.dedupe.section_since import HeldSince
from kbsearch.dedupe.sections_as_of import SectionsAsOf
from kbsearch.dedupe.their_figures import their_figures
from kbsearch.dedupe.ties import in_id_order, match_order, nearest_first
from kbsearch.dedupe.verdict import decide, doc_stated, edit_of_own, first_seen, held_in_doc, stating_sections
from kbsearch.embed import Encoder, TokenEncoder
from kbsearch.errors import KbError
from kbsearch.models import line_of
from kbsearch.records import IdMention, Record
from kbsearch.runtime.blas import one_blas_thread
from kbsearch.runtime.cancel import checkpoint
from kbsearch.runtime.overlap import Pipeline
from kbsearch.store import SearchFilter, Store

Docs = tuple[list[Record], list[Record]]
SEARCHES_KEPT = 16
"""An item's latest nearest-record lists kept for its claims (whole text, title, key points)."""


class Checker:
    """Checks items against one store with one encoder and one config."""

    def __init__(
        self,
        store: Store,
        encoder: Encoder,
        config: DedupeConfig,
        as_of: dt.date | None = None,
        *,
        judge: Encoder | None = None,
        tokens: TokenEncoder | None = None,
    ) -> None:
        if config.judge is not None and judge is None:
            raise KbError(
                f"the dedupe config reads judge {config.judge!r}, and no judge model was given",
                hint=f"set judge={config.judge} on {line_of(config.model)}, or use a config without one",
            )
        self.store = store
        self.encoder = encoder
        self.judge = judge if config.judge is not None else None
        self.tokens = tokens if self.judge is not None else None
        """The judge's token vectors, for the alignment features (None: whole texts only)."""
        self.config = config
        self.as_of = as_of
        one_blas_thread()  # hundreds of small products: split over busy cores, each waited
        self.names = NameHolders(store, NAME_COUNT_CAP, kept_lookups(store))
        self._reader = PassageReader(self.judge, self.tokens)
        self.name_count: Callable[[str], int] = self.names.count
        # Known records are immutable while a check runs; many items share candidates,
        # and a warm process's checks too, while their rows stay as they were (``kept_records``).
        self._loaded: dict[int, Embedded] = {}
        self._kept = kept_records(store)
        self._searched: dict[tuple[bytes, str], tuple[int, list[tuple[int, float, int]]]] = {}
        self._claim_inputs = ClaimInputs(self.judge, self._reader, claims_of)
        self._finer = FinerPassages(encoder)
        self.token_vectors = TokenVectors(self.tokens, config.aligned_max_tokens)
        self._then = SectionsAsOf(store, encoder, self.judge)  # sections changed after the day, as first written

    def check(
        self, items: list[Record], *, file: str | None, input_name: str, mentions: list[IdMention] | None = None
    ) -> CheckResult:
        with self.reading(items) as read:
            results = self.checked(read)
        flt = SearchFilter(not_after=self.as_of, exclude_ids=read.resubmitted)
        flags = table_flags(self.store, mentions or [], flt, next((r.signed_at for r in items if r.signed_at), None))
        later = later_sections_note(self.store, results, self.as_of is not None) + self.config._notes
        return CheckResult(
            input=input_name, model=self.encoder.model_id, as_of=self.as_of, items=results, flags=flags, notes=later
        )

    @contextmanager
    def reading(self, items: list[Record]) -> Iterator[Reading]:
        """The items embedded as check embeds them; what runs beside (the judge's) ends with the block."""
        self.store.require_current_passages()  # the rules read a record's passages by position
        with Pipeline() as beside:
            embedded, judged = self._embed(items, beside)
            yield Reading(embedded, judged, self._resubmitted(items))

    def checked(self, read: Reading) -> list[ItemResult]:
        """Each item of ``read`` checked (inside its ``reading`` block): ``check`` without the input's flags."""
        pooled = InputItems(read.items, self.config.candidates)
        return [self._check_one(item, read.resubmitted, read.judged, pooled, n) for n, item in enumerate(read.items)]

    def compared(self, item: Embedded, known: dict[str, Embedded]) -> list[Match]:
        """``compare_all`` of the item's candidates, once more when some past the aligned cap
        lie near the line unaligned: given token vectors, they are decided aligned (``beyond_cap``)."""
        candidates = list(known.values())
        matches = compare_all(item, candidates, self.config, self.name_count)
        if extra := near_line_past_cap(item, candidates, matches, self.config):
            self.with_tokens(extra)
            if any(e.judge_tokens is not None and len(e.judge_tokens) for e in extra):  # not all too long
                matches = compare_all(item, candidates, self.config, self.name_count)
        return matches

    def with_tokens(self, records: list[Embedded]) -> None:
        """Give each record the judge's token vectors of its whole text, once (``TokenVectors.give``)."""
        self.token_vectors.give(records)

    def _resubmitted(self, items: list[Record]) -> list[str]:
        """Ids of the items stored with the items' very content: this submission, accepted before."""
        stored = self.store.column_of_ids([item.id for item in items], "content_hash")
        return [item.id for item in items if stored.get(item.id) == item.content_hash]

    def _embed(self, items: list[Record], beside: Pipeline) -> tuple[list[Embedded], Callable[[], None]]:
        """The items with their passages' vectors, and what gives them the
        judge's vector and token vectors: waited for where the comparisons need
        them, after the candidates' search, which the judge's run overlaps."""
        # Split once: encoding and Embedded share them. Each claim is judged on
        # its own, so a claim that is not a stored passage (a sentence of a
        # short text) is embedded too, after the passages.
        passages = [with_claims(item) for item in items]
        texts = [p for each in passages for p in each]
        # The judge and its token graph run beside the index's encoder: a short
        # item's runs are too small to use both cores each, so one after the
        # other left a core idle for most of a warm check's encoding. What the
        # claim decisions alone read (the judge's claim vectors, their token
        # vectors) runs on beside the search and the comparisons.
        whole = beside.start(lambda: self.token_vectors.of([i.embed_text() for i in items]), "judge tokens wait")
        said = self.judge is not None and self.config.claim_said is not None
        judge_vectors = beside.start(lambda: judge_vectors_of(self.judge, items), "judge items wait")
        self._claim_inputs.start(items, beside, vectors=said, tokens=self.config.said_reads_tokens())
        with timings.phase("embed items"):
            vectors = self.encoder.encode(texts) if texts else np.zeros((0, self.encoder.dim), np.float32)
        out, start = [], 0
        for item, own in zip(items, passages, strict=True):
            out.append(Embedded(item, vectors[start : start + len(own)], own))
            start += len(own)

        @cache  # once: every item's check calls it
        def judged() -> None:
            for embedded, judge, tokens in zip(out, judge_vectors.result(), whole.result(), strict=True):
                embedded.judge, embedded.judge_tokens = judge, tokens

        return out, judged

    def _check_one(
        self, item: Embedded, resubmitted: list[str], judged: Callable[[], None], pooled: InputItems, number: int
    ) -> ItemResult:
        checkpoint()  # a server's request stops here once over its budget or abandoned
        flt = check_filter(self.store, item.record, self.as_of, resubmitted)  # not its day's doc sections
        in_input = pooled.before(number, flt)
        known = in_input | self.candidates(item, flt, judged)
        compared = self.compared(item, known)
        matches = sorted(one_item(compared, known, self.config, self.name_count, item), key=match_order)
        same = [known[m.id] for m in matches if m.same_item]
        docs = [known[m.id] for m in matches if m.rule is Rule.doc_section]  # their lines on it: evidence
        record, coined = item.record, item_names(item, self.config, self.name_count)
        entries = item_sentences(record, docs, coined), cited_entries(record, docs)
        claims = self._claims(item, flt, same, entries, known)
        self._then.marked(flt, matches, claims)  # the evidence read from a section's first text says so
        verdict, reason = decide(matches, claims, own_id=record.id, shown=self.config.matches_shown)
        edited = edit_of_own(verdict, matches, record.id)  # reworded: --accept replaces it in place
        since = HeldSince(record, known, self.store, coined)  # a section's first text on the item: held since
        earliest = since.dated([m for m in matches if m.same_item] or self._sections(item, flt, known, matches, claims))
        self._then.marked(flt, earliest, [])  # a section compared for its claims alone, too
        signed = {m.id: known[m.id].record.signed_at for m in earliest if m.id in known}
        first = first_seen(earliest, self.store.rowids_of(m.id for m in earliest), signed)  # one day's: signed first
        holding = since.dated(holding_sections(item, matches, known, self.config, self.name_count))  # audit's too
        held = held_in_doc(holding, first) if first else listed_in_doc(record, holding)
        return ItemResult(
            id=record.id,
            title=record.title,
            kind=record.kind,
            instance=record.instance,
            date=record.date,
            verdict=verdict,
            reason=reason + ("; an edit of it, no new fact: accepting replaces it in place" if edited else ""),
            matches=matches[: self.config.matches_shown],
            claims=claims,
            flags=item_flags(record, first or held, held),
            first_seen=first,
            held_in_doc=held,
            stated_in_doc=[] if any(m.same_item for m in matches) else doc_stated(claims),  # as the reason says
            as_of=self.as_of or flt.not_after,
            resubmitted=record.id in resubmitted,
            own_earlier_version=any(m.same_item and m.id == record.id for m in matches),
            edited=edited,
            notes=input_notes(matches, in_input)
            + later_notes(item, flt, self.candidates, self.config, self.name_count),
        )

    def _sections(
        self,
        item: Embedded,
        flt: SearchFilter,
        known: dict[str, Embedded],
        matches: list[Match],
        claims: list[ClaimStatus],
    ) -> list[Match]:
        """The living-doc sections stating every claim (``stating_sections``), compared with the item."""
        wanted = set(stating_sections(claims))
        then = {e.record.id: e for e in self._then.of(flt) if e.record.id in wanted and e.record.id not in known}
        rowids = self.store.rowids_of(wanted - {*then, *(m.id for m in matches)})  # then: as the day read them
        missing = [*self.load(list(rowids.values())).values(), *then.values()]
        if missing:  # a claim's nearest passage, not a candidate: compared among the candidates
            matches = compare_all(item, [*known.values(), *missing], self.config, self.name_count)
        return [m for m in matches if m.id in wanted]

    def candidates(
        self, item: Embedded, flt: SearchFilter, judged: Callable[[], None] = lambda: None
    ) -> dict[str, Embedded]:
        """Nearest records by whole text, by title and by each key point, plus every record sharing
        an id, plus the records holding a rare name of the item, by id (``ties``: whatever found
        them first); ``judged()`` once they are read, before anything reads the item's judge vectors."""
        rowids: dict[int, None] = {}
        # Without a title the first passage is the whole text: one search does.
        vectors = [item.whole] if item.passages[0] == item.whole_text else [item.whole, item.vectors[0]]
        searches = [(vector, self.config.candidates) for vector in vectors]
        if item.claim_rows is not None and self.config.key_point_candidates:
            searches += [(v, self.config.key_point_candidates) for v in item.claim_rows]
        searched = [(vector, k, self._search(vector, k, flt)) for vector, k in searches]
        rowids.update((rowid, None) for _, _, found in searched for rowid, _, _ in found)
        by_id = self.store.rowids_with_arxiv(item.record.arxiv_ids + item.record.cited_ids)
        rowids.update((r, None) for r in self.store.restrict(by_id, flt))
        by_name = rare_name_candidates(self.names, item.names, flt, self.config.rare_name_records)
        rowids.update((r, None) for r in by_name)
        found = {e.record.id: e for e in self.load(list(rowids)).values()}
        found = in_id_order(
            found | self._then.candidates(item, flt, [(v, k, [s for _, s, _ in hits]) for v, k, hits in searched])
        )
        judged()
        if item.judge_tokens is not None and len(item.judge_tokens):  # a long item aligns with nothing
            self.with_tokens(to_align(item, list(found.values()), self.config.aligned_candidates))
        return found

    def _search(self, vector: np.ndarray, k: int, flt: SearchFilter) -> list[tuple[int, float, int]]:
        """The store's best records for a vector; a claim that is the whole text
        reuses the whole text's (longer, best-first) list from the same item."""
        key = (vector.tobytes(), flt.model_dump_json())
        found = self._searched.get(key)
        if found is None or found[0] < k:
            found = (k, self.store.search_records(vector, k, flt))
            # Not only the last: the title's search comes between the whole text's and the claims'.
            self._searched.pop(key, None)
            self._searched[key] = found
            while len(self._searched) > SEARCHES_KEPT:
                del self._searched[next(iter(self._searched))]
        return found[1][:k]

    def load(self, rowids: list[int]) -> dict[int, Embedded]:
        missing = [r for r in rowids if r not in self._loaded]
        if missing:
            self._loaded.update(self._kept.take(missing, self.store))
            missing = [r for r in missing if r not in self._loaded]
        if missing:
            rows = self.store.by_rowids_digested(missing)
            records = {r: record for r, (record, _) in rows.items()}
            vectors = self.store.passage_vectors(missing)
            judged = self._judge_vectors(records)
            built = {
                r: Embedded(records[r], vectors[r], judge=judged.get(r))
                for r in missing
                if r in records and r in vectors
            }
            self._loaded.update(built)
            self._kept.keep(built, {r: digest for r, (_, digest) in rows.items()}, self.store.generation)
        return {r: self._loaded[r] for r in rowids if r in self._loaded}

    def _judge_vectors(self, records: dict[int, Record]) -> dict[int, np.ndarray]:
        """The judge vectors of ``records``: stored, else computed now (``Store.judge_vectors``)."""
        if self.judge is None:
            return {}
        found = self.store.judge_vectors(records, self.judge.model_id)
        lacking = [records[r].id for r in records if r not in found]
        if lacking:
            raise KbError(
                f"{len(lacking)} records have no {self.config.judge!r} vector, e.g. {lacking[0]!r}",
                hint="run 'kbsearch reindex' (embeds what the judge lacks)",
            )
        return found

    def _claims(
        self, item: Embedded, flt: SearchFilter, same: list[Embedded], docs: Docs, known: dict[str, Embedded]
    ) -> list[ClaimStatus]:
        """Each claim's status; ``docs``: the sections' entries on the item, and on papers it cites."""
        texts, same_ids = claims_of(item.record), {k.record.id for k in same}
        others = [k for rid, k in known.items() if rid not in same_ids]  # whose figures a claim may compare with
        restatement = restates_same_paper(item.record, same)
        said = self.config.claim_said
        judged = self._judged_claims(texts, self._claim_judge_vectors(item, texts, same), same)
        self._claim_inputs.wait_for_token_rows()  # read by judge_said below
        statuses = []
        for number, text in enumerate(texts):
            checkpoint()
            index = item.passages.index(text) if text in item.passages else 0
            vector = item.vectors[index]
            near = self._claim_hits(item, vector, flt)  # a doc section naming none of the item's names too
            hits = [h for h in near if not ruled_out(item, h.known, self.config, self.name_count)]
            theirs = their_figures(text, item.record.title, others)  # another system's figures: not new
            by_cosine = judge_claim(text, vector, hits, same, self.config, restatement, judged[number], theirs)
            if said is None:
                statuses.append(versioned(dated(by_cosine, text, same, docs[0]), text, same, docs[0]))
                continue
            # With a same-item record, its passages alone: another paper's passage that the form took
            # for the claim was a new fact of this one in every such case on the dev feeds. Without one,
            # the claim's nearest passage: most often of the item's own earlier record, which the item
            # decision missed (reading every near passage with the judge cost a new item about 0.8 s).
            own = [PassageHit(k, i, s) for k in same for i, s in k.facts(k.vectors @ vector)]
            candidates = own or [PassageHit(h.known, *h.known.stating(h.index, h.cosine, vector)) for h in hits[:1]]
            with timings.phase("claims"):
                by_form = judge_said(text, candidates, same_ids, self._reader, said, restatement, theirs)
            finer = self._finer, self._reader, said, restatement
            sections = docs[0] + on_cited(text, item.record, docs[1])  # (``cited_entries``)
            status = finer_said(text, vector, either_says(by_form, by_cosine), same, sections, finer)
            status, read = doc_said(text, vector, status, near, finer) if own else (status, [])  # the doc's fact
            status, recalled = recalled_said(text, vector, item.background, status, near, finer)  # recalled
            read = sections + read + recalled
            statuses.append(versioned(dated(status, text, same, read), text, same, read))
        return statuses

    def _claim_hits(self, item: Embedded, vector: np.ndarray, flt: SearchFilter) -> list[PassageHit]:
        """The passages of any record nearest to a claim (``ruled_out`` is applied by the caller)."""
        hits = self._search(vector, self.config.claim_hits, flt)
        loaded = self.load([rowid for rowid, _, _ in hits])
        hits_then = [PassageHit(loaded[r], i, s) for r, s, i in hits if r in loaded]
        return nearest_first(self._then.claim_hits(hits_then, flt, vector, self.config.claim_hits))

    def _claim_judge_vectors(self, item: Embedded, texts: list[str], same: list[Embedded]) -> np.ndarray | None:
        """The judge's vectors of the item's claims, in one run, kept for ``claim_said``
        too; None when no decision reads them (no judge, or no ``claim_said`` and no
        same-item record for the cosine decision)."""
        if self.judge is None or (
            self.config.claim_said is None and (self.config.judge_claim_known is None or not same)
        ):
            return None
        vectors = self._claim_inputs.judge_vectors(item.record, texts, item.whole_text, item.judge)
        self._reader.remember_claims(texts, vectors)
        return vectors

    def _judged_claims(
        self, texts: list[str], claims: np.ndarray | None, same: list[Embedded]
    ) -> list[list[PassageHit]]:
        """Per claim, every passage of the same-item records with the judge's
        cosine (empty without a judge's claim decision). Only records already
        judged the same item are read, so the judge embeds a few passages per
        repeat and nothing for a NEW item."""
        if claims is None or self.config.judge_claim_known is None or not same:
            return [[] for _ in texts]
        with timings.phase("judge claims"):
            passages = [(known, self._judge_passages(known)) for known in same]
        return [
            [PassageHit(known, i, c) for known, vectors in passages for i, c in known.facts(vectors @ claim)]
            for claim in claims
        ]

    def _judge_passages(self, known: Embedded) -> np.ndarray:
        """A same-item record's passages embedded by the judge, kept across checks."""
        assert self.judge is not None
        return judged_passages(self.judge).vectors(known.passages)
