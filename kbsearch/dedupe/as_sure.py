"""Which of a repeat's as-sure same-item matches the others are kept consistent with.

A retelling's same-item probability saturates near 1, so two matches that are different
items from each other can both come out "as sure" (``rules.AS_SURE``); ``rules.one_item``
keeps one of them and sets apart what its record is a different item from.
"""

from __future__ import annotations

from kbsearch.dedupe.results import Match


def kept_anchor(anchors: list[Match], apart: dict[str, dict[str, Match]], voters: set[str]) -> tuple[Match, str]:
    """The anchor the other matches are kept consistent with, and why. Of matches about as sure
    as the surest, the one the fewest others as sure are told apart from (a round-up naming two
    items scores as high as either's own records, and would set them apart); then the clearly
    nearer (``NEARER``: the probability saturates, the cosine still tells them apart), else the
    surer. A weaker match's vote is thinner evidence, unless exact evidence ties it to one
    (``voters``): probe 31's note on a harness release matched its record (1.00, cosine 0.82)
    and a score report (0.997, 0.38), which a weaker report sided with by the learned decision."""
    if len(anchors) == 1:
        return anchors[0], f"the surest: {anchors[0].reasons[0]}"
    against = {m.id: len(voters & apart[m.id].keys()) for m in anchors}
    fewest = [m for m in anchors if against[m.id] == min(against.values())]
    surest = max(fewest, key=lambda m: (m.probability, nearness(m)))
    nearest = max(fewest, key=nearness)
    anchor = nearest if nearness(nearest) - nearness(surest) >= NEARER else surest
    dropped = [m for m in fewest if m is not anchor and m.id in apart[anchor.id]]
    if dropped:
        near = max(dropped, key=nearness)
        cosines = f"cosine {anchor.score:.2f} against {near.score:.2f}"
        if nearness(anchor) - nearness(near) >= NEARER:
            return anchor, f"as sure, {anchor.probability:.2f}, and nearer than {near.id}: {cosines}"
        return (
            anchor,
            f"surer than {near.id}, {anchor.probability:.4f} against {near.probability:.4f}, as near: {cosines}",
        )
    agree = len(voters) - 1 - against[anchor.id]
    return anchor, f"{anchor.probability:.2f}; {agree} of the {len(voters) - 1} others voting agree with it"


NEARER = 0.05
"""A match this much nearer than a surer one as sure is kept instead (probe 31: 0.82 against 0.38);
closer than that the cosines tell nothing, and the surer stays (a dev item's own paper, 1.00,
lost to another paper's record, 0.9955, by a cosine a few thousandths nearer)."""


def nearness(match: Match) -> float:
    """How near a match came: beside the item's candidates of its language, when read."""
    return match.features.get("language_relative", match.score)
