"""Command palette entries: one per key binding, plus what a screen adds.

Generating them from the bindings keeps the promise that every action is in
the palette: a new binding appears there without anyone remembering to add it.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import Any

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.dom import DOMNode
from textual.markup import escape


def own_bindings(node: DOMNode) -> list[Binding]:
    """The bindings a kbsearch class declares itself (not Textual's inherited ones)."""
    return [b for b in type(node).BINDINGS if isinstance(b, Binding) and b.description]


def binding_commands(app: App[Any], nodes: list[DOMNode]) -> Iterator[SystemCommand]:
    seen: set[str] = set()
    for node in nodes:
        for binding in own_bindings(node):
            if binding.action in seen:
                continue
            seen.add(binding.action)
            key = escape(app.get_key_display(binding))
            yield SystemCommand(binding.description, f"key: {key}", partial(app.run_action, binding.action, node))
