"""One company's deals with different counterparts are different items.

Probe 37: "Merrowind 以 1.1 亿美元收购评测工具公司 Quillfeather" was taken for "Merrowind acquires
data-labelling startup Pintail Data for $640M" (learned 0.73, audit 0.99): two acquisitions by one
buyer read alike on every other word (price, team, closing), and the subject rule
(``subjects.subjects_differ``) and the event rule (``subjects.events_differ``) both see one
company's one kind of event. What sets them apart is the other party: the company bought,
the customer or supplier a contract is with. When both titles report a deal of one company
(an acquisition, a contract), each names a counterpart, and neither record mentions a
counterpart of the other's title, they are two items.

A retelling, in either language, names the company bought: its record mentions the other
title's counterpart ("Merrowind buys Pintail" against "Merrowind 收购 Pintail Data"). A title
naming no counterpart ("Merrowind closes a $640M deal") settles nothing. A mention the record
makes only in its relation line ("本周第二笔收购（12-08 锚定了对 Pintail Data 的收购）") or in a
role (``mention_roles``: a rival, an earlier deal it follows) is context, not its counterpart:
the caller passes the record's text without them. Funding rounds are left out: two retellings of
one round often name different investors.
"""

from __future__ import annotations

import re

from kbsearch.dedupe.subjects import event_kinds, mentions, named_by_neither, not_a_subject

# The kinds whose titles name a counterpart: the company bought, the party a contract is with.
_DEALS = frozenset({"acquisition", "deal"})
# A counterpart as a title writes it: a run of capitalised words ("Pintail Data", "Corvalis AI"),
# read by its first word; a figure ($640M, Q3) or a short acronym (AI, GPU, GW, CEO) is no name.
_RUN = re.compile(r"(?<![\w$€£¥.-])([A-Z][A-Za-z0-9&-]*[a-z][A-Za-z0-9&-]*)((?:\s+[A-Z][A-Za-z0-9&.-]*)*)")


def counterparts(title: str, company: str) -> frozenset[str]:
    """The names a title gives besides ``company`` (lower-cased, each by its first word)."""
    found = set()
    for match in _RUN.finditer(title):
        words = [match.group(1), *match.group(2).split()]
        if any(w.lower().startswith(company) for w in words) or not_a_subject(words[0]):
            continue
        found.add(words[0].lower())
    return frozenset(found)


def counterparts_differ(item: tuple[str | None, str, str], known: tuple[str | None, str, str]) -> str | None:
    """Why two records with these (title subject, title, lower-cased text without its roles) are
    two items: both titles report a deal of one company, each names a counterpart, and neither
    record mentions one the other title names; or None."""
    (ours, our_title, our_text), (theirs, their_title, their_text) = item, known
    lowered = our_title.lower(), their_title.lower()
    company = next((s for s in (ours, theirs) if s and all(mentions(t, s) for t in lowered)), None)
    if company is None or not event_kinds(our_title) & event_kinds(their_title) & _DEALS:
        return None
    mine, other = counterparts(our_title, company), counterparts(their_title, company)
    if not mine or not other:
        return None
    listed = named_by_neither((mine, other), (our_text, their_text))
    if listed is None:
        return None
    return f"the titles report deals of {company} with different counterparts ({listed}), neither named by the other"
