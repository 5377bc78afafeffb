"""Products named by two plain words joined by a hyphen (Quill-Vision, Orbit-Mini) are names
(``plain_names.product_names``). Probe 30: read nowhere, "Quill-Vision 公布 API 定价" shared no
name with its record "Quill 发布多模态模型 Quill-Vision" (shared_names 0.00) and was taken for
the same maker's "Quill 下调 Quill-Pro API 价格"; "Orbit 发布小模型 Orbit-Mini" was taken as an
update of Orbit-3's news. Ordinary hyphenated English (Open-Source, Zero-Copy) names nothing."""

from __future__ import annotations

import pytest
from conftest import fake_config
from support.embedded import judged_rare as judged
from support.embedded import titled as record

from fake_encoder import FakeEncoder
from kbsearch.dedupe.features import latin_names
from kbsearch.dedupe.results import Rule
from kbsearch.text.plain_names import product_names

ENCODER = FakeEncoder()
CONFIG = fake_config()


VISION = record(
    "mira-2",
    "Quill 发布多模态模型 Quill-Vision",
    "Quill-Vision 是 Quill 的第一个多模态模型，支持图像和视频输入，内测中。",
)
VISION_PRICE = record(
    "mira-3", "Quill-Vision 公布 API 定价", "Quill-Vision 结束内测并公布定价：输入 ¥7.2/百万 tokens。"
)
PRO_PRICE = record(
    "mira-1", "Quill 下调 Quill-Pro API 价格", "Quill-Pro 输入价格从 ¥8 降到 ¥4 每百万 tokens，即打五折。"
)


def test_two_titles_naming_one_plain_word_product_share_its_name() -> None:
    assert "quill-vision" in latin_names(VISION_PRICE.title) & latin_names(VISION.title)
    rule, _, reason = judged(VISION_PRICE, VISION)
    assert rule is not Rule.different_names, reason


def test_two_products_of_one_maker_are_two_items() -> None:
    rule, same, reason = judged(VISION_PRICE, PRO_PRICE)
    assert (rule, same) == (Rule.different_names, False), reason
    assert "quill-pro" in reason and "quill-vision" in reason


def test_a_maker_s_new_small_model_is_not_news_of_its_flagship() -> None:
    flagship = record(
        "jay-1", "Orbit cuts Orbit-3 API prices", "Orbit-3 input price drops from $3 to $2.50 per million tokens."
    )
    mini = record(
        "mira-4", "Orbit 发布小模型 Orbit-Mini", "Orbit-Mini 是 Orbit 面向端侧的小模型，输入 $0.40 每百万 tokens。"
    )
    rule, same, reason = judged(mini, flagship)
    assert (rule, same) == (Rule.different_names, False), reason
    assert "orbit-mini" in reason


def test_a_product_line_is_read_by_its_maker_written_alone() -> None:
    assert product_names("Lumen ships Lumen-Voice to its API customers") == {"lumen-voice"}
    assert product_names("Lumen-Voice reaches general availability") == set()  # neither a line's word nor its maker


@pytest.mark.parametrize(
    "title",
    [
        "State-of-the-Art Open-Source Multi-Agent Long-Context Mixture-of-Experts Zero-Copy Serving",
        "Fine-Grained Real-Time Vision-Language Computer-Vision Plug-and-Play Decoder-Only Models",
        "Open models for Open-Source work; Zero overhead with Zero-Copy; Long-Context at Long last",
    ],
)
def test_ordinary_hyphenated_english_names_no_product(title: str) -> None:
    assert product_names(title) == set()
    assert not {n for n in latin_names(title) if "-" in n}
