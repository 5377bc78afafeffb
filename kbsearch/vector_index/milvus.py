"""Milvus behind the vector seam: one collection per index and model.

Points are keyed by the store's int64 vector ids (``rowid * 64 + passage``)
and carry the scalar fields a filter reads (``PointFields``: kind, instance,
topic, date) plus a digest of those fields and the passage's content hash,
so a writer catching up after a crash can tell which points differ from
SQLite without reading a vector. ``add`` is an upsert, ``remove`` a delete
by id, ``search`` a top-k query under a boolean expression. The collection
is searched with Milvus's HNSW over float32 vectors; the store scores the
hits again from SQLite as it does for the local graph, so a score shown is
never the engine's.

Milvus Lite (``milvus:PATH.db``) runs in this process, one process per file
at a time; a server (``milvus://HOST:PORT``) is shared. pymilvus is an
optional extra, imported here only, and only when a collection is opened.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from kbsearch.errors import KbError
from kbsearch.vector_index.base import VectorBackend, empty_result
from kbsearch.vector_index.params import IndexParams
from kbsearch.vector_index.predicate import PointFields, Predicate

INSTALL = "pip install 'kbsearch[milvus]'"
BATCH = 2_000
"""Points per upsert and ids per delete: well under a gRPC message's limit at 512-d."""
QUERY_BATCH = 256
"""Queries per search call: Milvus caps a call's queries (nq) and its result size."""
MAX_LIMIT = 16_384
"""Milvus's largest top-k; rows are padded with -1 past what it finds."""
TEXT = 65_535
"""Milvus's longest VARCHAR: an instance or topic is compared whole, never cut."""


def collection_name(index_uid: str, model: str) -> str:
    """The collection of one index (its random uid) and one model, in the letters Milvus allows."""
    return f"kbsearch_{index_uid}_{re.sub(r'[^0-9A-Za-z_]', '_', model)}"


def digest(fields: PointFields, content_hash: str) -> int:
    """A signed 64-bit digest of a point's fields and its passage's text hash."""
    import hashlib

    text = "\x1f".join((content_hash, fields.kind, fields.instance, fields.topic, fields.date))
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "big", signed=True)


_lite_users: dict[str, int] = {}
_lite_lock = threading.Lock()


def connect(uri: str, token: str | None) -> Any:
    """A ``MilvusClient``; a ``KbError`` naming the fix when the extra is
    missing or the engine cannot be reached."""
    try:
        from pymilvus import MilvusClient
    except ImportError as err:
        raise KbError("this index keeps its vectors in Milvus, and pymilvus is not installed", hint=INSTALL) from err
    # Their log lines would reach a command's stderr through logging's last
    # resort: a failure reaches the user once, as the KbError below, and
    # Lite's gRPC server logs a traceback for each call it does not implement
    # (the timestamp a query iterator asks for first, then does without).
    for name, level in (("pymilvus", logging.ERROR), ("milvus_lite", logging.CRITICAL), ("grpc", logging.CRITICAL)):
        logging.getLogger(name).setLevel(level)
    try:
        client = MilvusClient(uri=uri, token=token or "", timeout=30)
    except Exception as err:  # pymilvus raises its own types, and grpc's for a dead server
        raise unreachable(uri, err) from err
    if uri.endswith(".db"):
        with _lite_lock:
            _lite_users[uri] = _lite_users.get(uri, 0) + 1
    return client


def disconnect(client: Any, uri: str) -> None:
    """Close a client; the last one of a Milvus Lite file in this process
    stops its engine, which frees the file for another process (a CLI
    command after a test, a server after an ingest)."""
    client.close()
    if not uri.endswith(".db"):
        return
    with _lite_lock:
        _lite_users[uri] = _lite_users.get(uri, 1) - 1
        if _lite_users[uri] > 0:
            return
        del _lite_users[uri]
    from milvus_lite.server_manager import server_manager_instance

    server_manager_instance.release_server(uri)


def unreachable(uri: str, err: BaseException) -> KbError:
    first = (str(getattr(err, "message", "")) or str(err)).splitlines()[0][:160]
    if uri.endswith(".db"):
        return KbError(
            f"Milvus Lite could not open {uri} ({first}); it serves one process at a time",
            hint="stop the other kbsearch using it (a 'kbsearch serve'? then ask it with --server URL), "
            "or keep the vectors in a Milvus server (milvus://HOST:PORT)",
        )
    return KbError(
        f"the Milvus server at {uri} did not answer ({first})",
        hint="start it, or check the address and $KBSEARCH_MILVUS_TOKEN",
    )


def expression(where: Predicate | None, allowed: np.ndarray | None) -> str:
    """A Milvus boolean expression over the scalar fields, as ``filter_sql`` filters."""
    quote = lambda value: json.dumps(value, ensure_ascii=False)  # noqa: E731 - Milvus reads JSON's escapes
    parts: list[str] = []
    if where is not None:
        if where.kinds:
            parts.append(f"kind in {quote(list(where.kinds))}")
        if where.instance is not None:
            parts.append(f"instance == {quote(where.instance)}")
        if where.topic is not None:
            parts.append(f"topic == {quote(where.topic)}")
        # "" is an undated record: SQL's NULL, which no comparison keeps, and
        # which ``not_after`` keeps on purpose (living docs have no date).
        if where.since is not None:
            parts.append(f'(date != "" and date >= {quote(where.since)})')
        if where.until is not None:
            parts.append(f'(date != "" and date <= {quote(where.until)})')
        if where.not_after is not None:
            parts.append(f'(date == "" or date <= {quote(where.not_after)})')
    if allowed is not None:
        parts.append(f"id in {json.dumps(np.asarray(allowed, dtype=np.int64).tolist())}")
    return " and ".join(parts)


