"""The FAISS side of the store: vectors keyed by the store's vector ids.

``VectorIndex`` (``facade.py``) is what the store uses; the backends it picks
between live one per file behind ``base.VectorBackend``: ``flat.py`` (exact)
and ``hnsw.py`` (approximate, with tombstones). ``IndexParams`` holds every
number that shapes them.
"""

from kbsearch.vector_index.facade import VectorIndex
from kbsearch.vector_index.files import write_atomic
from kbsearch.vector_index.params import IndexParams

__all__ = ["IndexParams", "VectorIndex", "write_atomic"]
