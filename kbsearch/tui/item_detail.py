"""The evidence behind one verdict: reason, first seen, flags, claims and matches."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll

from kbsearch.dedupe.item_words import tag
from kbsearch.dedupe.results import ClaimStatus, Flag, FlagKind, ItemResult, Match
from kbsearch.render import clean
from kbsearch.render.cells import fit
from kbsearch.render.dedupe import OUTCOME_WORDS, evidence_words, held_text, item_lines
from kbsearch.text.polarity import moved_label
from kbsearch.text.written_figures import as_written
from kbsearch.tui.id_lines import IdStatic
from kbsearch.tui.literal import join, plain, verdict


def _who(instance: str | None, date: object) -> Text:
    return plain(f"{instance or '-'} {date or '-'}", style="cyan")


OUTCOME_STYLE = {"stored": "green", "replaced": "green", "unchanged": "", "refused": "bold red"}


def flag_line(flag: Flag) -> Text:
    seen = flag.kind is FlagKind.claimed_new_seen_before
    label = "claimed new but seen before" if seen else "contradictory status"
    return join(Text(f"! {label}: ", style="bold magenta"), plain(flag.message))


def claim_lines(claim: ClaimStatus) -> list[Text]:
    mark = Text("NEW   ", style="bold green") if not claim.known else Text("known ", style="dim")
    lines = [join(Text("  "), mark, Text(tag(claim), style="bold green"), plain(claim.text))]
    if claim.new_numbers:
        written = ", ".join(as_written(claim.text, claim.new_numbers))  # "14 days", not the key "2wk"
        lines.append(Text(f"        new numbers: {written}", style="green"))
    if claim.moved_on:
        label, _, moved = moved_label(claim.moved_on).partition(": ")
        lines.append(join(Text(f"        {label}: ", style="green"), plain(moved)))
    if claim.extra_numbers:
        also = ", ".join(as_written(claim.text, claim.extra_numbers))
        lines.append(Text(f"        also says: {also} (detail of a known figure)"))
    if claim.best_id:
        lead = Text(f"        {'from' if claim.known else 'closest'} ")
        lines.append(
            join(
                lead,
                _who(claim.best_instance, claim.best_date),
                Text(" "),
                plain(claim.best_id, style="dim"),
                Text(f"  {claim.how_said}"),
            )
        )
    if claim.passage_shown:
        passage = plain(fit(clean(claim.best_text or "", one_line=True), 100).rstrip(), style="dim")
        lines.append(join(Text("        “"), passage, Text("”")))
    return lines


def match_lines(match: Match) -> list[Text]:
    mark = Text("≡ ", style="bold red") if match.same_item else Text("  ")
    head = join(
        Text("  "),
        mark,
        Text(f"{match.decided_by:>4} "),
        _who(match.instance, match.date),
        Text(" "),
        plain(match.title),
    )
    lines = [head, join(Text("      "), plain(match.id, style="dim"))]
    if match.reasons:
        reasons = "; ".join(
            [*match.reasons[:-1], match.reasons[-1] + evidence_words(match), f"cosine {match.score:.2f}"]
        )
        lines.append(join(Text("      "), plain(reasons, style="italic")))
    return lines


def item_text(item: ItemResult) -> Text:
    lines = [
        join(verdict(item.verdict), Text("  "), plain(item.title or item.id, style="bold")),
        join(Text("id ", style="dim"), plain(item.id), Text("  "), _who(item.instance, item.date)),
        plain(item.reason, style="italic"),
    ]
    if item.first_seen is not None:
        first = item.first_seen
        seen = [Text("first seen: ", style="bold"), _who(first.instance, first.date), Text(" "), plain(first.id)]
        seen += [Text(" (its own earlier version)", style="dim")] * (first.id == item.id)
        if item.held_in_doc is not None:  # as the CLI says it beside the first seen
            seen += [Text(", "), plain(held_text(item.held_in_doc.id, item.held_in_doc.date), style="cyan")]
        lines.append(join(*seen))
    # What the run did with the item (its outcome) and how it was compared, in the CLI's words.
    if item.outcome in OUTCOME_WORDS:
        lines.append(
            join(Text("outcome: ", style="bold"), Text(OUTCOME_WORDS[item.outcome], OUTCOME_STYLE[item.outcome]))
        )
    lines += [plain(line, style="dim") for line in item_lines(item)]
    lines += [join(Text("note: ", style="bold"), plain(note)) for note in item.notes]
    lines += [flag_line(flag) for flag in item.flags]
    if item.claims:
        fresh = sum(1 for claim in item.claims if not claim.known)
        heading = f"Claims: {fresh} new, {len(item.claims) - fresh} known"
        lines += [Text(""), Text(heading, style="bold underline")]
        for claim in item.claims:
            lines += claim_lines(claim)
    if item.matches:
        lines += [Text(""), Text("Matches (≡ same item)", style="bold underline")]
        for match in item.matches:
            lines += match_lines(match)
    return join(*lines, sep="\n")


class ItemDetail(VerticalScroll, can_focus=True):
    def compose(self) -> ComposeResult:
        yield IdStatic(id="item-text")

    def show_item(self, item: ItemResult | None) -> None:
        text = item_text(item) if item is not None else Text("")
        self.query_one("#item-text", IdStatic).show(text)
        self.scroll_home(animate=False)

    def show_message(self, message: Text) -> None:
        self.query_one("#item-text", IdStatic).show(message)
