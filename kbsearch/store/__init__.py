"""The on-disk knowledge base: SQLite for records and vectors, FAISS for search.

- ``facade``: ``Store``, the read facade (open, snapshot, meta, reads, vector search).
- ``filters``: ``SearchFilter`` and the SQL it builds.
- ``writer``: ``ChangeSet`` (with the judge's ``JudgeVectors``) and the one write transaction.
- ``binding``: which model and judge the index is bound to; a mismatch is refused.
- ``vector_cache``: ``vectors.faiss`` + ``manifest.json`` and their lifecycle.
- ``vector_search``: filtered k-best search over passages, grouped by record.
- ``lexical``: the FTS5 index of record text and the exact references.
- ``sql``: chunked ``IN (…)`` queries, vector-id packing, the stored-JSON codec.
- ``migrations``: the schema and its frozen migrations; ``database``: opening SQLite.
"""

from kbsearch.filters import SearchFilter
from kbsearch.store.binding import require_models
from kbsearch.store.database import DB_NAME
from kbsearch.store.facade import Store
from kbsearch.store.index_share import IndexShare
from kbsearch.store.manifest import MANIFEST_NAME, Manifest
from kbsearch.store.vector_cache import VECTORS_NAME
from kbsearch.store.writer import ChangeSet, JudgeVectors

__all__ = [
    "DB_NAME",
    "MANIFEST_NAME",
    "VECTORS_NAME",
    "ChangeSet",
    "IndexShare",
    "JudgeVectors",
    "Manifest",
    "SearchFilter",
    "Store",
    "require_models",
]
