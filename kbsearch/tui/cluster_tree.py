"""Duplicate clusters, largest first; expanding one shows its first-seen record and the repeats."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Tree

from kbsearch.dedupe.audit_results import AuditResult, Cluster, ClusterMember
from kbsearch.dedupe.results import Flag
from kbsearch.render import held_text, same_as_text, same_day_text
from kbsearch.tui.literal import join, plain


def _member(role: str, member: ClusterMember, style: str) -> Text:
    # the id comes before the title: long lines are clipped at the right edge
    who = plain(f"{member.instance or '-'} {member.date or '-'}", style="cyan")
    parts = [Text(f"{role:<6} ", style=style), who, Text("  "), plain(member.id, style="dim"), Text("  ")]
    if member.anchor:
        parts += [Text("["), plain(member.anchor, style="magenta"), Text("] ")]
    parts.append(plain(member.title or member.id))
    return join(*parts)


def _why(line: str) -> Text:
    """A line about the member row above it, indented under it as the CLI indents it."""
    return join(Text(" " * 7), plain(line, style="dim"))


def _flag_row(flag: Flag) -> Text:
    """A tree row is never wrapped: the record seen first (what enter opens) comes before
    the message, which the right edge may cut (the whole message hid it at 160 columns)."""
    parts = [Text("! ", style="bold magenta")]
    if flag.first_seen_id:
        who = f"{flag.first_seen_instance or '-'} {flag.first_seen_date or '-'}"
        parts += [Text("seen first: "), plain(who, style="cyan"), Text(" "), plain(flag.first_seen_id, style="dim")]
        parts.append(Text("  ·  "))
    parts.append(plain(flag.message))
    return join(*parts)


def cluster_label(number: int, cluster: Cluster) -> Text:
    first = cluster.first_seen
    label = Text(f"#{number:<3}", style="bold")
    count = len(cluster.instances)
    label.append(f"{cluster.size} records · {count} instance{'s' * (count != 1)} ", style="bold")
    label.append_text(plain(f"({', '.join(cluster.instances)})", style="cyan"))
    if cluster.shared_ids:
        label.append(f" · arXiv {', '.join(cluster.shared_ids)}", style="magenta")
    label.append("  ")
    label.append_text(plain(first.title or first.id))
    return label


def opened_id(data: object) -> str | None:
    """The record a row opens: a cluster's member, or a flag's first-seen record."""
    if isinstance(data, ClusterMember):
        return data.id
    if isinstance(data, Flag):
        return data.first_seen_id
    return None


class ClusterTree(Tree[object]):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(Text("clusters"), id=id)
        self.show_root = False
        self.guide_depth = 3

    def show(self, result: AuditResult) -> None:
        self.clear()
        for number, cluster in enumerate(result.clusters, 1):
            node = self.root.add(cluster_label(number, cluster), data=cluster)
            node.add_leaf(_member("first", cluster.first_seen, "bold green"), data=cluster.first_seen)
            if cluster.held_in_doc:  # the CLI's lines, under the record they are about (probe 26)
                held = held_text(cluster.held_in_doc.id, cluster.held_in_doc.date)
                node.add_leaf(_why(held), data=cluster.held_in_doc)
            if tied := same_day_text(cluster):  # who else wrote it that day, and what put the first first
                node.add_leaf(_why(tied), data=cluster.first_seen)
            for member in cluster.repeats:
                node.add_leaf(_member(member.role, member, "yellow"), data=member)
                if same := same_as_text(member, cluster):
                    node.add_leaf(_why(same), data=member)
        if result.claimed_new_seen_before:
            heading = Text(f"Claimed new but seen before ({len(result.claimed_new_seen_before)})", style="bold magenta")
            heading.append("  enter on one opens the record seen first", style="dim")
            flags = self.root.add(heading)
            for flag in result.claimed_new_seen_before:
                flags.add_leaf(_flag_row(flag), data=flag)
        self.move_cursor(self.root.children[0] if self.root.children else None)
