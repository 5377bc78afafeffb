"""Audit's reading of a pair with the judge's token alignment, as ``check`` decides it.

Audit builds its records from their stored vectors (``judging``) and stores no
token vectors, so it decides a pair by the unaligned forms, where ``check``
decides a short item by the aligned ones (``aligned_same_item``,
``aligned_claims_same_item``: the judge's token alignment of the pair, and of the
item with its nearest records). The two part: probe 39's audit joined a third
party's cost study with a product launch at 0.71 ≥ 0.45 (key points form), a
pair check set apart at 0.39 < 0.55 with the alignment; probe 43's joined a
lab's licence policy with its reranker release at 0.80 ≥ 0.45, 0.35 above the
line, where check read 0.52 < 0.55. So audit told as "the same claim across
writers", and flagged as "claimed new but seen before", a story check would
never join: one pair, two answers.

So audit joins no pair by an unaligned form that the aligned one has not
confirmed: every learned join read without the alignment, however far above
its line, is decided again with it, and so is a pair the unaligned form sets
apart within ``BAND`` below its line (below that the forms were not seen to
part), when check would align it (both texts within ``aligned_max_tokens``)
and the config has the aligned form; the aligned judgement replaces the
other. Exact evidence (a shared arXiv id, identical text) is no learned
decision and stays as it is. The neighbourhood's mean alignment
(``aligned_relative``) is read over the later record's own nearest records, as
audit's neighbourhood is; a pair across languages, given check's candidate search
(``audit_as_checked``), is aligned only when check would align it, against check's
candidates of the later record as of its day, so check, explain and audit agree.
A pair set apart far below the line (most: a million-record audit's candidate
pairs are mostly clear non-repeats) costs nothing more, and a config without a
judge has no aligned form, so the audit bench (no judge) runs as before. The
token encoder loads at the first pair it decides, and keeps what it encoded
(memory and the disk tier that checks fill), so a record's tokens are encoded
once per audit at most, and an audit reads the tokens of at most ``MAX_TEXTS``
texts: its cost is bounded whatever the index's size. Past it a pair stays
unaligned, and a join's reason says so (audit's timings count them).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from dataclasses import replace

from kbsearch.dedupe.audit_as_checked import CheckCandidates
from kbsearch.dedupe.check_reading import TokenVectors, to_align
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.embedded import Embedded
from kbsearch.dedupe.features import Neighbourhood, token_alignment
from kbsearch.dedupe.results import Match, Rule
from kbsearch.dedupe.rules import compare, mean_best
from kbsearch.embed import TokenEncoder

BAND = 0.3
"""How far below its threshold an unaligned probability setting a pair apart is read again with
the alignment (audit reads every unaligned join, however far above), and how far either side
check reads a candidate past its aligned cap again (``beyond_cap``). Probe 39's pair was 0.26
above (0.71 against 0.45); no pair set apart 0.3 below was seen to flip (the aligned and
unaligned forms were fitted on the same pairs, and part where the alignment is all that tells
them apart). Above the line the band was too narrow: probe 43's join was 0.35 above."""

MAX_TEXTS = 5_000
"""Distinct texts an audit reads token vectors of, at most: e5's token graph takes about 0.25 ms a
token on two cores, so 5,000 texts of the dev streams' median 40 tokens cost about 50 s if none is
in the memory or disk tier, whatever the index's size. Past it a pair stays unaligned, as every pair
was before audit read alignments, and a join's reason says so (``key_points.unaligned_reason``)."""

TokenSource = Callable[[], TokenEncoder | None]
"""The judge's token encoder, loaded when first asked (None: the judge gives none)."""


