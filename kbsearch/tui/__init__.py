"""The Textual TUI (``kbsearch tui``). Nothing outside this package imports textual."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from kbsearch.kb import KnowledgeBase, Opener, index_dir

if TYPE_CHECKING:
    from kbsearch.tui.app import KbApp


def make_app(
    index: str | os.PathLike[str] | None = None,
    model: str | None = None,
    *,
    open_kb: Callable[[], KnowledgeBase] | None = None,
    show_timing: bool = True,
) -> KbApp:
    """The app over ``index`` (default: $KBSEARCH_INDEX, else ./index) and ``model``.

    ``open_kb`` replaces the default opener, called once per gateway (the
    latency bench wraps the encoder); ``show_timing=False`` hides query
    times, for stable snapshots.
    """
    from kbsearch.tui.app import KbApp
    from kbsearch.tui.gateway import KbGateway

    opener = open_kb or Opener(index, model)
    label = str(index_dir(index))
    return KbApp(KbGateway(opener, label), KbGateway(opener, label), show_timing=show_timing)


def run(index: str | None = None, model: str | None = None) -> int:
    make_app(index, model).run()
    return 0
