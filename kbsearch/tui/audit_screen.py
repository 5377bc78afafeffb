"""Who said the same thing first: duplicate clusters across instances and days.

Under the summary, the per-instance table (``by_instance``: who repeats most);
ctrl+t shows only the clusters holding two or more instances, as ``audit
--across`` (the same ``across`` view of the same result, not audited again).
"""

from __future__ import annotations

import datetime as dt
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input, Static, Tree

from kbsearch.dedupe.audit_results import AuditResult
from kbsearch.dedupe.audit_summary import across
from kbsearch.filters import SearchFilter
from kbsearch.kb import KnowledgeBase
from kbsearch.render import audit_scope
from kbsearch.tui.cluster_tree import ClusterTree, opened_id
from kbsearch.tui.filter_bar import dates_problem, parse_day, range_problem
from kbsearch.tui.footer import KbFooter
from kbsearch.tui.gateway import KbGateway
from kbsearch.tui.instance_table import InstanceTable
from kbsearch.tui.jobs import JobFailed, run_job
from kbsearch.tui.literal import plain
from kbsearch.tui.messages import OpenRecord
from kbsearch.tui.status_bar import StatusBar


class AuditScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+r", "refresh_audit", "Audit again"),
        # before expand and collapse: at 80 columns the footer keeps it (probe 26's lead)
        Binding("ctrl+t", "toggle_across", "Only clusters across instances, or all"),
        Binding("ctrl+e", "expand_all", "Expand all"),
        Binding("ctrl+w", "collapse_all", "Collapse all"),
    ]

    class Audited(Message):
        def __init__(self, result: AuditResult) -> None:
            super().__init__()
            self.result = result

    def __init__(self, gateway: KbGateway) -> None:
        super().__init__()
        self.gateway = gateway
        self.result: AuditResult | None = None
        """The audit as it came, every cluster (``shown`` is what is on screen)."""
        self.across = False
        """Only the clusters holding two or more instances (``audit --across``)."""

    def compose(self) -> ComposeResult:
        with Horizontal(id="audit-range"):
            for name in ("since", "until"):
                yield Input(
                    placeholder=f"{name} YYYY-MM-DD",
                    id=f"audit-{name}",
                    restrict=r"[0-9-]*",
                    max_length=10,
                    compact=True,
                    validate_on=[],  # Textual's own validation would add -valid beside our -invalid
                )
        yield Static(Text("Auditing the whole index…", style="dim"), id="audit-summary")
        yield InstanceTable(id="audit-instances")
        yield ClusterTree(id="clusters")
        yield StatusBar()
        yield KbFooter()

    def on_mount(self) -> None:
        self.query_one(ClusterTree).focus()
        self.action_refresh_audit()

    def date_range(self) -> SearchFilter:
        """The since/until inputs; a half-typed date, or dates in the wrong order, limit nothing yet."""
        since, until = self._days()
        return SearchFilter() if range_problem(since, until) else SearchFilter(since=since, until=until)

    def _days(self) -> tuple[dt.date | None, dt.date | None]:
        since, until = (parse_day(self.query_one(f"#audit-{n}", Input).value) for n in ("since", "until"))
        return since, until

    @on(Input.Changed, "#audit-range Input")
    def range_changed(self, event: Input.Changed) -> None:
        since, until = (self.query_one(f"#audit-{n}", Input) for n in ("since", "until"))
        in_order = range_problem(*self._days()) is None
        for field in (since, until):
            field.set_class(not in_order or (bool(field.value.strip()) and parse_day(field.value) is None), "-invalid")
        problem = dates_problem(since.value, until.value)
        if problem is not None:
            # The clusters on screen are another range's: the summary says so, not their count.
            self.query_one("#audit-summary", Static).update(Text(f"Not audited: {problem}", style="bold red"))
            if not in_order:
                self.app.notify(problem, severity="error", markup=False)
            return
        self.action_refresh_audit()

    @work(thread=True, exclusive=True, group="audit", exit_on_error=False)
    def audit_worker(self) -> None:
        flt = self.date_range()

        def job(kb: KnowledgeBase) -> AuditResult:
            return kb.audit(flt)

        run_job(self, self.gateway, "audit", job, self.Audited)

    @property
    def shown(self) -> AuditResult | None:
        """The result on screen: the audit's, or its ``across`` view."""
        if self.result is None:
            return None
        return across(self.result) if self.across else self.result

    def on_audit_screen_audited(self, message: Audited) -> None:
        self.result = message.result
        self._show()

    def _show(self) -> None:
        result = self.shown
        if result is None:
            return
        # the CLI's scope line names its option; here the key does the same
        scope = audit_scope(result).replace(": --across)", ": ctrl+t shows them)")
        summary = Text(
            f"{scope}, largest first; {len(result.claimed_new_seen_before)} claimed new but seen before. ",
            style="bold",
        )
        summary.append("enter expands a cluster, or opens a record.", style="dim")
        self.query_one("#audit-summary", Static).update(summary)
        self.query_one(InstanceTable).show(result)
        self.query_one(ClusterTree).show(result)

    def action_toggle_across(self) -> None:
        self.across = not self.across
        self._show()
        shown = "only clusters across instances" if self.across else "every cluster"
        self.app.notify(f"Showing {shown}.", timeout=2)

    def on_job_failed(self, message: JobFailed) -> None:
        """As on the check screen: no earlier clusters stay to be taken for this audit's, and
        the error stays in the summary (the notification, which bubbles on to the app, fades)."""
        if message.what != "audit":
            return
        self.result = None
        self.query_one(ClusterTree).clear()
        self.query_one(InstanceTable).show(None)
        failed = Text("The audit failed: ", style="bold red")
        failed.append_text(plain(message.error_text(), one_line=False))
        self.query_one("#audit-summary", Static).update(failed)

    @on(Tree.NodeSelected, "#clusters")
    def _selected(self, event: Tree.NodeSelected[object]) -> None:
        # enter on a cluster expands it (the tree does that); on a record, opens it
        record_id = opened_id(event.node.data)
        if record_id is not None:
            self.post_message(OpenRecord(record_id))

    def action_refresh_audit(self) -> None:
        flt = self.date_range()
        scope = "the whole index" if flt.is_empty() else f"{flt.since or '…'} to {flt.until or '…'}"
        self.query_one("#audit-summary", Static).update(Text(f"Auditing {scope}…", style="dim"))
        self.audit_worker()

    def action_expand_all(self) -> None:
        for node in self.query_one(ClusterTree).root.children:
            node.expand()

    def action_collapse_all(self) -> None:
        for node in self.query_one(ClusterTree).root.children:
            node.collapse()
