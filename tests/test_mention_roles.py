"""A record naming another model only as its base, teacher, rival or a namesake it is not is
not that model's record (``mention_roles``, read by ``model_codes`` and ``subjects``; probe 34)."""

from __future__ import annotations

import pytest
from conftest import fake_config
from support.embedded import embedded

from kbsearch.dedupe.mention_roles import unroled
from kbsearch.dedupe.model_codes import models_differ, sized_models
from kbsearch.dedupe.rules import different_names

CONFIG = fake_config()


def rare(name: str) -> int:
    """A young index: every name is rare."""
    return 1


@pytest.mark.parametrize(
    ("text", "gone", "kept"),
    [
        ("Wrenfield-2B, distilled from Wrenfield-30B", "wrenfield-30b", "wrenfield-2b"),
        ("Lumen Forge distilled Wrenfield-30B into a 2B student", "wrenfield-30b", "lumen forge"),
        ("A fine-tune of Heron-8B by Tarn Labs, fine-tuned on Heron-8B-Base", "heron-8b", "tarn labs"),
        ("Skiff-Code-8B：基于 Heron-8B 的代码微调", "heron-8b", "skiff-code-8b"),
        ("由 Wrenfield-30B 蒸馏得到的 20 亿参数模型", "wrenfield-30b", "20 亿"),
        ("在 Heron-8B 上继续微调", "heron-8b", "微调"),
        ("Successor to Gannet-9B, and the third open MoE after Pike-40B", "gannet-9b", "moe"),
        ("比 Gannet-9B 高 4 分，与 Pike-40B 不同", "pike-40b", "4 分"),
        ("与 Pike Forge 2 相比，延迟低 30%", "pike forge 2", "延迟低 30%"),
        ("与 Bramble Labs 的同名手机模型无关", "bramble", "无关"),
        ("Not related to Bramble's Sorrel-1B", "sorrel-1b", "not related"),
        ("scores 71, ahead of gannet-9b's 68", "gannet-9b", "scores 71"),
    ],
)
def test_a_name_in_a_role_is_no_mention(text: str, gone: str, kept: str) -> None:
    found = unroled(text)
    assert gone not in found and kept in found, found


def test_a_plain_mention_is_kept() -> None:
    assert "heron-8b" in unroled("Osier AI changes the Heron-8B licence to MIT; Heron-8B is trained on 9T tokens")


@pytest.mark.parametrize(
    ("title", "models"),
    [
        ("Wrenfield-2B, distilled from Wrenfield-30B", {"wrenfield-2b"}),  # the base only in a role
        ("Skiff-Code-8B：基于 Heron-8B 的代码微调", {"skiff-code-8b"}),
        ("Distilled from Wrenfield-30B", {"wrenfield-30b"}),  # names no other: the base is its subject
        ("Gannet-9B-Instruct and Pike-8x7B land", {"gannet-9b", "pike-8x7b"}),
        ("Qwill2.5-1.5B 发布", {"qwill2.5-1.5b"}),
        ("Acme raises 1.5B", set()),  # money, no hyphen
        ("H200-141GB boards ship", set()),  # memory, not parameters
    ],
)
def test_a_title_names_models_by_family_and_size(title: str, models: set[str]) -> None:
    assert sized_models(title) == models


def test_a_distilled_student_is_not_its_teacher_s_item() -> None:
    teacher = embedded("a/1", "Lumen Forge releases Wrenfield-30B", "Wrenfield-30B: 30B dense, 12T tokens.")
    student = embedded(
        "b/2",
        "Wrenfield-2B, distilled from Wrenfield-30B",
        "Lumen Forge distilled Wrenfield-30B into a 2B student on 300B tokens of logits; it keeps the 64K context.",
    )
    found = different_names(student, teacher, CONFIG, rare)
    assert found is not None and "wrenfield-2b / wrenfield-30b" in found[2], found


def test_another_lab_s_fine_tune_is_not_its_base_s_item() -> None:
    base = embedded("a/1", "Heron-8B base model from Osier AI", "Heron-8B: 8 billion parameters, Apache 2.0.")
    tune = embedded("b/2", "Tarn Labs 发布 Skiff-Code-8B，基于 Heron-8B 的代码微调", "许可沿用基座的 Apache-2.0。")
    found = different_names(tune, base, CONFIG, rare)
    assert found is not None and "skiff-code-8b / heron-8b" in found[2], found


def test_a_namesake_disowned_in_chinese_is_not_that_item() -> None:
    phone = embedded("a/1", "Bramble Labs ships Sorrel-1B for phones", "Sorrel-1B: a 1B text model for phones.")
    speech = embedded(
        "b/2",
        "Quillon AI 发布语音模型 Sorrel-1B",
        "Quillon AI 的 Sorrel-1B 是语音识别模型，与 Bramble Labs 的同名手机模型无关。",
    )
    found = different_names(speech, phone, CONFIG, rare)
    assert found is not None and "quillon / bramble" in found[2], found


def test_a_model_s_own_news_stays_its_item() -> None:
    """A licence change and a leaderboard entry name the model as their subject."""
    launch = embedded("a/1", "Heron-8B base model from Osier AI", "Heron-8B: 8 billion parameters, Apache 2.0.")
    licence = embedded("b/2", "Heron-8B 许可改为 MIT", "Osier AI 将 Heron-8B 的许可改为 MIT，取消使用限制。")
    assert different_names(licence, launch, CONFIG, rare) is None
    student = ("Wrenfield-2B, distilled from Wrenfield-30B", "wrenfield-2b, distilled from wrenfield-30b")
    entry = ("Wrenfield-2B enters the leaderboard at 1104", "wrenfield-2b, distilled from wrenfield-30b: elo 1104")
    assert models_differ((entry[0], unroled(entry[1])), (student[0], unroled(student[1]))) is None
