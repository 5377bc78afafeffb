"""A release's own record comes before an earlier release its record gives as context.

``subjects.new_release`` ties a later release to the earlier one its record gives ("Wrenfold 1.1"
whose key point says "1.0 版是 3.1 倍"): with nothing known of 1.1, 1.1 is news of 1.0's item.
But once the knowledge base holds a record of the item's own release, the earlier version in
its key points is context (the figure the new one replaces), and the item is that record's
repeat. Probe 34: a Chinese retelling of "Fenwick-Code 2.5" ("150 亿参数，5 万亿 tokens（2.0 版为
3.5 万亿）") was tied to 2.0's record by the tie, exact evidence, and the English record of 2.5
itself (learned 1.00) was set apart as "a different item from" 2.0's: an UPDATE of 2.0 where it
repeated 2.5. The item's own version is its title's; a same-item match whose title names that
version of that product is the release's record, and the tie to an earlier release yields to it.
"""

from __future__ import annotations

from collections.abc import Callable

from kbsearch.dedupe.results import Match, Rule


def own_release_first(matches: list[Match], release_shared: Callable[[str], str | None]) -> list[Match]:
    """``matches`` with each new-release tie set apart (``Rule.surer_match``) when another
    same-item match's title names the item's own release. ``release_shared(id)`` says which
    release (``"product version"``) the item's title and that record's title both name, or None."""
    ties = [m for m in matches if m.same_item and m.rule is Rule.new_release]
    if not ties:
        return matches
    own = next(
        (
            (m, shared)
            for m in matches
            if m.same_item and m.rule is not Rule.new_release and (shared := release_shared(m.id))
        ),
        None,
    )
    if own is None:
        return matches
    record, release = own[0].id, own[1]
    reason = (
        f"the item's own release, {release}, has its record {record}: an earlier release its record gives is context"
    )
    return [
        m.model_copy(update={"same_item": False, "rule": Rule.surer_match, "reasons": [*m.reasons, reason]})
        if m.same_item and m.rule is Rule.new_release
        else m
        for m in matches
    ]
