"""One vector per audited record in a file: what audit's later passes read of every record."""

from __future__ import annotations

from pathlib import Path

import numpy as np


class SpilledVectors:
    """One vector per row in a file, for the few passes that need every
    record's vector (the judge's for the neighbourhoods' judge cosines; both
    encoders' for the search across languages): in memory they would cost
    1.5 to 2 KB a record for the whole audit."""

    def __init__(self, path: Path, rows: int) -> None:
        self.path = path
        self.rows = rows
        self.dim = 0

    def write(self, rows: np.ndarray, vectors: np.ndarray) -> None:
        if not len(rows):
            return
        if not self.dim:
            self.dim = vectors.shape[1]
            np.memmap(self.path, dtype=np.float32, mode="w+", shape=(self.rows, self.dim)).flush()
        # Mapped for one chunk at a time: a mapping's pages count as the process's memory.
        mapped = np.memmap(self.path, dtype=np.float32, mode="r+", shape=(self.rows, self.dim))
        mapped[rows] = vectors
        mapped.flush()
        del mapped

    def rows_of(self, rows: np.ndarray) -> np.ndarray:
        """The vectors of these rows, read into memory."""
        mapped = np.memmap(self.path, dtype=np.float32, mode="r", shape=(self.rows, self.dim))
        try:
            return np.ascontiguousarray(mapped[rows])
        finally:
            del mapped

    def cosines(self, left: np.ndarray, right: np.ndarray, batch: int = 50_000) -> np.ndarray:
        out = np.zeros(len(left), dtype=np.float32)
        if not self.dim:
            return out
        for start in range(0, len(left), batch):
            mapped = np.memmap(self.path, dtype=np.float32, mode="r", shape=(self.rows, self.dim))
            a, b = mapped[left[start : start + batch]], mapped[right[start : start + batch]]
            out[start : start + batch] = np.einsum("ij,ij->i", a, b)
            del mapped
        return out
