"""Key points that recall another item as background: no evidence that the item is that item.

A writer recalls an item the team already holds inside a new one, as context for it: "背景：X-3
红队报告给出的越狱成功率为 12%" in a bounty's key points, "Context: CVE-… was in the
model-loading endpoint" in a release that hardens it, "as reported on 9-16, …". Probe 46: such a
point was the nearest passage to the recalled item's own key points, and the key-point features
(``claims_covered``, ``claims_back``) and the shared figure joined the bounty to the red-team
report (1.00) and the release to the CVE's advisory (0.81).

So the same-item features read an item by its own key points: a background point is left out of
its key points and of the passages the other record's points are matched against, and a figure
it alone gives is no shared number (as a figure given only in an earlier day's citation is not,
``citations``). The other key points must carry the join. Whether a stated fact is known is
``claims``' question, not this one's; of a background point, which recalls another item's
fact, any record that states it may answer (``background_facts``).

A point is background when it opens with a background label (背景, 背景信息, 相关背景, 前情,
回顾, context, background, for background, backdrop, recap, previously, as a reminder; "Context:
32k tokens" is a context length; "Recall:" is no label, it is a metric) or with "as
reported/noted/covered", or cites an earlier day's
item ("（12-14锚定）") by a name the record's title does not write: a retelling that notes its
own earlier day ("吞吐提升至 2.1 倍（9-16锚定为 1.8 倍）") recalls itself, and stays. A record
whose key points are all background (a re-listing of an anchored item, told again) keeps them
all: they are all it says.

Nor is a name the record writes only in such a point its own mention of that name, for the rules
that read what a record names (``named_systems``, ``title_leads``, the subjects and model rules):
"Background: the same vendor's LungSight … was cleared on 11-12" in a second device's record
recalls LungSight's item, as a citation with an earlier day's note does. Probe 50: ChestGuard-PTX,
a chest X-ray triage tool, "named" LungSight through that point, so no names rule set it apart from
LungSight's own record, and the learned decision (1.00, one vendor, one kind of news) joined them.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from kbsearch.dedupe.citations import cited_only, names_written, without_citations
from kbsearch.dedupe.claim_decision import compared
from kbsearch.dedupe.features import claims_features, latin_names
from kbsearch.dedupe.results import Rule, form_of
from kbsearch.dedupe.scorer import Scorer

if TYPE_CHECKING:
    from kbsearch.dedupe.embedded import Embedded

# A label that opens the point, after a list mark: "背景：", "Context:", "For context -".
_LABEL = re.compile(
    r"^\s*(?:[-•*·]\s*)?(背景(?:信息|介绍)?|相关背景|前情(?:回顾|提要)?|回顾"
    r"|(?i:for\s+context|context|for\s+background|background|backdrop|recap|previously|as\s+a\s+reminder))"
    r"(?:\s*[:：]|\s+[-—–]\s)\s*"  # a hyphen only spaced: "Context-as-Memory" is a name
)
# "Context: 32k-token context window" is a model's context length, no recalled item.
_LENGTH = re.compile(r"(?i)^\d|tokens?\b|window|长度")
# A point that opens "as reported on 9-16, …" or "as previously noted, …"; inside a point the
# words tell what the item corrects ("3,400 jobs are cut, not 3,000 as first reported").
_AS_REPORTED = re.compile(
    r"(?i)^\s*(?:[-•*·]\s*)?as\s+(?:(?:previously|earlier|already)\s+)?(?:reported|noted|covered)\b"
)


_LEAD_END = re.compile(r"[,，:：]\s*")


def is_background(point: str, title: str) -> bool:
    """Whether the key point ``point`` of a record titled ``title`` recalls another item as background."""
    label = _LABEL.search(point)
    if label and not (label.group(1).lower() == "context" and _LENGTH.search(point[label.end() :])):
        return True
    if _AS_REPORTED.search(point):
        return True
    own = {name.lower() for name in latin_names(title)}
    return bool(cited_only(point) - own)


def recalled_fact(point: str) -> str:
    """The fact a background point recalls, without its label ("Background: X" → "X"; "as reported
    on 9-16, X" → "X"): the label is no part of the fact, and read with it the point was weighed
    against another record's labelled point ("Background: MedArena-Live is built from …") instead
    of the recalled record's Chinese sentence, which said it (probe 50). Any other point as it is."""
    label = _LABEL.search(point)
    if label:
        return point[label.end() :].strip() or point
    reported = _AS_REPORTED.search(point)
    lead = _LEAD_END.search(point, reported.end()) if reported else None
    return point[lead.end() :].strip() or point if lead else point


def background_points(claims: list[str], title: str) -> frozenset[str]:
    """The record's background key points; none when every point is one (they are all it says)."""
    found = frozenset(point for point in claims if is_background(point, title))
    return frozenset() if len(found) == len({c for c in claims if c.strip()}) else found


def recalled_only(title: str, text: str, claims: list[str]) -> frozenset[str]:
    """The names, lower-cased, that a record writes only in key points recalling another item as
    background: its title, its text and its other points never write them. A retelling's own
    points name its item again; a recalled item stays recalled."""
    points = background_points([c.strip() for c in claims], title)
    if not points:
        return frozenset()
    recalled = set().union(*map(names_written, points))
    return frozenset(recalled - names_written(stated("\n".join([title, text, *claims]), points)))


def stated(text: str, points: frozenset[str]) -> str:
    """``text`` with each background point blanked: what the record states of its own item."""
    for point in points:
        text = text.replace(point, " ")
    return text


def blanked(text: str, points: frozenset[str]) -> str:
    """``text`` with each background point (as written, or without its citations) written as
    spaces, its offsets kept: where the title rules look for what the record names as its own
    (``record_text``), as they look past a name in a role (``mention_roles``)."""
    for point in points:
        for written in {point, without_citations(point)}:
            if written.strip():
                text = text.replace(written, " " * len(written))
    return text


def own_rows(passages: list[str], rows: list[int], points: frozenset[str]) -> list[int]:
    """``rows`` (passage indices) without those of background points; all of them when that leaves none."""
    kept = [i for i in rows if passages[i] not in points]
    return kept if kept or not rows else rows


def rests_on_background(
    item: Embedded, known: Embedded, features: dict[str, float], scorer: Scorer
) -> tuple[Rule, bool, str] | None:
    """Two items, when the learned decision joins them by their own key points' features
    (``features``) only because a background point is there: with the background points read,
    a key point of one comes nearer the other (the recalled item), yet without them neither
    record's own key points come as near the other as the decision's average candidate pair
    does (its fitted means). Probe 46: a bounty whose point recalled the red-team report's 12%
    still joined it at 0.82 by the whole texts (one lab, one topic, the recalled figure in
    both), its own points 0.32 from the report's. A retelling's own key points say its facts
    again and come far nearer (they carry the join); a pair without background points is
    never read here. None: the decision stands."""
    if not (item.background or known.background) or item.claim_rows is None or "claims_covered" not in features:
        return None
    probability = scorer.probability(features)
    if not scorer.decide(probability):
        return None
    known_claims = known.claim_rows if known.claim_rows is not None else known.whole[None, :]
    read = claims_features(item.claim_rows, item.body_rows, known_claims, known.body_rows)
    own = {name: features[name] for name in read}
    if all(read[name] <= own[name] for name in read):
        return None  # the background points were no nearer the other record than the own ones
    means = dict(zip(scorer.features, scorer.means, strict=True))
    if any(own[name] >= means.get(name, 1.0) for name in own):
        return None
    said = compared(probability, "≥", scorer.threshold)
    return (
        Rule.learned,
        False,
        (
            f"another item: same item {said} ({form_of(features)} form) only by a key point recalling "
            f"another item as background; the own key points come no nearer than "
            f"{max(own.values()):.2f} (with it {max(read.values()):.2f})"
        ),
    )
