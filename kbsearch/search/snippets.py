"""A hit's snippet: the passage of its text that matched the query best.

The title is printed on the line above the snippet, so a snippet never
repeats it: when the dense search matched a record through its title (or
through its whole text, which starts with the title), the snippet is the
record's claim nearest the query, else the start of its text.
"""

from __future__ import annotations

import numpy as np

from kbsearch.records import RecordHead
from kbsearch.store import Store
from kbsearch.store.lexical import QueryTerms
from kbsearch.text.snippet import Span, make_snippet


def hit_snippet(
    store: Store, rowid: int, passage: int | None, head: RecordHead, terms: QueryTerms, vector: np.ndarray | None
) -> list[Span]:
    """Around the query's terms in the text; failing that, the passage of the text
    the dense search matched best (often one claim); failing that, the text's start.
    ``passage``: the number of the record's best passage; ``vector``: the query's."""
    spans = make_snippet(head.text or head.title, terms.all())
    if any(s.match for s in spans) or passage is None:
        return spans
    record = store.by_rowids([rowid]).get(rowid)
    if record is None or not 0 <= passage < len(passages := record.passages()):
        return spans
    # The title, or the title and text together: what the line above already says.
    heading = {record.title.strip(), record.embed_text()}
    claims = [i for i, text in enumerate(passages) if text not in heading]
    if passage not in claims:
        passage = _nearest_claim(store, rowid, claims, len(passages), vector)
    return spans if passage is None else make_snippet(passages[passage], terms.all())


def _nearest_claim(store: Store, rowid: int, claims: list[int], count: int, vector: np.ndarray | None) -> int | None:
    """The claim passage nearest the query's vector, from the record's stored passage vectors."""
    if not claims or vector is None:
        return None
    stored = store.passage_vectors([rowid]).get(rowid)
    if stored is None or len(stored) != count:  # stored for another version of the record
        return None
    scores = stored[claims] @ np.asarray(vector, dtype=np.float32)
    return claims[int(np.argmax(scores))]
