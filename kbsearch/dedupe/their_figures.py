"""A claim's figures that are another system's, as the records give them: not the item's news.

"成功率 66.7%，超过 Halcyon-VLA v1.1 的 63.0%" was new by 63.0% and 66.7% (probe 47): no
record of the item states 63.0%, but a record about Halcyon-VLA v1.1 does, and the claim
gives it as that system's (``text.attributed_figures``). Such a figure is left out of the
claim's new figures (``claims.judge_said``, ``claims.judge_claim``); its own 66.7% stays.

Narrow on purpose: the figure must be one a stored record about the named system states (its
title names the system: what the record is about, as the probe's record of v1.1 is), and the
system must be another item's (the item's own title does not name it; a record of the item is
read as the item's records always are). A compared figure no record gives for its system is
the claim's to tell, and stays new: the records cannot show it is not news.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from kbsearch.dedupe.rules import Embedded
from kbsearch.text.attributed_figures import attributed_figures
from kbsearch.text.quantities import same_figure
from kbsearch.text.textsim import substantive_numbers


def their_figures(claim: str, title: str, others: Iterable[Embedded]) -> frozenset[str]:
    """The claim's figures (``substantive_numbers``' spelling) it gives as a named system's
    that a record about that system among ``others`` (records not of the item) states;
    ``title``: the item's, which names its own systems."""
    attributed = [(name, figures) for name, figures in attributed_figures(claim) if not _names(title, name)]
    if not attributed:  # most claims: no comparison with a named figure
        return frozenset()
    records = list(others)
    theirs: set[str] = set()
    for name, figures in attributed:
        stated = [n for o in records if _names(o.record.title, name) for n in o.stated_numbers]
        theirs |= {f for f in figures if any(same_figure(f, s) for s in stated)}
    return frozenset(substantive_numbers(claim) & theirs)  # as the claim spells them: its own 63.2% stays


def _names(text: str, name: str) -> bool:
    """Whether ``text`` writes ``name`` whole, in any case and spacing."""
    spelled = r"\s+".join(re.escape(word) for word in name.split())
    return re.search(rf"(?<![A-Za-z0-9]){spelled}(?![A-Za-z0-9])", text, re.IGNORECASE) is not None
