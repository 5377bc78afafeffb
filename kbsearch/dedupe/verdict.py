"""An item's verdict from its judged matches and claims, with the one-line reason check prints."""

from __future__ import annotations

from collections.abc import Mapping

from kbsearch.dedupe.day_order import all_signed, day_order
from kbsearch.dedupe.flags import seen_order
from kbsearch.dedupe.results import ClaimStatus, Match, Rule, Verdict
from kbsearch.records import Kind
from kbsearch.text.polarity import REVERSES
from kbsearch.text.written_figures import as_written


def decide(
    matches: list[Match], claims: list[ClaimStatus], own_id: str | None = None, shown: int | None = None
) -> tuple[Verdict, str]:
    """The verdict and a one-line reason; never at odds with the claims.

    DUPLICATE when a known record is the same item and every claim is known
    (nothing in the item is new), or when none is but living-doc sections
    state every claim (``stating_sections``); UPDATE when one is and some
    claim is new, or when each is an earlier release (``Rule.new_release``);
    NEW when none is: a claim of such an item that another item's nearest
    passage says (``claim_said``) is shown known, but is no evidence of the
    item; its reason names the closest record only among the first ``shown``
    matches (those check lists), and only when its probability prints above
    0.00 (``closest``). A record under ``own_id`` (the item's id) is the item's own earlier version,
    and the reason says so: an edited item checked again is matched with it."""
    same = _item_first([m for m in matches if m.same_item])
    identical = [m for m in same if m.rule is Rule.identical_text]
    new = [c for c in claims if not c.known]
    if identical and not new:  # the same text with a key point of its own is an update
        return Verdict.DUPLICATE, f"identical text to {identical[0].id}"
    if not same:
        sections = stating_sections(claims)
        if sections:  # every claim is one the living doc states: nothing in the item is new
            them = "it" if len(claims) == 1 else "them"
            states = "states" if len(sections) == 1 else "state"
            return Verdict.DUPLICATE, (
                f"{_claims_said(0, len(claims))}: {', '.join(sections)} {states} {them} "
                f"(living-doc {'section' if len(sections) == 1 else 'sections'}: evidence, not the same item)"
            )
        best = closest(matches[:shown])
        named = f"; closest {best.id}, same item {best.probability:.2f}" if best else ""
        return Verdict.NEW, "no known record describes the same item" + _doc_states(claims) + named
    named = f"its own earlier version {same[0].id}" if same[0].id == own_id else same[0].id
    # Of only earlier releases, the release is news: an UPDATE, however its claims restate them.
    released = "" if any(m.rule is not Rule.new_release for m in same) else f" ({same[0].reasons[0]})"
    if claims and not new and not released:
        return Verdict.DUPLICATE, f"same item as {named}, and {_claims_said(0, len(claims))}"
    numbers = sorted({n for c in new for n in as_written(c.text, c.new_numbers)})  # as written: "14 days", not "2wk"
    moved = sorted({c.moved_on for c in new if c.moved_on and not c.moved_on.startswith(REVERSES)})
    extra = f" (new numbers: {', '.join(numbers)})" if numbers else ""
    extra += f" (moved on: {', '.join(moved)})" if moved else ""
    extra += "".join(sorted({f" ({c.moved_on})" for c in new if c.moved_on and c.moved_on.startswith(REVERSES)}))
    if claims and len(new) == len(claims):  # the UPDATE rests on the item decision alone: say which
        return Verdict.UPDATE, f"same item as {named} by {_by(same[0])}; {_none_known(len(claims))}{extra}{released}"
    return Verdict.UPDATE, f"same item as {named}, {_claims_said(len(new), len(claims))}{extra}{released}"


def _by(match: Match) -> str:
    """What decided a match is the same item, for a reason that rests on it alone (probe 43's
    "UPDATE … 3 of 3 claims new" read as a contradiction: no claim of it is known)."""
    said = f": {match.reasons[0]}" if match.reasons else ""
    return f"the learned decision{said}" if match.rule is Rule.learned else f"rule {match.rule.value}{said}"


def _none_known(claims: int) -> str:
    if claims == 1:
        return "its 1 claim is not known: it is new"
    return f"no claim of it is known: {'both' if claims == 2 else f'all {claims}'} are new"


def closest(shown: list[Match]) -> Match | None:
    """The record a NEW item's reason names closest: of the matches shown, the one the learned
    decision found likeliest the same item. A probability that a rule overrode (a doc section,
    other ids, other names) would read as "same item 0.99" beside NEW, so the closest is a
    learned one; one past the matches shown is not named (probe 28: "closest spark/…#2, same
    item 0.00", a record the list below it left out), nor one whose probability prints as 0.00:
    nothing is close then."""
    learned = [m for m in shown if m.rule is Rule.learned and f"{m.probability:.2f}" != "0.00"]
    return max(learned, key=lambda m: m.probability, default=None)


def edit_of_own(verdict: Verdict, matches: list[Match], own_id: str) -> bool:
    """A DUPLICATE whose only same-item record is its own earlier version (this very id: the same source,
    the same item number): the writer reworded it, adding no fact. An edit, not a repeat, which
    ``--accept`` stores in its place; a repeat of any other record as well is not."""
    same = {m.id for m in matches if m.same_item}
    return verdict is Verdict.DUPLICATE and same == {own_id}


def _claims_said(new: int, claims: int) -> str:
    """How many claims are new, worded for none, one, two and more (``both claims are known``,
    ``all 3 claims are known``, ``2 of 3 claims new``)."""
    if not claims:
        return "no claims to compare"
    if claims == 1:
        return f"its 1 claim is {'new' if new else 'known'}"
    if new:
        return f"{new} of {claims} claims new"
    return "both claims are known" if claims == 2 else f"all {claims} claims are known"