class PairAligner:
    """Decides again with the alignment the unaligned joins and the pairs set apart near the
    line; counts what it read."""

    def __init__(
        self,
        config: DedupeConfig,
        tokens: TokenSource | None,
        max_texts: int = MAX_TEXTS,
        as_checked: CheckCandidates | None = None,
    ) -> None:
        self.config = config
        self.as_checked = as_checked
        """Check's candidates of a later record: a pair across languages is read as check reads it."""
        self.max_texts = max_texts
        self._asked: set[str] = set()  # texts whose tokens were read: asked again, they are kept
        self._load = tokens if _has_aligned_form(config) else None
        self._vectors: TokenVectors | None = None
        self.aligned = 0
        """Pairs decided again with the alignment."""
        self.seconds = 0.0
        """Time spent on them, the token encoder's load and encoding included."""

    def decides_again(self, match: Match) -> bool:
        """Whether ``match`` is a learned decision read without the alignment that joins the
        pair, or sets it apart within ``BAND`` below its threshold, and this aligner can read tokens."""
        return self._load is not None and (unaligned_join(match) or unaligned_near_line(match))

    def judge(
        self,
        pair: tuple[Embedded, Embedded],
        match: Match,
        around: Neighbourhood,
        nearest: Callable[[], list[Embedded]],
        name_count: Callable[[str], int],
    ) -> Match | None:
        """The pair (later, earlier, as ``match`` decided them) decided with the alignment, when
        ``decides_again`` asks and both texts are short enough; else None (``match`` stands)."""
        if not self.decides_again(match):
            return None
        started = time.perf_counter()
        try:
            checked = self.as_checked.decided(*pair) if self.as_checked else None
            # Check's decision, aligned or not (past its cap, far from the line): one pair, one answer.
            return self._aligned(pair, around, nearest(), name_count) if checked is None else checked
        finally:
            self.seconds += time.perf_counter() - started

    def _aligned(
        self,
        pair: tuple[Embedded, Embedded],
        around: Neighbourhood,
        nearest: list[Embedded],
        name_count: Callable[[str], int],
    ) -> Match | None:
        vectors = self._token_vectors()
        if vectors is None:
            return None
        item, known = pair
        others = [n for n in nearest if n.record.id not in (item.record.id, known.record.id)]
        others = to_align(item, others, self.config.aligned_candidates)  # as many as check aligns
        texts = [item.whole_text, known.whole_text, *(n.whole_text for n in others)]
        if len(self._asked.union(texts)) > self.max_texts:
            return None  # the audit's bound on token reading is spent
        self._asked.update(texts)
        rows = vectors.of(texts)
        if not all(r is not None and len(r) for r in rows[:2]):
            return None  # a text longer than the aligned decision reads: check aligns it with nothing
        ours = rows[0]
        assert ours is not None
        # The known record is among check's candidates too: its alignment counts in the mean.
        alignments = [token_alignment(ours, r) for r in rows[1:] if r is not None and len(r)]
        near = replace(around, aligned=mean_best(alignments, self.config), alignments={})
        # Copies: the built records are shared with pairs decided unaligned, which must stay so.
        later, earlier = copy.copy(item), copy.copy(known)
        later.judge_tokens, earlier.judge_tokens = ours, rows[1]
        self.aligned += 1
        return compare(later, earlier, self.config, near, name_count)

    def _token_vectors(self) -> TokenVectors | None:
        if self._vectors is None and self._load is not None:
            encoder = self._load()
            if encoder is None:
                self._load = None  # no token encoder: every pair stays unaligned
                return None
            self._vectors = TokenVectors(encoder, self.config.aligned_max_tokens)
        return self._vectors


def unaligned_join(match: Match) -> bool:
    """Whether ``match`` is a learned decision read without the alignment that joins the pair:
    audit decides every one again with the alignment (check would, for a short item's nearest)."""
    return match.rule is Rule.learned and "aligned" not in match.form and match.same_item


def unaligned_near_line(match: Match) -> bool:
    """Whether ``match`` is a learned decision read without the alignment within ``BAND`` of its
    threshold: one check (``beyond_cap``) and audit decide again with the alignment."""
    unaligned = "aligned" not in match.form
    return match.rule is Rule.learned and unaligned and abs(match.probability - match.threshold) < BAND


def _has_aligned_form(config: DedupeConfig) -> bool:
    return config.judge is not None and (
        config.aligned_same_item is not None or config.aligned_claims_same_item is not None
    )
