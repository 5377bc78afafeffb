"""What a title names (probes 34 and 36): a quantization format, the leaderboard a model enters
and a video's resolution are no system's name; two plain words joined by a hyphen leading a
title (a lab's model, Marlow-Dance) are one.

Probe 34: an official 4-bit re-upload of a model was set apart from every record of the model
("a title names what the other record never mentions (awq)"), and a model's leaderboard entry
from the model's own record ("(openarena)"). Probe 36: a video model's title leading with its
Word-Word name named nothing, so another lab's human-motion video model was taken for it, and
a resolution (1080p) counted as a system."""

from __future__ import annotations

import pytest
from conftest import fake_config
from support.embedded import judged_rare as judged
from support.embedded import titled as record

from fake_encoder import FakeEncoder
from kbsearch.dedupe.named_systems import systems_only
from kbsearch.dedupe.results import Rule
from kbsearch.dedupe.scores import Score, scored_on, title_score
from kbsearch.text.plain_names import head_plain_name, title_plain_names

ENCODER = FakeEncoder()
CONFIG = fake_config()


FERROW = record(
    "ana-1",
    "Tallis Labs 开源 Ferrow-8B：80 亿参数，上下文 64K",
    "Tallis Labs 发布 Ferrow-8B 权重，80 亿参数，训练 9 万亿 tokens，上下文 64K，宽松许可。",
)


@pytest.mark.parametrize("fmt", ["AWQ", "GPTQ", "GGUF", "EXL2"])
def test_a_quantized_re_upload_of_a_model_is_not_set_apart_by_its_format(fmt: str) -> None:
    upload = record(
        "ben-2",
        f"Tallis Labs publishes an official 4-bit {fmt} build of Ferrow-8B",
        f"The official {fmt} checkpoint of Ferrow-8B takes 5.1 GB on disk and keeps the 64K context.",
    )
    assert fmt.lower() not in systems_only(frozenset({fmt.lower()}))
    rule, _, reason = judged(upload, FERROW)
    assert rule is not Rule.different_names, reason


@pytest.mark.parametrize(
    "title",
    ["Ferrow-8B enters DuelBoard at Elo 1162", "Ferrow-8B 进入 DuelBoard 排行榜，Elo 1162"],
)
def test_a_model_s_leaderboard_entry_is_news_of_the_model_not_of_the_leaderboard(title: str) -> None:
    assert title_score(title) == Score(model="ferrow-8b", bench="duelboard", entry=True)
    entry = record("ben-3", title, "Ferrow-8B now sits at Elo 1162 after 9,000 pairwise votes.")
    rule, _, reason = judged(entry, FERROW)
    assert rule is not Rule.different_names, reason


def test_the_leaderboard_an_entry_title_names_is_what_its_model_is_ranked_on() -> None:
    score = title_score("Ferrow-8B enters PuzzleBoard at Elo 1162")
    assert scored_on(score, frozenset({"puzzleboard", "ferrow"})) == {"puzzleboard"}
    assert scored_on(None, frozenset({"puzzleboard"})) == frozenset()


def test_a_score_on_a_benchmark_keeps_the_benchmark_a_name_of_its_title() -> None:
    score = title_score("Ferrow-8B scores 71% on PuzzleMark Verified")
    assert score is not None and not score.entry
    assert scored_on(score, frozenset({"puzzlemark", "ferrow"})) == frozenset()
    reshuffle = record(
        "ben-6", "DuelBoard November update: Ferrow-8B overtakes Calder-2", "Ferrow-8B now leads DuelBoard at 1201 Elo."
    )
    scored = record("ana-6", "Ferrow-8B 在 PuzzleMark 上得分 71%", "Ferrow-8B 得分 71%，超过 Calder-2。")
    rule, _, reason = judged(reshuffle, scored)
    assert rule is Rule.different_names, reason


def test_a_resolution_or_frame_rate_names_no_system() -> None:
    assert systems_only(frozenset({"1080p", "720p", "2160p", "4k", "60fps", "120hz", "vireo"})) == {"vireo"}
    clip = record("ben-4", "Dunmore 2 generates 12-second 1080p clips", "Dunmore 2 makes 12-second clips at 24 fps.")
    repeat = record(
        "ana-4", "Dunmore 2 视频模型：单次 12 秒", "Dunmore 2 单次生成 12 秒视频，分辨率 1920×1080，24 帧。"
    )
    rule, _, reason = judged(repeat, clip)
    assert rule is not Rule.different_names, reason


MARLOW = record(
    "ana-5",
    "Marlow-Dance — identity-preserving dance video from text",
    "A diffusion transformer that turns a text prompt into multi-shot dance videos with one dancer's identity kept.",
)
PELLIN = record(
    "ben-5",
    "Pellin-Move — multi-shot human motion video from text",
    "A diffusion transformer that turns a text prompt into multi-shot human motion videos with identity kept.",
)


def test_a_title_leading_with_two_hyphenated_plain_words_names_them() -> None:
    assert "marlow-dance" in title_plain_names(MARLOW.title)
    assert "marlow-dance" in title_plain_names("Marlow-Dance：文本生成舞蹈视频，跨镜头身份一致")
    assert "marlow-dance" in title_plain_names("Marlow-Dance — Harbor Lab 文本生成舞蹈视频")
    assert head_plain_name(MARLOW.title) == {"marlow-dance"}


def test_two_labs_word_word_video_models_are_two_items() -> None:
    rule, same, reason = judged(PELLIN, MARLOW)
    assert (rule, same) == (Rule.different_names, False), reason
    assert "marlow-dance" in reason and "pellin-move" in reason


def test_a_retelling_naming_the_word_word_model_shares_its_name() -> None:
    retold = record(
        "ben-6",
        "Marlow-Dance：文本生成舞蹈视频，跨镜头身份一致",
        "Marlow-Dance 用扩散 Transformer 生成多镜头舞蹈视频。",
    )
    rule, _, reason = judged(retold, MARLOW)
    assert rule is not Rule.different_names, reason


@pytest.mark.parametrize(
    "title",
    [
        "Long-Context serving without recomputation",
        "Multi-Agent: a survey of planners",
        "Fine-Grained — expert routing at scale",
        "Mask-Guided editing of video frames",
        "Zero-Copy 传输：KV 缓存跨节点",
    ],
)
def test_ordinary_hyphenated_english_leading_a_title_names_nothing(title: str) -> None:
    assert not {n for n in title_plain_names(title) if "-" in n}


def test_a_title_case_paper_title_leading_with_a_word_word_names_no_product() -> None:
    assert not {n for n in title_plain_names("Log-Linear Attention for Long Sequences") if "-" in n}
    assert "marlow-dance" in title_plain_names("Marlow-Dance clip length doubles to 20 seconds")
