"""Where an index keeps its search vectors: chosen by its first write, remembered after.

``--vectors`` takes one of:

- ``faiss`` (the default): ``vectors.faiss`` in the index folder, a cache of
  SQLite's vectors (flat, then HNSW from 100k vectors);
- ``milvus:PATH.db``: Milvus Lite, embedded in the process, in a local file;
- ``milvus://HOST:PORT``: a Milvus server, with the token from
  ``$KBSEARCH_MILVUS_TOKEN``.

The choice is written to the database's meta in the first write's
transaction and read from there by every later command, so none needs the
flag again; a different one on a later write is refused.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from kbsearch.errors import KbError

ACCEPTED = "faiss, milvus:PATH.db (Milvus Lite, a local file) or milvus://HOST:PORT (a Milvus server)"


class VectorStore(BaseModel):
    """The parsed ``--vectors`` value."""

    model_config = ConfigDict(frozen=True)

    engine: Literal["faiss", "milvus"] = "faiss"
    lite_path: str | None = None
    """Milvus Lite's file: absolute, or relative to the index folder when it lies inside it."""
    server: str | None = None
    """A Milvus server's ``HOST:PORT``."""

    @property
    def label(self) -> str:
        """How the choice is written in meta, shown by ``stats`` and given to ``--vectors``."""
        if self.server:
            return f"milvus://{self.server}"
        return f"milvus:{self.lite_path}" if self.lite_path else "faiss"

    @property
    def remote(self) -> bool:
        return self.engine == "milvus"

    def uri(self, root: Path) -> str:
        """What ``MilvusClient`` connects to: the Lite file or the server's URL."""
        if self.server:
            return f"http://{self.server}"
        assert self.lite_path is not None
        return str(root / self.lite_path)


def parse_vector_store(text: str, root: Path | None = None) -> VectorStore:
    """``--vectors`` as typed (a Lite path is resolved against the working
    directory, and kept relative when it lies in ``root``, the index folder),
    or a meta value as written. A ``KbError`` names what it takes."""
    value = text.strip()
    if value == "faiss":
        return VectorStore()
    if value.startswith("milvus://"):
        server = value.removeprefix("milvus://").rstrip("/")
        host, _, port = server.rpartition(":")
        if not host or not port.isdigit():
            raise KbError(f"--vectors {text!r} names no HOST:PORT", hint=f"give {ACCEPTED}")
        return VectorStore(engine="milvus", server=server)
    if value.startswith("milvus:"):
        path = value.removeprefix("milvus:")
        if not path.endswith(".db"):
            # pymilvus reads a URI ending in .db as Milvus Lite, anything else as a server.
            raise KbError(f"--vectors {text!r}: a Milvus Lite file must end in .db", hint=f"give {ACCEPTED}")
        return VectorStore(engine="milvus", lite_path=_kept_path(Path(path), root))
    raise KbError(f"--vectors {text!r} is not a vector store", hint=f"give {ACCEPTED}")


def _kept_path(path: Path, root: Path | None) -> str:
    if root is None:  # a meta value, as written
        return str(path)
    full = path.expanduser().absolute()
    try:
        return str(full.relative_to(root.absolute()))  # moves with the index folder
    except ValueError:
        return str(full)
