"""Which same-item passage a known claim is weighed against when the one nearest to it
contradicts it.

The passage covering most of a claim is weighed (``claims.judge_said``), and the
cosine decision's best one (``claims.judge_claim``). When that passage tells an earlier
stage than the claim (``stages.moved_on``) or its record gives another figure than the
claim's, while another record of the item states what the claim does, the claim is no
news and that other passage is what says it: the card "v3 更正：加速 2.3 倍" was new
against spark's "3.1x" beside tom's "3.1 倍应为 2.3 倍" (moved on: reported → corrected),
and spark's correction was shown as known from spark's "3.1x", the passage it contradicts.
"""

from __future__ import annotations

from collections.abc import Iterable

from kbsearch.dedupe.embedded import Embedded
from kbsearch.text.fixes import FIX
from kbsearch.text.measures import clauses, given_otherwise
from kbsearch.text.pending import now_given
from kbsearch.text.polarity import restates, reverses
from kbsearch.text.quantities import new_figures, unstated
from kbsearch.text.rumours import CONFIRMATION
from kbsearch.text.scale_changes import scale_changed
from kbsearch.text.scope_changes import scope_widened
from kbsearch.text.stages import moved_on, told, untold
from kbsearch.text.switches import switched
from kbsearch.text.textsim import numbers

Figures = tuple[set[str], set[str], set[str]]
LATER_STEPS = (FIX, CONFIRMATION)
"""The tracks read beside ``stages`` (``later_steps``): a known issue fixed, a rumour confirmed."""


def _later_step(claim: str, passage: str) -> str | None:
    """The move of the first later step the claim tells of what the passage told, or None."""
    return next((move for step in LATER_STEPS if (move := step.moved(claim, passage))), None)


"""A claim's numbers, those it gives as replaced and those it writes as rough."""


def contradicts(claim: str, passage: str, record_numbers: frozenset[str], figures: Figures) -> bool:
    """Whether the passage tells an earlier stage than the claim, says the opposite of it
    (``polarity.reverses``), tells as open an issue the claim says is fixed (``fixes``), or its record gives a figure
    the claim says it replaces (spark's "3.1x" for "2.3x, not 3.1x as first reported") and
    lacks the claim's own. A record that only lacks a figure contradicts nothing: the
    records together state it (else the claim is new), and which passage is weighed stays
    the one covering most of the claim. A passage that gives the claim's quantity another
    figure (``measures.given_otherwise``: tom's "TTFT 降低 41%" for "TTFT 降低 47%") does,
    though the claim never quotes it: shown as saying the same, it would tell a reviewer
    the opposite of the claim."""
    claimed, replaced, rough = figures
    if moved_on(claim, passage) is not None or reverses(claim, passage) is not None or _later_step(claim, passage):
        return True
    gives_replaced = len(unstated(replaced, record_numbers)) < len(replaced)
    if gives_replaced and new_figures(claimed, record_numbers, replaced, rough):
        return True
    return bool(given_otherwise(claim, clauses(passage)))


def agrees(claim: str, passage: str, figures: Figures, against: str) -> bool:
    """Whether the passage itself states what the claim adds to ``against``, the one it
    contradicts: every stage, fix and correction the claim tells (``stages.told``, ``LATER_STEPS``; not merely
    no stage, which a method's key point also tells), the claim's figures, and each stance
    ``against`` reverses (``polarity.restates``; not merely no opposite one)."""
    claimed, replaced, rough = figures
    return (
        moved_on(claim, passage) is None
        and reverses(claim, passage) is None
        and restates(claim, passage, against)
        and told(claim, passage)
        and all(step.told_by(claim, passage) for step in LATER_STEPS)
        and not new_figures(claimed, numbers(passage), replaced, rough)
        and not given_otherwise(claim, clauses(passage))
    )


def told_texts(records: Iterable[Embedded]) -> list[str]:
    """What each record tells, as a claim's stage is read against it (``stage_moved``): its text
    and key points, and its caveats (警示). A caveat is no passage a claim is said by, but what it
    holds back is held back by the record: "警示：Root cause not yet published" makes a later
    record's cause news as the same words in the key points would (probe 37)."""
    return ["\n".join([k.text_and_claims, *k.record.caveats]) for k in records]


def stage_moved(claim: str, passage: str, records: list[str]) -> str | None:
    """The later stage the claim moves its item on to from the one the passage weighed
    tells (``stages.moved_on``: that passage only, as another sentence of its record may
    tell the stage of something else, a TensorRT-LLM PR in review beside a vLLM plugin),
    else a stage or fix that none of ``records`` (the texts of the records it is weighed
    against) tells at all (``stages.untold``): "代码已开源" is no fact a card's title says.
    Or "reverses: …" when the claim says the opposite of that passage, or of one of the
    records that passage does not state it as the claim does, on one thing
    (``polarity.reverses``: "支持 SGLang" against "SGLang 尚不支持"): news, as a later stage
    is. A record's stance needs no stage's care: its object names what it is about. A fix
    of what that passage tells as a known issue is "known issue → fixed" (``fixes``), and a
    confirmation of what it tells as a rumour "reported → confirmed" (``rumours``). A named value
    or rank the claim says its item switched to that none of them writes (``switches``: a licence
    "由 A 改为 Apache-2.0", a rank "from 4th to 6th"), or a level or cadence (``scale_changes``: "由"中"
    上调为"高"", "from once a year to every six months") is "A → B"; a scope told to have
    grown to what none of them states (``scope_changes``: "范围扩展到 X", "now also covers X") is
    "scope → also X"; a fact they tell as not yet out that the claim gives (``pending``: "Root
    cause not yet published", then the cause) is
    "<fact> not yet → given"."""
    records = list(dict.fromkeys(records))
    reversed_elsewhere = (r for r in map(lambda text: _reversal(claim, passage, text), records) if r)
    return (
        moved_on(claim, passage, records)
        or _later_step(claim, passage)
        or reverses(claim, passage)
        or untold(claim, records)
        or next(reversed_elsewhere, None)
        or switched(claim, passage, records)
        or scale_changed(claim, passage, records)
        or scope_widened(claim, passage, records)
        or now_given(claim, passage, records)
    )


def _reversal(claim: str, passage: str, record: str) -> str | None:
    """What ``record`` reverses of the claim that ``passage`` does not state as the claim does."""
    reversal = reverses(claim, record)
    return reversal if reversal and not restates(claim, passage, record) else None
