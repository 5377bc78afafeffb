"""A 来源 line's labelled dependency or comparison ("training data:", "基线：", "based on")
is cited, not what the increment is about (``parse.source_labels``)."""

from __future__ import annotations

from pathlib import Path

from support.files import write

from kbsearch.parse import parse_file
from kbsearch.parse.source_labels import about_part

BRIEFING = """inference · E1 预消化简报(2026-10-05)
执行： Ada
增量 1【Decoding · §2.1 首次锚入】🟢 Pinwheel-Spec — a draft head distilled on ChatTrace ★★★
来源： arXiv:2610.03311v1；training data: ChatTrace (arXiv:2609.14402)
要点： - Speed: 2.7x decoding speed-up on a 70B model - Data: distilled on 1.2M ChatTrace turns
增量 2：Larchwood 调度器（⭐⭐⭐）
来源：arXiv:2610.04455；基线：Orrery 调度器 arXiv:2608.07719；对比 arXiv:2607.01234
要点：
- 吞吐：比 Orrery 高 31%
增量 3：Quire-KV v2（⭐⭐）
来源：arXiv:2610.05566v2（基于 arXiv:2606.02020 的分页实现）；inbox/ada/notes.md
要点：
- 显存：降低 40%
增量 4：Tallow 复现笔记（⭐⭐）
来源：NVIDIA blog based on arXiv:2610.09999；arXiv:2610.08888 (full text)
要点：
- 结论：复现成功
Ada · 2026-10-05 21:00
"""


def test_labelled_sources_are_cited(tmp_path: Path) -> None:
    records = parse_file(write(tmp_path / "2026-10-05-ada-inference-e1prep.md", BRIEFING)).records
    about = [(r.arxiv_ids, r.cited_ids) for r in records]
    assert about[0] == (["2610.03311"], ["2609.14402"])  # the dataset it trained on
    assert about[1] == (["2610.04455"], ["2608.07719", "2607.01234"])  # a baseline, a comparison
    assert about[2] == (["2610.05566"], ["2606.02020"])  # "基于" inside the source's bracket
    # Prose inside a source is no label: the blog may retell the item's own paper.
    assert about[3] == (["2610.09999", "2610.08888"], [])


def test_about_part_keeps_unlabelled_sources() -> None:
    kept = about_part("arXiv:2609.19671v1 (full text); paper_card 1422")
    assert kept == "arXiv:2609.19671v1 (full text)； paper_card 1422"
    assert about_part("arXiv:2603.13417（2026-03；本周周报二次推荐）").startswith("arXiv:2603.13417")
    assert about_part("arXiv:2601.11111；vs arXiv:2601.22222") == "arXiv:2601.11111；"


def test_what_the_item_is_measured_on_is_cited() -> None:
    """A defence's source giving the benchmark it was evaluated on cites that benchmark's id:
    read as about it, the defence was an UPDATE of the benchmark's record (probe 46)."""
    assert about_part("arXiv:2611.04410；benchmark: Tollgate (arXiv:2610.07002)") == "arXiv:2611.04410；"
    assert about_part("arXiv:2611.04410；evaluated on arXiv:2610.07002") == "arXiv:2611.04410；"
    assert about_part("arXiv:2611.04410（评测于 arXiv:2610.07002）") == "arXiv:2611.04410（"
    assert about_part("arXiv:2611.04410；基准：Tollgate arXiv:2610.07002") == "arXiv:2611.04410；"
    assert about_part("arXiv:2611.04410；数据集： arXiv:2610.07002") == "arXiv:2611.04410；"
    # A noun without its colon is the source's prose: "benchmark paper" may be the item's own.
    assert about_part("benchmark paper arXiv:2610.07002") == "benchmark paper arXiv:2610.07002"
    assert about_part("Hugging Face 数据集 arXiv:2610.07002") == "Hugging Face 数据集 arXiv:2610.07002"
