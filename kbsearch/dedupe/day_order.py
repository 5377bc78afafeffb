"""Who came first among one day's writers: the one rule audit's cluster (``same_day``),
check's first seen (``verdict``) and a re-check ``--as-of`` the item's own day (``check_day``)
all read, so they cannot disagree.

A briefing's signature may give its time of day (``Record.signed_at``, "HH:MM"); the order
the records were stored is always known. When every entry of the day gives a time, the
earlier signed is first, the earlier stored of one time; else the order of storing alone.
The whole day decides at once: a pairwise rule (the later signed when both give a time, else
the later stored) was no order with three writers, one untimed (A 22:00 stored first, B no
time, C 09:00 last: C before A, A before B, B before C), and audit and re-check named
different firsts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

Key = TypeVar("Key")


def all_signed(entries: Sequence[tuple[Key, str | None, int]]) -> bool:
    """Whether every entry (key, signed "HH:MM" or None, arrival) gives a signing time."""
    return all(signed for _, signed, _ in entries)


def day_order(entries: Sequence[tuple[Key, str | None, int]]) -> list[Key]:
    """The keys of one day's entries (key, signed "HH:MM" or None, arrival: smaller is
    stored earlier), first to last: by (signed time, arrival) when every entry gives a
    time (``all_signed``), else by arrival."""
    if all_signed(entries):
        ordered = sorted(entries, key=lambda e: (e[1] or "", e[2]))
    else:
        ordered = sorted(entries, key=lambda e: e[2])
    return [key for key, _, _ in ordered]
