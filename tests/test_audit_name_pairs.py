"""audit compares records sharing a rare coined name, as check gathers its candidates.

Probe (stop 58): ``check`` of a Chinese retelling of "PagedRadix" found its English record
through the rare name (``names.rare_name_candidates``) and called it the same item, but audit
compared a record only with its nearest records and those sharing an arXiv id: among 437
records each retelling was 14th to 17th nearest of the other (third to ninth across the
languages), so audit never judged the pair, nor the living-doc section whose line names
PagedRadix among a dozen others. Here each record's nearest is a twin naming another system
(``audit_neighbours`` 1), so only the shared rare name brings the pairs together."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from conftest import fake_config

from fake_encoder import FakeEncoder
from kbsearch.dedupe.audit import audit
from kbsearch.dedupe.features import NAME_COUNT_CAP
from kbsearch.dedupe.name_pairs import NameKeys, name_pairs
from kbsearch.dedupe.names import NameHolders
from kbsearch.ingest import ingest_records
from kbsearch.records import Kind, Record
from kbsearch.store import ChangeSet, Store

ZH = "{name} 把基数树前缀匹配与分页 KV 块合在一层管理，多轮对话负载上前缀命中率从 41% 提到 78%"
RETOLD = (
    "据报道，{name} 在多轮对话负载上把前缀命中率从 41% 提到 78%：它把基数树前缀匹配与分页 KV 块合在一层管理，代码已开源"
)
OTHER_LINES = "\n".join(
    f"- 条目 {i}：{w} 方向的工作，报告显存与吞吐改善，尚待复核。" for i, w in enumerate("甲乙丙丁戊己庚辛壬癸")
)


def _item(rid: str, instance: str, day: str, title: str, text: str) -> Record:
    return Record(id=rid, kind=Kind.increment, date=day, title=title, text=text, instance=instance)  # type: ignore[arg-type]


def _store(tmp_path: Path, records: list[Record]) -> Store:
    store = Store.open(tmp_path / "idx", create=True)
    files = {r.id: f"/src/{r.id.split('#')[0]}.md" for r in records}
    ingest_records(store, ChangeSet(upserts=records, files=files), model="fake", load_encoder=FakeEncoder)
    return store


def _clusters(store: Store) -> dict[str, list[tuple[str, str, str | None]]]:
    config = fake_config().model_copy(update={"audit_neighbours": 1, "audit_other_language": 0})
    result = audit(store, "fake", config)
    return {c.first_seen.id: [(m.id, m.role, m.reason) for m in c.repeats] for c in result.clusters}


def test_two_retellings_sharing_a_rare_name_are_compared_though_far_apart(tmp_path: Path) -> None:
    records = [
        _item("tom#1", "tom", "2026-09-10", "PagedRadix 前缀树与分页 KV", ZH.format(name="PagedRadix")),
        _item("nova#1", "nova", "2026-09-09", "PagedRadex 前缀树与分页 KV", ZH.format(name="PagedRadex")),
        _item("jay#1", "jay", "2026-09-12", "PagedRadix 命中率 78%", RETOLD.format(name="PagedRadix")),
        _item("lin#1", "lin", "2026-09-11", "PagedRadin 命中率 78%", RETOLD.format(name="PagedRadin")),
    ]
    clusters = _clusters(_store(tmp_path, records))
    assert [(rid, role) for rid, role, _ in clusters.get("tom#1", [])] == [("jay#1", "again")]


def test_a_section_naming_the_item_among_other_lines_is_in_doc(tmp_path: Path) -> None:
    text = ZH.format(name="PagedRadix")
    records = [
        _item("tom#1", "tom", "2026-09-10", "PagedRadix 前缀树与分页 KV", text),
        _item("jay#1", "jay", "2026-09-12", "PagedRadix 前缀树与分页 KV", text),
        _item("nova#1", "nova", "2026-09-09", "PagedRadex 前缀树与分页 KV", ZH.format(name="PagedRadex")),
        Record(
            id="doc/inference#§3.3",
            kind=Kind.doc_section,
            date="2026-09-20",  # type: ignore[arg-type]
            title="§3.3 KV Cache",
            text=f"- 分页块之上的前缀复用见 PagedRadix。\n{OTHER_LINES}",
        ),
        Record(id="doc/serving#§1", kind=Kind.doc_section, date="2026-09-20", title="§1 Serving", text=OTHER_LINES),  # type: ignore[arg-type]
    ]
    clusters = _clusters(_store(tmp_path, records))
    assert clusters["tom#1"] == [
        ("jay#1", "again", "identical text"),
        ("doc/inference#§3.3", "in doc", "the section names PagedRadix"),
    ]


def test_only_a_name_rare_by_checks_count_pairs_its_holders(tmp_path: Path) -> None:
    """Bounded: a name more than ``rare`` records hold as a word (check's count: WideName, two
    records name it and four more write it in lower case) gives no pair; a rare one gives every
    two of its holders; one that one record alone names, or too many name, is not looked up."""
    texts = [
        "CommonKV 与 PairName，唯一 LoneName",
        "CommonKV 与 PairName",
        "CommonKV 与 WideName",
        "CommonKV 与 WideName",
    ]
    texts += ["CommonKV 与 widename 小写"] * 4
    records = [_item(f"r{i}#1", "tom", "2026-09-10", f"记录 {i}", text) for i, text in enumerate(texts)]
    store = _store(tmp_path, records)
    rowids = np.array(sorted(store.all_rowids()), dtype=np.int64)
    names = NameKeys()
    found = store.by_rowids([int(r) for r in rowids])
    names.note(list(range(len(rowids))), [found[int(r)].embed_text() for r in rowids])
    holders = NameHolders(store, NAME_COUNT_CAP)
    left, right = name_pairs(names, holders, rowids, 5)
    ids = {frozenset((found[int(rowids[a])].id, found[int(rowids[b])].id)) for a, b in zip(left, right, strict=True)}
    assert ids == {frozenset(("r0#1", "r1#1"))}
    assert holders.count("widename") == 6
    assert {"pairname", "widename"} <= holders._found.keys()
    assert not {"lonename", "commonkv"} & holders._found.keys()
