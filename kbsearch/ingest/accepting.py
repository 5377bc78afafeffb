"""``check --accept``: store a checked submission's items, all of them or none.

The gate's contract, the same on every surface (CLI, HTTP, MCP, TUI): when
any item is a DUPLICATE, nothing is stored and ``accept_refused`` says why;
the writer drops or rewrites those items and checks again, and nothing it
sent a moment ago stands in its way. Otherwise every item is stored.

Accepting never replaces a stored record of another item. A stored record
under an item's id with the very same content is this submission, accepted
before: it is left as it is (written again, it would bump the index's
generation, restamp the record and make every serving worker reload its
vectors, though nothing changed), and reported unchanged, as ``ingest``
reports an unchanged record. With other content it is either
an earlier version of the same item (the check judged it so: it is replaced,
as an edit, even a DUPLICATE of that version alone: ``ItemResult.edited``) or
another item that happens to share the id, which only ``replace`` may overwrite.

With ``--skip-duplicates`` (``CheckResult.refuse(skip_duplicates=True)``) the
DUPLICATEs are listed in ``result.skipped`` and left out, and everything above
holds for the other items, stored in the same one transaction. That transaction
also remembers each skipped item (``store.skips``), so that ``ingest`` of the file
leaves it out as well; an item accepted later (checked as any item is, and let
through) is forgotten as it is stored.
"""

from __future__ import annotations

from collections.abc import Callable

from kbsearch.dedupe.results import CheckResult
from kbsearch.embed import Encoder
from kbsearch.errors import KbError
from kbsearch.ingest.embedding import Judge
from kbsearch.ingest.ownership import merged_mentions
from kbsearch.ingest.pipeline import ingest_records, mentions_stored_as_is, stored_as_is
from kbsearch.records import IdMention, Record
from kbsearch.store import ChangeSet, Store
from kbsearch.store.skips import RememberedSkip


def accept(
    store: Store,
    result: CheckResult,
    items: list[Record],
    source: tuple[str | None, list[IdMention]],
    *,
    replace: bool,
    model: str,
    load_encoder: Callable[[], Encoder],
    judge: Judge | None,
) -> None:
    """Store every item of a check that ``refusal`` lets through, and say so in
    ``result``: ``accepted`` every item, ``unchanged`` those stored already with
    this very content, for which nothing was written, and each item's ``outcome``.
    ``source``: the file the items came from and its id-table rows. Items in ``result.skipped`` are left out."""
    skipped = {s.id for s in result.skipped}
    hashes = {r.id: r.content_hash for r in items if r.id in skipped}
    items = [r for r in items if r.id not in skipped]
    if not replace:
        refuse_replacing_another_item(store, result, items, source[0])
    elif skipped:
        refuse_losing_skipped(store, result, items, source[0])
    file, mentions = source
    before = store.column_of_ids([r.id for r in items], "content_hash")
    stored = store.ingest_ledger().stored_rows([r.id for r in items])
    same = {r.id for r in items if stored_as_is(stored, r, file or r.source)}
    changes = ChangeSet(
        upserts=[r for r in items if r.id not in same],
        files={r.id: file for r in items if file},
        mentions=_changed_mentions(store, file, mentions, items),
        # Remembered in this transaction, so that 'ingest' of the file leaves them out too
        # (store.skips); an item stored now, once skipped, is skipped no more.
        skips=[
            RememberedSkip(id=s.id, content_hash=hashes[s.id], file=file, repeats=s.repeats) for s in result.skipped
        ],
        forget_skips=[r.id for r in items],
    )
    ingest_records(store, changes, model=model, load_encoder=load_encoder, judge=judge)
    result.accepted = [r.id for r in items]
    result.unchanged = [rid for rid in result.accepted if rid in same]
    for item in (i for i in result.items if i.id not in skipped):  # what a pipeline publishes: stored, replaced
        item.outcome = "unchanged" if item.id in same else "replaced" if item.id in before else "stored"
    if result.skipped:
        result.notes.append(ingest_note([s.id for s in result.skipped], file))


def ingest_note(skipped: list[str], file: str | None) -> str:
    """What a later ``kbsearch ingest`` of the file does with the items ``--skip-duplicates`` left out."""
    one = len(skipped) == 1
    they, them, are = ("it", "it", "is") if one else ("they", "them", "are")
    return (
        f"{len(skipped)} skipped DUPLICATE{'' if one else 's'} ({', '.join(skipped)}) {are} still in "
        f"{file or 'the input'}: the index remembers the skip, and 'kbsearch ingest' of it leaves {them} out "
        f"while {they} {are} unchanged (--include-skipped stores {them}); drop {them} from the file before "
        "it is published"
    )


def _changed_mentions(
    store: Store, file: str | None, mentions: list[IdMention], items: list[Record]
) -> dict[str, list[IdMention]]:
    """The file's id-table rows to write, none when they are stored so already (as ``ingest`` decides)."""
    if not file or not items:
        return {}
    merged = merged_mentions(store, file, mentions, {str(r.date) for r in items})
    return {} if mentions_stored_as_is(store, file, merged) else {file: merged}


def refuse_replacing_another_item(store: Store, result: CheckResult, items: list[Record], file: str | None) -> None:
    """Raise when an item would overwrite a stored record of another item under its id."""
    for item in overwriting(store, result, items)[:1]:
        earlier = store.get(item.id)
        what = (
            f"{earlier.title[:60]!r} ({earlier.instance or 'unknown'}, {earlier.date or 'undated'})" if earlier else ""
        )
        raise KbError(
            f"record id {item.id!r} is stored for another item {what}; accepting would replace it, "
            "so nothing was stored",
            hint="give the briefing its date (the ids of a dated briefing carry it) or its own file name; "
            "or pass --replace to overwrite the stored record",
            path=file,
        )


def overwriting(store: Store, result: CheckResult, items: list[Record]) -> list[Record]:
    """The items that would overwrite a stored record of another item under their id."""
    stored = store.column_of_ids([item.id for item in items], "content_hash")
    verdicts = {item.id: item for item in result.items}
    found = []
    for item in items:
        if stored.get(item.id) in (None, item.content_hash):
            continue
        same = {m.id for m in verdicts[item.id].matches if m.same_item} if item.id in verdicts else set()
        if item.id not in same:  # else an earlier version of this very item: accepting stores the edit
            found.append(item)
    return found


def refuse_losing_skipped(store: Store, result: CheckResult, items: list[Record], file: str | None) -> None:
    """Raise when a skipped item repeats only records that ``--replace`` overwrites with other items: the
    item would be in the knowledge base neither as itself nor as what it repeats."""
    gone = {item.id for item in overwriting(store, result, items)}
    for lost in [s for s in result.skipped if gone and s.repeats and set(s.repeats) <= gone][:1]:
        raise KbError(
            f"{lost.id} is skipped as a repeat of {', '.join(lost.repeats)}, which this accept replaces with "
            "another item: it would be lost, so nothing was stored",
            hint="give the briefing its date (the ids of a dated briefing carry it) or its own file name",
            path=file,
        )
