"""A release is not the news of the model it supports (``subjects.release_not_theirs``).

Probe 10: "vLLM v0.40.0 发布" was the same item as tom's "DeepSeek-V5 权重放出" (0.98): the
release adds native support for DeepSeek-V5's MLA, and the model's news says vLLM supports
it from day one, so the subjects rule (each names the other) left it to the learned decision."""

from __future__ import annotations

from conftest import fake_config
from support.embedded import judged

from fake_encoder import FakeEncoder
from kbsearch.dedupe.results import Rule
from kbsearch.dedupe.subjects import release_not_theirs
from kbsearch.records import Kind, Record

ENCODER = FakeEncoder()
CONFIG = fake_config()

MODEL = Record(
    id="tom-model",
    kind=Kind.increment,
    title="OrcaLM-7 权重放出，推理侧关注 GQA 的布局变化",
    text="OrcaLM-7 以 MIT 许可开源。推理侧：官方说明 Turbine 与 SGLang 首日支持新的 GQA 变体。",
    claims=["Turbine 与 SGLang 首日支持"],
)
RELEASE = Record(
    id="jay-release",
    kind=Kind.increment,
    title="Turbine v1.8.0 发布：默认开启分块预填充，调度器重写",
    text="Turbine v1.8.0 发布。",
    claims=["新增：原生支持 OrcaLM-7 的 GQA 变体", "调度器重写为异步"],
)


def test_a_release_is_not_the_news_of_the_model_it_supports_either_way() -> None:
    for a, b in ((RELEASE, MODEL), (MODEL, RELEASE)):
        rule, same, reason = judged(a, b)
        assert (rule, same) == (Rule.different_names, False), reason
        assert "turbine 1.8.0" in reason and "orcalm" in reason


def test_a_record_giving_the_version_or_a_title_naming_the_product_is_left_to_the_other_rules() -> None:
    ours = frozenset({("turbine", "1.8.0")})
    assert release_not_theirs(ours, MODEL.title, MODEL.text.lower()) is not None
    assert release_not_theirs(ours, MODEL.title, "turbine 1.8 起支持 orcalm-7") is None  # gives the version
    assert release_not_theirs(ours, MODEL.title, "turbine 1.8.1 起支持") is not None  # another version
    assert release_not_theirs(ours, "Turbine 新版默认开启分块预填充", "") is None  # the title names the product
    assert release_not_theirs(ours, "分块预填充成为默认", "") is None  # no name of its own: a retelling
