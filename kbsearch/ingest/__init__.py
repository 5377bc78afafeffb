"""Getting records into an index, and out again.

``pipeline`` parses inputs, compares them with the stored records a chunk at a
time and hands the store one ``ChangeSet`` (``ingest_records``,
``ingest_parsed``), removes records and rebuilds the vectors (``reindex_store``).
``embedding`` embeds only what a change lacks, just before it is written;
``ownership`` decides which file a record id belongs to; ``accepting``
stores a checked briefing's items, all or none.
"""

from __future__ import annotations

from kbsearch.ingest.embedding import Judge, Progress
from kbsearch.ingest.pipeline import (
    ReindexReport,
    ingest_parsed,
    ingest_records,
    reindex_store,
    remove_records,
    will_embed,
)
from kbsearch.ingest.refusals import read_inputs, refuse_taken
from kbsearch.ingest.report import IngestReport

__all__ = [
    "IngestReport",
    "Judge",
    "Progress",
    "ReindexReport",
    "ingest_parsed",
    "ingest_records",
    "read_inputs",
    "refuse_taken",
    "reindex_store",
    "remove_records",
    "will_embed",
]
