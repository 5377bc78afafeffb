"""A fact the records say is not out yet, which the claim now gives: "Root cause not yet
published" then "根因：扩容脚本误删了路由表"; "volume shipping not yet announced" then "now
shipping in volume"; "交易金额未披露" then "the deal is worth $1.2B".

The claim decision reads the two as one sentence (they name the same outage, the same chip,
in nearly the same words), so the later step came out known and an UPDATE a DUPLICATE (probes
37, 39). A "not yet" is the earlier step of the very fact it names, as an open issue is of its
fix (``later_steps``): its noun (the cause, the price, the date, the amount, volume shipping)
given plainly is the later step, news.

Read by a few nouns of what a briefing reports as still to come, each in both languages (a
writer in the other language names the same fact, 根因 for "root cause"): a noun is pending
where ``later_steps.NOT_YET`` or a word of not knowing ("unknown", "TBD", 待定, 不明, "under
investigation") stands just before or after it in its clause, and given elsewhere. The claim
gives the fact when it writes the noun given and no record (nor the passage weighed) does:
a record that already gives the cause makes the claim's cause a restatement, whatever the
wording. Nouns that are also ordinary words of a method (时间, cost) are left out: a paper's
"inference time" is no date to come.
"""

from __future__ import annotations

import re

from kbsearch.text.later_steps import NOT_YET

_FACTS: dict[str, re.Pattern[str]] = {
    "cause": re.compile(
        r"\b(?:(?:root[- ])?causes?|caused by|traced (?:back )?to)\b|根因|原因|起因|源于",
        re.IGNORECASE,
    ),
    "price": re.compile(r"\b(?:pric(?:e|es|ed|ing))\b|定价|售价|价格", re.IGNORECASE),
    "date": re.compile(
        r"\b(?:(?:release|launch|ship|shipping|availability|general availability|GA) date|timeline)\b"
        r"|(?:发布|上线|上市|发货|出货|交付)(?:日期|时间)|时间表",
        re.IGNORECASE,
    ),
    "amount": re.compile(
        r"\b(?:deal (?:value|size|terms)|terms of the deal|valuation)\b|交易金额|收购金额|估值", re.IGNORECASE
    ),
    "volume shipping": re.compile(
        r"\b(?:(?:volume|mass) (?:shipping|shipments?|production)|ship(?:s|ping)? in volume)\b"
        r"|量产|批量出货|大规模出货",
        re.IGNORECASE,
    ),
}
"""The facts a record tells as still to come, by the nouns that name them (see the module)."""

_DISCLOSE = (
    r"(?:公布|披露|公开|说明|透露|给出|确定|确认|明确|查明|publish|disclos|announc|reveal|give|given|releas|confirm|shar"
    r"|stat|determin|identif|known|clear|finali[sz]|set)"
)
_HELD_BEFORE = re.compile(
    rf"(?:(?:尚未|暂未|并未|未|没有|还没|not yet|has not|have not|hasn't|haven't|did not|didn't|declined to|refused to"
    rf"|yet to)\s*(?:been\s+|be\s+)?{_DISCLOSE}\w*(?:\s+the)?"
    r"|\b(?:unknown|undisclosed|unannounced)|尚无|暂无|未知|不详)\s*$",
    re.IGNORECASE,
)
"""A fact held back, said before its noun: "尚未公布根因", "has not disclosed the price", "undisclosed terms"."""
_HELD_AFTER = re.compile(
    r"^\s*[:：]?\s*(?:(?:is|are|was|were|has|have|remains?|still|so far|仍|尚|还|暂|目前)\s*)*"
    rf"(?:not (?:yet )?(?:been )?{_DISCLOSE}|yet to be {_DISCLOSE}|unknown|unclear|undisclosed|unannounced"
    rf"|pending|tbd|tba|to be {_DISCLOSE}"
    rf"|under investigation|being investigated|(?:尚|暂)?未{_DISCLOSE}|未知|未明|待定|待{_DISCLOSE}"
    r"|不明|不详|调查中|排查中)",
    re.IGNORECASE,
)
"""A fact held back, said right after its noun: "root cause not yet published", "定价待定", "交易金额未披露".
Only right after it, and only a word of telling: "主要原因是未能利用视觉信息" gives a cause (a
paper's), and "H200 价格尚未稳定" says the price moves, not that it is unknown."""
_TO_COME_AFTER = re.compile(
    r"^\s*[:：]?\s*[^,.;:，。；：!?！？\n]{0,16}?(?:\b(?:not|no|yet|unknown|unclear|undisclosed|unannounced|pending"
    r"|tbd|tba|to be|will|expected|planned|scheduled|slated|under investigation|being investigated)\b|n't"
    r"|尚未|未|待|不明|不详|未知|调查中|排查中|将|预计|计划)",
    re.IGNORECASE,
)
"""Words after a noun that leave its fact ungiven, read loosely ("mass production is expected in Q2")."""
_LOOK = 24
"""How far before a noun a "not yet" is read, as ``later_steps`` reads one before a step."""


def _said(pattern: re.Pattern[str], text: str) -> tuple[bool, bool]:
    """Whether ``text`` tells the fact as held back (narrowly: its noun right beside a word of not
    disclosing), and whether it gives it (the noun with no "not yet" before it, ``later_steps.NOT_YET``,
    and no word after it of the fact to come)."""
    held = given = False
    for found in pattern.finditer(text):
        before = text[max(0, found.start() - _LOOK) : found.start()]
        after = text[found.end() : found.end() + 40]
        held = held or bool(_HELD_BEFORE.search(before) or _HELD_AFTER.search(after))
        given = given or not (NOT_YET.search(before) or _TO_COME_AFTER.search(after))
    return held, given


def now_given(claim: str, passage: str, records: list[str]) -> str | None:
    """ "<fact> not yet → given" when the claim gives a fact that the passage weighed or a
    record of the item (``records``) tells as still to come and none of them gives; else None."""
    texts = [passage, *records]
    for fact, pattern in _FACTS.items():
        if not _said(pattern, claim)[1]:
            continue
        told = [_said(pattern, text) for text in texts]
        if any(pending for pending, _ in told) and not any(given for _, given in told):
            return f"{fact} not yet → given"
    return None