class MilvusBackend(VectorBackend):
    """A Milvus collection of unit vectors searched by inner product."""

    kind = "milvus"
    takes_predicates = True

    def __init__(self, dim: int, params: IndexParams, *, client: Any, collection: str, uri: str = "") -> None:
        super().__init__(dim, params)
        self.client, self.collection, self.uri = client, collection, uri
        self._ensure()

    def _ensure(self) -> None:
        if self.client.has_collection(self.collection):
            self.client.load_collection(self.collection)
            return
        from pymilvus import DataType

        schema = self.client.create_schema(auto_id=False, enable_dynamic_field=False)
        schema.add_field("id", DataType.INT64, is_primary=True)
        schema.add_field("vector", DataType.FLOAT_VECTOR, dim=self.dim)
        for name, length in (("kind", 32), ("instance", TEXT), ("topic", TEXT), ("date", 10)):
            schema.add_field(name, DataType.VARCHAR, max_length=length)
        schema.add_field("digest", DataType.INT64)
        index = self.client.prepare_index_params()
        graph = {"M": self.params.hnsw_m, "efConstruction": self.params.ef_construction}
        index.add_index("vector", index_type="HNSW", metric_type="IP", params=graph)
        self.client.create_collection(self.collection, schema=schema, index_params=index)

    # -- writing ----------------------------------------------------------------

    def add(self, ids: np.ndarray, vectors: np.ndarray, fields: Sequence[PointFields] | None = None) -> None:
        self.upsert(ids, vectors, fields or [PointFields("")] * len(ids), [""] * len(ids))

    def upsert(
        self, ids: np.ndarray, vectors: np.ndarray, fields: Sequence[PointFields], hashes: Sequence[str]
    ) -> None:
        """Upsert points with the content hashes their digests are made of (the store's call)."""
        for start in range(0, len(ids), BATCH):
            rows = [
                {
                    "id": int(ids[i]),
                    "vector": vectors[i],
                    "kind": fields[i].kind,
                    "instance": fields[i].instance,
                    "topic": fields[i].topic,
                    "date": fields[i].date,
                    "digest": digest(fields[i], hashes[i]),
                }
                for i in range(start, min(start + BATCH, len(ids)))
            ]
            self.client.upsert(self.collection, rows)

    def remove(self, ids: np.ndarray) -> None:
        values = np.asarray(ids, dtype=np.int64).tolist()
        for start in range(0, len(values), BATCH):
            self.client.delete(self.collection, ids=values[start : start + BATCH])

    def settle(self) -> None:
        """Seal what was written, so the engine indexes it: Milvus searches a
        growing segment by brute force (seconds a query at 20k vectors in Lite)."""
        self.client.flush(self.collection)

    def drop(self) -> None:
        self.client.drop_collection(self.collection)

    def reset(self) -> None:
        """Empty the collection: dropped and made again."""
        self.drop()
        self._ensure()

    def close(self) -> None:
        disconnect(self.client, self.uri)

    # -- reading ----------------------------------------------------------------

    @property
    def count(self) -> int:
        rows = self.client.query(self.collection, filter="", output_fields=["count(*)"])
        return int(rows[0]["count(*)"])

    def ids(self) -> np.ndarray:
        return np.fromiter((vid for vid, _ in self.digests()), dtype=np.int64)

    def digests(self) -> Iterator[tuple[int, int]]:
        """(id, digest) of every point, in batches: what catching up compares with SQLite."""
        cursor = self.client.query_iterator(self.collection, batch_size=16_384, filter="", output_fields=["digest"])
        try:
            while batch := cursor.next():
                yield from ((int(row["id"]), int(row["digest"])) for row in batch)
        finally:
            cursor.close()

    def vectors(self, ids: np.ndarray) -> np.ndarray:
        wanted = np.asarray(ids, dtype=np.int64)
        found: dict[int, list[float]] = {}
        for start in range(0, len(wanted), BATCH):
            chunk = wanted[start : start + BATCH].tolist()
            for row in self.client.get(self.collection, ids=chunk, output_fields=["vector"]):
                found[int(row["id"])] = row["vector"]
        missing = [int(v) for v in wanted.tolist() if int(v) not in found][:3]
        if missing:
            raise KeyError(f"ids not in the collection: {missing}")
        return np.array([found[int(v)] for v in wanted.tolist()], dtype=np.float32).reshape(-1, self.dim)

    def search(
        self, queries: np.ndarray, k: int, allowed: np.ndarray | None, where: Predicate | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        if allowed is not None and len(allowed) == 0:
            return empty_result(len(queries))
        k = min(k, MAX_LIMIT)
        condition = expression(where, allowed)
        params = {"params": {"ef": max(self.params.ef_search, k)}}
        scores = np.zeros((len(queries), k), dtype=np.float32)
        found = np.full((len(queries), k), -1, dtype=np.int64)
        for start in range(0, len(queries), QUERY_BATCH):
            chunk = np.ascontiguousarray(queries[start : start + QUERY_BATCH], dtype=np.float32)
            answer = self.client.search(
                self.collection,
                data=list(chunk),
                limit=k,
                filter=condition,
                output_fields=[],
                search_params=params,
            )
            for row, hits in enumerate(answer, start=start):
                for col, hit in enumerate(list(hits)[:k]):
                    found[row, col], scores[row, col] = int(hit["id"]), float(hit["distance"])
        return scores, found
