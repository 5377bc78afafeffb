"""A tiny deterministic encoder for tests: hashed character n-grams.

Texts that share words or Chinese characters get similar vectors, so ranking
tests mean something, and no model is loaded.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

FAKE_DIM = 64


class FakeEncoder:
    def __init__(self, model_id: str = "fake", dim: int = FAKE_DIM) -> None:
        self.model_id = model_id
        self.dim = dim
        self.calls = 0
        self.texts_seen = 0

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        self.texts_seen += len(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for gram in _grams(text.lower()):
                digest = hashlib.blake2b(gram.encode(), digest_size=8).digest()
                bucket = int.from_bytes(digest[:4], "little") % self.dim
                out[row, bucket] += 1.0 if digest[4] & 1 else -1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms


def _grams(text: str) -> list[str]:
    words = text.split()
    chars = [c for c in text if not c.isspace()]
    return words + ["".join(chars[i : i + 2]) for i in range(len(chars) - 1)]


def make(spec: object) -> FakeEncoder:
    """models.txt factory: ``fake python:fake_encoder:make dim=64``."""
    return FakeEncoder(getattr(spec, "name", "fake"), getattr(spec, "dim", None) or FAKE_DIM)


def unreachable(spec: object) -> FakeEncoder:
    """models.txt factory for a model that cannot be loaded, as an uncached hub model offline."""
    from kbsearch.errors import KbError

    raise KbError(f"model {getattr(spec, 'name', '?')!r} is not cached and the Hugging Face hub is unreachable")


class InterruptedEncoder(FakeEncoder):
    """Ctrl-C arrives during the first batch it embeds."""

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        raise KeyboardInterrupt


def interrupted(spec: object) -> FakeEncoder:
    """models.txt factory: an encoder interrupted while it embeds."""
    return InterruptedEncoder(getattr(spec, "name", "fake"), getattr(spec, "dim", None) or FAKE_DIM)


class ConstantEncoder(FakeEncoder):
    """Every text gets the same vector: a judge that calls everything the same."""

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        self.texts_seen += len(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        out[:, 0] = 1.0
        return out


def broken(spec: object) -> FakeEncoder:
    """models.txt factory for a model that cannot load, as one whose package is missing."""
    raise ImportError("No module named 'onnxruntime'")


class FakeTokenEncoder:
    """Token vectors for tests: each word of a text is a token, embedded as
    ``FakeEncoder`` embeds that word alone, after ``translations`` maps it (a
    word and its translation get one vector, as a model reading both
    languages would give them)."""

    def __init__(self, translations: dict[str, str] | None = None, model_id: str = "fakejudge", dim: int = 32) -> None:
        self.model_id = model_id
        self.words = FakeEncoder(model_id, dim)
        self.translations = translations or {}
        self.texts_seen = 0

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return [len(text.split()) for text in texts]

    def encode_tokens(self, texts: Sequence[str]) -> list[np.ndarray]:
        self.texts_seen += len(texts)
        return [self.words.encode([self.translations.get(w, w) for w in text.split()] or [text]) for text in texts]


class SlowEncoder(FakeEncoder):
    """Each text takes ``SLOW_SECONDS``: a check or accept that runs long enough to be stopped part-way."""

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        import os
        import time
        from pathlib import Path

        started = os.environ.get("FAKE_ENCODER_STARTED")  # a file the first call creates, for a test to wait on
        if started:
            Path(started).touch()
        time.sleep(SLOW_SECONDS * len(texts))
        return super().encode(texts)


SLOW_SECONDS = 0.03


def slow(spec: object) -> FakeEncoder:
    """models.txt factory: the fake model, slowly (``fake python:fake_encoder:slow dim=64``)."""
    return SlowEncoder(getattr(spec, "name", "fake"), getattr(spec, "dim", None) or FAKE_DIM)


class ScriptedJudge:
    """A judge whose cosine with the query is set per text: the query (any text not set) is the
    first axis, each text its cosine along it and the rest on an axis of its own."""

    def __init__(self, cosine: dict[str, float]) -> None:
        self.model_id, self.dim = "judge", len(cosine) + 1
        self.cosine = cosine
        self.axis = {text: n for n, text in enumerate(cosine, start=1)}

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            if text not in self.axis:  # the query
                out[row, 0] = 1.0
                continue
            out[row, 0], out[row, self.axis[text]] = self.cosine[text], np.sqrt(1 - self.cosine[text] ** 2)
        return out
