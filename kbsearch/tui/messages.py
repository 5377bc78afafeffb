"""Messages any widget may post for the app to act on."""

from __future__ import annotations

from textual.message import Message


class OpenRecord(Message):
    """Show one stored record on its own screen (an audit row, a nearest record)."""

    def __init__(self, record_id: str) -> None:
        super().__init__()
        self.record_id = record_id
