"""Whether a living-doc section holds an item: one rule for audit's "in doc" and check's "held by".

A section is never the same item as an increment or a card (``rules``), but one whose word on
the item ``check`` reads as evidence for its claims holds it: it lists the item's arXiv id, a
line names a rare coined name of its title, or copies one of its claims word for word
(``finer.section_on_item``), and it names what the title is about (``doc_subject``); or it writes
every name of a news title and the learned decision finds the two the same item
(``subject_held``). Audit lists such a section "in doc" in the item's cluster; check names the
earliest one dated before the item's first seen record "held by … since".

The learned same-item probability of a section never holds the item alone, and a section
that a rule set apart (about other arXiv ids, ``Rule.different_ids``, or only the paper the
item cites) holds nothing, however high its score. Probe 47: a same-day retelling of a robot
policy was "held by" the doc's section on the benchmark it reports a score on (0.99, driven
by the benchmark's name; the section is about other arXiv ids and never names the policy),
and probe 48: a recognizer "held by" the section on the base model it only cites (0.73),
while audit showed no section holding either.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from kbsearch.dedupe.claim_decision import compared
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.doc_subject import holding_reason
from kbsearch.dedupe.finer import item_names, section_on_item
from kbsearch.dedupe.results import Match, Rule
from kbsearch.dedupe.rules import Embedded
from kbsearch.dedupe.subjects import not_a_subject, title_subject
from kbsearch.records import Kind, Record


def holding(
    match: Match, item: Embedded, known: Embedded, config: DedupeConfig, name_count: Callable[[str], int]
) -> str | None:
    """Why the living-doc section of ``match`` (``known``, or ``item`` when it is the section)
    holds the other record, or None when it does not: only a section ``rules`` left a section
    (``Rule.doc_section``), never one they set apart. A survey sharing the item's topic words
    holds nothing, nor does one naming only the system the item lands in (``finer.item_names``),
    nor one naming a term of the item's field but not what its title is about (``doc_subject``)."""
    if match.rule is not Rule.doc_section:
        return None
    if match.shared_ids:
        return f"the section lists arXiv {', '.join(match.shared_ids)}"
    section, told = (known, item) if known.record.kind is Kind.doc_section else (item, known)
    coined = item_names(told, config, name_count)
    found = section_on_item(told.record, section.record, coined)
    # Naming a term of the item's field (a leaderboard, a licence) is not naming the item.
    held = None if found is None else holding_reason(told.record, section.record, *found, coined)
    return held or subject_held(match, told.record, section.record)


_TITLE_WORD = re.compile(r"(?<![A-Za-z0-9])[A-Za-z][A-Za-z0-9]*(?:[-.][A-Za-z0-9]+)*")
"""A Latin word of a title, hyphenated or dotted parts kept together ("Rover-M", "H2", "v1.1")."""
_HYPHEN_OR_NOT = r"[-\s]?"


def subject_held(match: Match, told: Record, section: Record) -> str | None:
    """Why ``section`` holds ``told``, a news item whose title reports on a name (``title_subject``:
    "Cobalt Logistics grows its Rover-M fleet"), when the section writes every name of the title
    (``title_names_written``) and the learned decision finds the two the same item; else None.
    Neither alone: a section naming a company holds none of its other news (probe 47: the doc's
    line on Vantor's Kestrel H1 does not hold "Vantor Kestrel H2 发布", though the learned score
    read 0.95), and a section the learned score finds close but that never names the item
    (probe 48: a TTS leaderboard's news at 0.98 beside the doc's TTS section) holds nothing. The
    coined-name reading misses a company written in plain words and a product whose suffix is
    one letter (probe 47: the doc's fleet section, naming both, held the fleet's growth only by
    the learned score); a section a rule set apart (other arXiv ids, or only the paper the item
    cites) holds nothing, whatever its score."""
    if match.rule is not Rule.doc_section or match.cited_ids or match.probability < match.threshold:
        return None
    names = title_names_written(told.title)
    if title_subject(told.title) is None or not names:
        return None
    written = f"{section.title}\n{section.text}".lower()
    if not all(re.search(_as_word(name), written) for name in names):
        return None
    said = compared(match.probability, "≥", match.threshold)
    return f"the section names {', '.join(names)}, as the title does, and the learned decision says same item {said}"


def title_names_written(title: str) -> list[str]:
    """The names a title writes, as it writes them: its Latin words with a capital or a digit
    ("Cobalt", "Logistics", "Rover-M", "H2"), not one opening a title without naming
    (``subjects.not_a_subject``: The, New), nor a figure (1,000)."""
    words = _TITLE_WORD.findall(title)
    named = [w for w in words if (w != w.lower() or any(c.isdigit() for c in w)) and not not_a_subject(w)]
    return list(dict.fromkeys(named))


def _as_word(name: str) -> str:
    """``name`` lower-cased as a whole word, its hyphen also written as a space or left out."""
    parts = _HYPHEN_OR_NOT.join(map(re.escape, name.lower().split("-")))
    return rf"(?<![a-z0-9]){parts}(?![a-z0-9])"


def in_doc(
    match: Match, item: Embedded, known: Embedded, config: DedupeConfig, name_count: Callable[[str], int]
) -> Match:
    """``match`` as audit keeps it: a section holding the item (``holding``) is in its cluster,
    "in doc" with the reason it holds it, and never a bridge between two clusters."""
    reason = holding(match, item, known, config, name_count)
    return match if reason is None else match.model_copy(update={"same_item": True, "reasons": [reason]})


def holding_sections(
    item: Embedded,
    matches: list[Match],
    known: Mapping[str, Embedded],
    config: DedupeConfig,
    name_count: Callable[[str], int],
) -> list[Match]:
    """Of ``matches`` (``known``: their records by id), the living-doc sections holding ``item``,
    as audit's cluster would list them "in doc": check's candidates for "held by"."""
    return [
        m
        for m in matches
        if m.kind is Kind.doc_section and m.id in known and holding(m, item, known[m.id], config, name_count)
    ]
