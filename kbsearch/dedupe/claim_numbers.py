"""Whether the numbers a claim adds to a same-item record make it new, or are detail
of a claim the record already states (``claims.judge_said`` and the replays' re-decision)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from kbsearch.dedupe.passage_reader import PassageHit
from kbsearch.dedupe.rules import Embedded
from kbsearch.dedupe.scorer import Scorer
from kbsearch.records import Kind
from kbsearch.text.differences import derived_figures
from kbsearch.text.hardware import measured_on_others, on_other_hardware
from kbsearch.text.measures import Clause, clauses, given_otherwise, measured_again, measured_elsewhere, without
from kbsearch.text.price_kinds import priced_otherwise
from kbsearch.text.quantities import (
    changes_a_figure,
    figure_readings,
    is_count,
    replaced_figures,
    set_against,
    unstated,
)
from kbsearch.text.told_changes import moved_from


class WeighedNumbers(Protocol):
    """What the decision reads of one weighed passage (``claims.Weighed``, or the
    ``ClaimEvidence`` a replay saved of it)."""

    @property
    def new_numbers(self) -> list[str]: ...
    @property
    def probability(self) -> float: ...
    @property
    def added_counts(self) -> bool: ...
    @property
    def key_point(self) -> bool: ...
    @property
    def changes_a_figure(self) -> bool: ...


SURELY_SAID = 0.5
"""A same-item passage that says the claim with at least this probability (``claim_said``)
carries the counts the claim adds (``quantities.added_counts``) as detail: another writer
of the paper gives the dataset's size or how many models were compared, and the method is
the one the record states. Chosen on the earlier half of the dev pairs (docs/dedupe.md)."""


def numbers_make_new(weighed: WeighedNumbers, form: Scorer) -> bool:
    """Whether the numbers a same-item passage's record lacks make the claim new. They
    do unless they only add counts (``quantities.added_counts``) to a claim the passage
    surely says, or the passage is a key point of the record that says the claim (by
    ``form``) and none of them can be a figure of the record changed: another writer's
    key point of the same result, with the figures that one left out. A summary that
    states a result's gist is no such key point: its figures are the news."""
    if not weighed.new_numbers:
        return False
    probability = weighed.probability
    if weighed.added_counts and probability >= SURELY_SAID:
        return False
    return not (weighed.key_point and not weighed.changes_a_figure and form.decide(probability))


def counts_beside(numbers: set[str], stated: set[str], rough: set[str]) -> list[str]:
    """The counts the records lack that ``quantities.new_figures`` takes for detail beside figures
    they do state (the 1.2M documents shared, the 0.9T tokens not): weighed as counts the records
    lack are when no figure is shared (``numbers_make_new``), they are detail only of a passage that
    surely says the claim or is a key point saying it. A claim only likely said that gives a new
    total beside a shared figure (re-released with 0.9T tokens after removing the 1.2M) is news."""
    return sorted(n for n in unstated(numbers, stated, rough) if is_count(n))


def figure_changed(
    claim: str, unseen: list[str], figures: tuple[set[str], set[str], set[str]], passage: str, record: str
) -> bool:
    """Whether a figure the claim adds to a same-item passage (``unseen``) keeps it new though
    the passage is a key point that says the claim (``numbers_make_new``): it can be one of the
    records' figures changed (``quantities.changes_a_figure``; ``figures``: the claim's, the
    records' stated and the claim's replaced ones), or is a result of its own (``figure_of_its_own``)."""
    numbers, stated, replaced = figures
    readings = figure_readings(claim)  # a score restated on its other scale (``decimal_scores``)
    return changes_a_figure(unseen, numbers, stated, replaced, readings) or figure_of_its_own(
        claim, unseen, passage, record
    )


def figure_of_its_own(claim: str, unseen: Iterable[str], passage: str, record: str) -> bool:
    """Whether a figure the claim adds to a key point it restates is a result of its own, not
    detail of that key point (``numbers_make_new``): the passage gives the figure's quantity
    a figure of its own the claim does not state, in any unit (2M tokens of context against
    "上下文长度提升 3.6 倍": ``measures.given_otherwise``), or the claim names accelerators
    and the record measured its figures on others only (H200 against H100). Riding on
    another writer's key point is for key points that state a result in words."""
    unseen = set(unseen)
    if not unseen:
        return False
    if measured_on_others(claim, record):
        return True
    return bool(unseen & given_otherwise(claim, clauses(passage), any_unit=True))


