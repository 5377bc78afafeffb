"""Audit's "in doc" needs the item itself, not a term of its field (``dedupe.doc_subject``).

Probe 34: a model's leaderboard entry was held by the doc's section on the leaderboard, which
never names the model ("the section names" the leaderboard), and a small model's release by a
section on another model whose licence phrase one of its key points repeats. Probe 35: a
briefing restating the doc's date beside news of its own (a new template) was flagged as
claiming new what the doc had. The texts here are written for these tests."""

from __future__ import annotations

from pathlib import Path

from conftest import fake_config

from fake_encoder import FakeEncoder
from kbsearch.dedupe.audit import audit
from kbsearch.dedupe.audit_results import AuditResult
from kbsearch.dedupe.doc_subject import subject_names
from kbsearch.ingest import ingest_records
from kbsearch.records import Kind, Record
from kbsearch.store import ChangeSet, Store


def _section(anchor: str, title: str, text: str) -> Record:
    return Record(id=f"doc/models#{anchor}", kind=Kind.doc_section, date="2026-10-01", title=title, text=text)  # type: ignore[arg-type]


def _item(rid: str, day: str, title: str, text: str, claims: list[str], anchor: str | None = None) -> Record:
    instance = rid.split("#")[0]
    return Record(
        id=rid,
        kind=Kind.increment,
        date=day,
        title=title,
        text=text,
        claims=claims,
        instance=instance,
        anchor=anchor,  # type: ignore[arg-type]
    )


def _audit(tmp_path: Path, records: list[Record]) -> AuditResult:
    store = Store.open(tmp_path / "idx", create=True)
    files = {r.id: f"/src/{r.instance or 'models'}.md" for r in records}
    ingest_records(store, ChangeSet(upserts=records, files=files), model="fake", load_encoder=FakeEncoder)
    return audit(store, "fake", fake_config())


def test_a_title_is_about_the_name_it_leads_with_and_the_sized_models_it_names() -> None:
    assert subject_names("Corvid-9B 登上 HelmBench 排行榜，得分 71.2") == {"corvid"}
    assert subject_names("HelmBench re-scores Corvid-9B after a grading bug") == {"helmbench", "corvid"}
    assert subject_names("LatticeKV 分页缓存与 KV 压缩") == {"latticekv"}
    assert subject_names("Adaptive batching budgets") == frozenset()  # no name: section_on_item reads alone


LEADERBOARD = _section(
    "§4.1", "§4.1 HelmBench", "HelmBench 用盲评对战计算评分；开放模型的头部目前在 70 分上下，榜单每两周更新。"
)
CORVID = "Corvid-9B 在 HelmBench 上得分 71.2，开放模型第二"


def test_a_section_on_the_leaderboard_does_not_hold_a_model_it_never_names(tmp_path: Path) -> None:
    records = [
        LEADERBOARD,
        _item("ada#1", "2026-10-03", "Corvid-9B 登上 HelmBench 排行榜，得分 71.2", CORVID, [CORVID]),
        _item("ben#1", "2026-10-05", "HelmBench re-scores Corvid-9B after a grading bug", CORVID, [CORVID]),
    ]
    [cluster] = _audit(tmp_path, records).clusters
    assert [m.id for m in cluster.repeats] == ["ben#1"], [(m.id, m.reason) for m in cluster.repeats]
    assert cluster.held_in_doc is None
    # The same section with a line on the model holds it: ben's title leads with HelmBench and
    # names Corvid-9B, and the section names both.
    named = LEADERBOARD.model_copy(update={"text": f"{LEADERBOARD.text}\n- Corvid-9B 得分 71.2，开放模型第二。"})
    [cluster] = _audit(tmp_path / "named", [named, *records[1:]]).clusters
    assert [(m.id, m.reason) for m in cluster.repeats][1:] == [("doc/models#§4.1", "the section names HelmBench")]
    assert cluster.held_in_doc is not None and cluster.held_in_doc.id == named.id


def test_a_licence_line_copied_from_another_models_section_holds_nothing(tmp_path: Path) -> None:
    text = "Marlin-2B：20 亿参数，8 万亿 token 训练"
    records = [
        _section("§1.3", "§1.3 Pinnace-12B", "Pinnace-12B：120 亿参数，上下文 32K，MIT 许可证发布。"),
        _item("ada#2", "2026-10-03", "Harrow Labs 的 Marlin-2B 小模型", text, [text, "MIT 许可证发布"]),
        _item("ben#2", "2026-10-03", "Harrow Labs releases Marlin-2B", text, [text, "MIT 许可证发布"]),
    ]
    [cluster] = _audit(tmp_path, records).clusters
    assert [m.id for m in cluster.repeats] == ["ben#2"], [(m.id, m.reason) for m in cluster.repeats]
    assert cluster.held_in_doc is None


def test_one_restated_doc_line_is_no_claimed_new_flag(tmp_path: Path) -> None:
    """The briefing restates the doc's release date beside its own news, a red-team appendix;
    the section holds the item by that copied line, but the appendix was new."""
    released = "Gannet-4B 于 2026年9月 以 Apache-2.0 许可证发布"
    section = _section("§1.4", "§1.4 Gannet-4B", f"{released}；上下文 64K。")
    item = _item(
        "ada#3",
        "2026-10-03",
        "Gannet-4B 模型卡：新增红队附录",
        "模型卡新增红队附录，列出 14 类越狱测试。",
        [released, "模型卡新增红队附录，列出 14 类越狱测试"],
        anchor="首次锚入",
    )
    result = _audit(tmp_path, [section, item])
    assert result.claimed_new_seen_before == [], [f.message for f in result.claimed_new_seen_before]


def test_a_role_word_is_no_subject_a_section_holds_an_item_by() -> None:
    assert subject_names("Quillon CTO Mara Vint leaves; COO steps in") == frozenset()
    assert subject_names("PlinthAI CFO resigns before the IPO") == {"plinthai"}


def test_a_section_naming_the_same_role_holds_no_leadership_change(tmp_path: Path) -> None:
    """The doc says who the company's CTO is; the item says the CTO left. The section shares
    the word CTO (rare in a small index), not the news: no "in doc", no claimed-new flag."""
    section = _section("§6", "§6 团队与组织", "Brindle Works 由 Ilsa Varn 创办，Ilsa Varn 兼任 CTO，团队约 80 人。")
    text = "Brindle Works 的 CTO Ilsa Varn 离职，由研究负责人 Teo Marsh 接任。"
    item = _item(
        "ada#4", "2026-10-03", "Brindle CTO Ilsa Varn departs; Teo Marsh named CTO", text, [text], anchor="首次锚入"
    )
    result = _audit(tmp_path, [section, item])
    assert result.claimed_new_seen_before == [], [f.message for f in result.claimed_new_seen_before]
    assert all(section.id not in [m.id for m in c.repeats] for c in result.clusters)
