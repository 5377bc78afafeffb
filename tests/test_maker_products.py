"""Two products of one maker, each title leading with the maker's name and each record writing its
own product word, are two items (``dedupe.maker_products``, read by ``dedupe.title_leads``); a
retelling that writes the product word otherwise or drops it stays joinable.

Probe 48: a vendor's on-device SDK ("<maker> Edge — …") was the UPDATE of the Chinese record of the
vendor's cloud API (title "<maker> 发布…", key point "产品：<maker> Realtime"), though neither record
wrote the other's product word. The fixtures are written here, with other names and numbers."""

from __future__ import annotations

from support.embedded import judged, judged_rare, titled

from kbsearch.dedupe.maker_products import MakerProducts, maker_products, products_differ
from kbsearch.dedupe.mention_roles import unroled
from kbsearch.dedupe.results import Rule

RELAY_ZH = titled(
    "mei/2026-12-07#3",
    "Tallowind 发布流式语音 API — 输入每分钟 0.05 美元",
    "产品：Tallowind Relay，语音进、语音出的流式对话接口，经 WebSocket 调用；输入每分钟 0.05 美元，"
    "输出每分钟 0.18 美元；首批开放德国和日本两个区域。",
    "2026-12-07",
)
POCKET = titled(
    "rui/2026-12-10#2",
    "Tallowind Pocket — an offline speech recognition and voice SDK for phones",
    "Tallowind, until now a cloud vendor, ships its first on-device product: an SDK with offline speech "
    "recognition and synthesis for Android and iOS, 180 MB for both models, free up to 5,000 monthly "
    "devices, then $0.003 per device.",
    "2026-12-10",
)
STUDIO = titled(
    "rui/2026-12-08#1",
    "Brackwater Studio — a desktop editor for dubbing tracks",
    "Brackwater's editor lines up dubbed tracks with the picture and exports stems; a seat costs $24 a month.",
    "2026-12-08",
)
CLOUD_ZH = titled(
    "mei/2026-12-09#4",
    "Brackwater Cloud 上线 — 按小时计费的配音渲染服务",
    "Brackwater 推出云端渲染服务，每渲染一小时 1.9 美元，支持 12 种语言的配音合成。",
    "2026-12-09",
)


def lead(title: str, text: str = "") -> tuple[MakerProducts | None, str]:
    """What the title-lead rule reads of a record: its maker's products, its unroled text."""
    whole = f"{title}\n{text}"
    lowered = unroled(whole)
    return maker_products(title, whole, lowered), lowered


def apart(a: tuple[str, str], b: tuple[str, str]) -> str | None:
    return products_differ(lead(*a), lead(*b))


def test_two_products_of_one_maker_are_two_items() -> None:
    for a, b in ((POCKET, RELAY_ZH), (RELAY_ZH, POCKET), (STUDIO, CLOUD_ZH), (CLOUD_ZH, STUDIO)):
        for judge in (judged, judged_rare):
            rule, same, reason = judge(a, b)
            assert (rule, same) == (Rule.different_names, False), (a.id, b.id, reason)
            assert "different products" in reason, reason
    assert "tallowind pocket / tallowind relay" in judged(POCKET, RELAY_ZH)[2]


def test_a_product_named_only_in_a_comparison_is_still_the_others() -> None:
    pocket = (POCKET.title, f"{POCKET.text} Unlike Tallowind Relay, it needs no network.")
    assert apart(pocket, (RELAY_ZH.title, RELAY_ZH.text)) is not None
    # In Chinese the comparison closes after the name: 与 <maker> <product> 不同.
    pocket_zh = ("Tallowind Pocket — 手机端离线语音 SDK", "与 Tallowind Relay 不同，Pocket 无需联网。")
    assert apart(pocket_zh, (RELAY_ZH.title, RELAY_ZH.text)) is not None
    # Nor is a product the record names only as what it derives from its own.
    assert lead("Tallowind 发布离线语音 SDK", "The SDK is based on Tallowind Relay as its encoder.")[0] is None


def test_a_retelling_that_writes_the_product_otherwise_or_drops_it_stays_joinable() -> None:
    relay = (RELAY_ZH.title, RELAY_ZH.text)
    pocket = (POCKET.title, POCKET.text)
    assert apart(pocket, relay) is not None  # the pair the retellings below stand beside
    retellings = [
        ("Tallowind 流式 API 公布按分钟定价", "Tallowind 的流式接口每分钟 0.05 美元。"),  # no Latin product word
        ("Tallowind's new relay API is live", "Per-minute prices for the streaming voice API."),  # lower case
        ("Tallowind Relay API — streaming voice at 5¢ a minute", "Tallowind Relay takes speech in and out."),
        ("Tallowind 发布 API", "产品：Tallowind API，流式语音。"),  # a generic word after the name
    ]
    for retelling in retellings:
        assert apart(retelling, relay) is None, retelling
    # The SDK's record naming the API outside a role, or the API written apart, ties them.
    assert apart((POCKET.title, f"{POCKET.text} It falls back to Tallowind Relay online."), relay) is None
    assert apart(pocket, ("Tallowind Relay 发布", "离线模式见 Tallowind 的 pocket 方案。")) is None
    realtime = ("Tallowind Realtime 发布", "")
    assert apart(pocket, realtime) is not None
    assert apart((POCKET.title, f"{POCKET.text} Its cloud twin answers in real time."), realtime) is None


def test_what_names_a_product_after_the_maker() -> None:
    assert lead(POCKET.title)[0] == MakerProducts("tallowind", frozenset({"pocket"}))
    assert lead(RELAY_ZH.title, RELAY_ZH.text)[0] == MakerProducts("tallowind", frozenset({"relay"}))
    assert lead(CLOUD_ZH.title)[0] == MakerProducts("brackwater", frozenset({"cloud"}))
    # A word a maker writes after its name that names no product, a headline or a paper's Title
    # Case title, a run of capitalised words, a place: no product word.
    for title in (
        "Tallowind API 降价三成",
        "Tallowind Model 发布",
        "Tallowind Update — prices cut",
        "Tallowind v2 — faster streaming",
        "Tallowind 发布新模型",
        "Tallowind Launches Pocket SDK",
        "Tallowind Launches an SDK",
        "Tallowind Developer Day — what was shown",
        "Tallowind Japan 开设东京办公室",
        "Practical Streaming Speech Recognition on Phones",
    ):
        assert lead(title)[0] is None, title