def _item_first(same: list[Match]) -> list[Match]:
    """The same-item matches, those of the item itself (a card, an increment)
    before the living-doc sections that cite it: a section shares the item's
    id because it was accepted there, so it is evidence, not the item a reason names."""
    return sorted(same, key=lambda m: m.kind is Kind.doc_section)


def stating_sections(claims: list[ClaimStatus]) -> list[str]:
    """The living-doc sections stating the claims of an item, when each claim is known
    from one; else none. A section is never the same item as an increment or a card
    (it covers its field), but what it states is known: an item all of whose claims
    the living doc states already brings nothing new (issue 25)."""
    if not claims or not all(c.known and c.best_kind is Kind.doc_section and c.best_id for c in claims):
        return []
    return sorted({c.best_id for c in claims if c.best_id})


def doc_stated(claims: list[ClaimStatus]) -> list[str]:
    """The living-doc sections stating some claim of an item: a claim known from one, or new
    only by a figure against one (its passage says the claim but for a number). Of a NEW item
    the reason names them before any unrelated closest record (probe 23: the EP=64 claim that
    doc/serving §1.6 states was seen only in the claim lines)."""
    return sorted({c.best_id for c in claims if c.best_id and c.best_kind is Kind.doc_section and _stated(c)})


def _stated(claim: ClaimStatus) -> bool:
    return claim.known or (claim.score >= claim.threshold and bool(claim.new_numbers) and not claim.moved_on)


def _doc_states(claims: list[ClaimStatus]) -> str:
    """ "; the living doc states 1 of 2 claims: doc/serving#§1.6" for a NEW item, or ""."""
    sections = doc_stated(claims)
    if not sections:
        return ""
    stating = [(n, c) for n, c in enumerate(claims, start=1) if c.best_id in sections and _stated(c)]
    said = [(n, c.best_id) for n, c in stating if c.known]
    figure = [(n, c.best_id) for n, c in stating if not c.known]
    parts = [_numbered(said, len(claims), "")] if said else []
    if figure:
        parts.append(_numbered(figure, len(claims), " but for new numbers"))
    return f"; the living doc states {', and '.join(parts)}"


def _numbered(stated: list[tuple[int, str | None]], claims: int, but: str) -> str:
    """ "claims 1, 3 of 3 (doc/a#§1, doc/b#§2)": which claims, not only how many (probe 44)."""
    numbers = ", ".join(str(n) for n, _ in stated)
    where = ", ".join(sorted({section for _, section in stated if section}))
    return f"claim{'s' * (len(stated) > 1)} {numbers} of {claims}{but} ({where})"


def held_in_doc(holding: list[Match], first: Match | None) -> Match | None:
    """The earliest of the living-doc sections ``holding`` the item (``doc_holding``: audit's
    "in doc", never a section a rule set apart, whatever its learned score) dated before
    ``first``, an item: a section is never the item, but it held it first (probe 14: LowBitKV,
    first seen tom 11-02, was in doc/inference §1.3 dated 11-01)."""
    if first is None or first.kind is Kind.doc_section or first.date is None:
        return None
    held = [m for m in holding if m.kind is Kind.doc_section and m.date is not None and m.date < first.date]
    return min(held, key=lambda m: (m.date or first.date, m.id), default=None)


def first_seen(
    matches: list[Match], arrival: Mapping[str, int] | None = None, signed: Mapping[str, str | None] | None = None
) -> Match | None:
    """The first seen of ``matches``, in ``flags.seen_order``: of one day's writers, the
    one whose record was stored first (``arrival``: stored records' row ids by id; one
    writer's day arrives with its earliest record), or signed first when every stored
    writer's match of that day gives a time (``signed``: ``Record.signed_at`` by id), as
    audit's ``same_day.first_of_day``; of one writer's records on one day, the one most
    surely the same item."""
    stored, times = arrival or {}, signed or {}
    day_arrival: dict[tuple[str | None, object], int] = {}
    for m in matches:
        if m.id in stored:
            key = (m.instance, m.date)
            day_arrival[key] = min(day_arrival.get(key, stored[m.id]), stored[m.id])
    day_arrival |= _signed_order(matches, stored, times)

    def order(m: Match) -> tuple[object, ...]:
        arrived = day_arrival.get((m.instance, m.date))
        return (*seen_order(m.date, m.kind, m.instance, arrived), -m.probability, m.id)

    return min(matches, key=order, default=None)


def _signed_order(
    matches: list[Match], stored: Mapping[str, int], signed: Mapping[str, str | None]
) -> dict[tuple[str | None, object], int]:
    """Of each day whose stored writers' matches all give a signing time, each writer's
    place by its earliest time (then its arrival), in place of its arrival: so a backfill's
    order of loading no longer decides (probe 28). ``day_order``, audit's and re-check's rule."""
    days: dict[object, list[Match]] = {}
    for m in matches:
        if m.instance is not None and m.kind is not Kind.doc_section and m.id in stored:
            days.setdefault(m.date, []).append(m)
    placed: dict[tuple[str | None, object], int] = {}
    for day, ms in days.items():
        if not all_signed(entries := [(m, signed.get(m.id), stored[m.id]) for m in ms]):
            continue
        writers = dict.fromkeys(m.instance for m in day_order(entries))  # each at its first entry
        for place, writer in enumerate(writers):
            placed[(writer, day)] = place
    return placed