def stated_for(claim: str, records: Iterable[Embedded]) -> set[str]:
    """The figures ``records`` state, less those they give only for another quantity than
    the claim's (``measures.measured_elsewhere``: a hit rate's 71% is no memory drop of 71%)
    or only on other accelerators or for another kind of price than the claim names
    (``hardware.on_other_hardware``, ``price_kinds.priced_otherwise``: a reserved $2.69 is
    not another record's on-demand $2.69); with the claim's figures that are a change they
    state written another way (``derived``)."""
    kept = list({r.record.id: r for r in records}.values())
    stated: set[str] = set().union(*(r.stated_numbers for r in kept))
    if not stated:
        return stated
    known = (clause for r in kept for clause in r.clauses)  # split only if the claim has a figure to place
    texts = [r.text_and_claims for r in kept]
    elsewhere = measured_elsewhere(claim, known) | on_other_hardware(claim, texts) | priced_otherwise(claim, texts)
    return without(stated, elsewhere) | derived(claim, kept)


def stated_by(claim: str, known: Embedded) -> frozenset[str] | set[str]:
    """The figures one record states for the claim: less those it gives only on other
    accelerators or for another kind of price than the claim names (2.4x on H200 is not the
    record's 2.4x on H100), with the claim's figures that are a change it states written
    another way (``derived``)."""
    elsewhere = on_other_hardware(claim, [known.text_and_claims]) | priced_otherwise(claim, [known.text_and_claims])
    stated = without(known.stated_numbers, elsewhere) if elsewhere else known.stated_numbers
    return stated | derived(claim, [known])


def derived(claim: str, records: Iterable[Embedded]) -> set[str]:
    """The claim's figures that are a change the records state, written as its difference,
    ratio or percent change ("by 7.94%" for "from 31.86% to 39.80%": ``differences``)."""
    return derived_figures(claim, (r.text_and_claims for r in records))


def replaced_for(claim: str, records: Iterable[Embedded]) -> set[str]:
    """The records' figures the claim gives as replaced ("down from the 31%"), sets a
    figure of its own against for the same quantity ("28%, below the 35% in the release
    note": ``measures.measured_again``) or tells its quantity moved from, to a figure the
    records lack ("raised from 2% to 4%": ``told_changes.moved_from``): restated, they are
    still figures it changes."""
    kept = list({r.record.id: r for r in records}.values())
    stated: set[str] = set().union(*(r.stated_numbers for r in kept))
    moved = _moved(claim, kept, stated) if stated else set()
    return replaced_figures(claim) | measured_again(claim, (clause for r in kept for clause in r.clauses)) | moved


def replaced_beside(claim: str, hit: PassageHit, replaced: set[str]) -> set[str]:
    """The figures ``claim`` replaces, weighed against one passage (``claims._weigh``): ``replaced``,
    read against the item's records (``replaced_for``), and for a passage of another record (a
    living-doc section) the figures of that record the claim quotes only to set its own against
    (``measures.measured_again``): "每天减少 22 分钟，厂商口径为 38 分钟" against a section's "每天减少 38
    分钟" gives a second figure of the section's quantity, not detail of it (probe 50)."""
    if hit.known.record.kind is not Kind.doc_section or not set_against(claim):
        return replaced  # an item's records were read by ``replaced_for``; another item's say nothing of it
    return replaced | measured_again(claim, hit.known.clauses)


def _moved(claim: str, records: list[Embedded], stated: set[str]) -> set[str]:
    """``told_changes.moved_from``, less a start the records give only for another quantity:
    every clause of theirs giving it is in the claim's language and shares no word with the
    claim's clause of the change (a memory cut of 35% is no success rate raised "由 35% 提高到
    42%"). Across languages no word is shared whatever the quantity: the change is trusted."""
    starts = moved_from(claim, stated)
    if not starts:
        return starts
    known = [clause for r in records for clause in r.clauses]
    own = clauses(claim)
    # The clause of the change gives both its ends; another may restate the start for its own quantity.
    return {s for s in starts if not _given_elsewhere(s, [c for c in own if c.gives(s) and len(c.figures) > 1], known)}


def _given_elsewhere(start: str, mine: list[Clause], known: list[Clause]) -> bool:
    giving = [c for c in known if c.gives(start)]
    return bool(mine and giving) and all(
        c.language == m.language and not c.words & m.words for c in giving for m in mine
    )
