"""Whether a claim confirms what the passage weighed tells as a rumour or a report: "the company
confirmed the tape-out" against "传闻：… 采用 2nm 工艺" or "X reportedly tapes out on 2nm".

The claim decision reads the two as one sentence (they name the same product, process and
plant), so an official confirmation came out known and its news lost (probe 33). A rumour
confirmed is a later stage of one item, as ``stages.moved_on`` reads a release after a plan;
``rumour_moved`` tells the two apart, as ``fixes.fix_moved`` does a fix of an open issue.

Read narrowly on both sides. The passage must hedge what it tells in a reporter's words
(reportedly, rumoured, sources say, unconfirmed, 传闻, 据传, 消息人士, 未经证实, 官方未回应; not
据传 in 数据传输), and
tell no confirmation itself. The claim must say a confirmation made (confirmed, officially
announced, made official, 官宣, 证实, 官方确认), not one lacking ("has not confirmed", 尚未证实,
"unconfirmed"). A paper's "ablation confirms that…" is no such move: its passage tells no rumour.
"""

from __future__ import annotations

import re

from kbsearch.text.later_steps import NOT_YET, LaterStep

CONFIRMED = "reported → confirmed"
"""What ``rumour_moved`` returns, shown as the claim's move."""

_RUMOUR = re.compile(
    r"\b(?:reportedly|rumou?r(?:s|ed)?|unconfirmed|(?:sources?|insiders?|people) (?:say|said|familiar|close)"
    r"|according to (?:sources|people|insiders|a report|reports)|is said to|are said to)\b"
    r"|传闻|据传(?![输递送播入出导])|坊间传|消息人士|知情人士|爆料|小道消息|据报道|未经证实|尚未证实|未获(?:官方)?证实|官方(?:尚)?未(?:回应|证实|确认)",
    re.IGNORECASE,
)
_CONFIRM = re.compile(
    r"\b(?:confirm(?:s|ed|ing)?|officially (?:announc\w*|unveil\w*|launch\w*)|made (?:it )?official)\b"
    r"|官宣|证实|(?:官方|正式|公司)(?:宣布|确认|公布)|予以确认|确认了",
    re.IGNORECASE,
)


CONFIRMATION = LaterStep(
    CONFIRMED,
    _CONFIRM,
    NOT_YET,
    earlier=lambda text: _RUMOUR.search(text) is not None,
)
rumour_moved = CONFIRMATION.moved
confirmation_told = CONFIRMATION.told_by
