"""The countries a text names, by the country or one of its cities, in English or Chinese.

A company's data centres, regions and offices are one item per place: "Groq opens
Helsinki data centre" is not "Groq 在沙特新建推理数据中心", though both read alike on
every other word (opens, site, inference, chips). A city is read as its country, so
"赫尔辛基" meets "Finland" and only places in different countries set news apart.
"""

from __future__ import annotations

import re
from functools import lru_cache

# Country → its names and a few cities where compute is sited, in English and Chinese.
# Kept short on purpose: a place missing here sets nothing apart (the learned decision
# weighs the pair), while a wrong entry would split one event.
_PLACES: dict[str, tuple[str, ...]] = {
    "united states": (
        *("United States", "U.S.", "USA", "美国", "Texas", "得克萨斯", "Virginia", "弗吉尼亚"),
        *("Oregon", "俄勒冈", "Arizona", "亚利桑那", "Ohio", "俄亥俄", "Dallas", "达拉斯", "New York", "纽约"),
    ),
    "canada": ("Canada", "加拿大", "Toronto", "多伦多", "Montreal", "蒙特利尔", "Quebec", "魁北克"),
    "saudi arabia": ("Saudi", "沙特", "Riyadh", "利雅得", "Dammam", "达曼"),
    "uae": ("UAE", "United Arab Emirates", "阿联酋", "Abu Dhabi", "阿布扎比", "Dubai", "迪拜"),
    "qatar": ("Qatar", "卡塔尔", "Doha", "多哈"),
    "finland": ("Finland", "芬兰", "Helsinki", "赫尔辛基"),
    "sweden": ("Sweden", "瑞典", "Stockholm", "斯德哥尔摩"),
    "norway": ("Norway", "挪威", "Oslo", "奥斯陆"),
    "france": ("France", "法国", "Paris", "巴黎", "Marseille", "马赛"),
    "germany": ("Germany", "德国", "Frankfurt", "法兰克福", "Berlin", "柏林", "Munich", "慕尼黑"),
    "netherlands": ("Netherlands", "荷兰", "Amsterdam", "阿姆斯特丹"),
    "ireland": ("Ireland", "爱尔兰", "Dublin", "都柏林"),
    "united kingdom": ("United Kingdom", "UK", "Britain", "英国", "London", "伦敦"),
    "spain": ("Spain", "西班牙", "Madrid", "马德里"),
    "italy": ("Italy", "意大利", "Milan", "米兰"),
    "japan": ("Japan", "日本", "Tokyo", "东京", "Osaka", "大阪"),
    "south korea": ("Korea", "韩国", "Seoul", "首尔"),
    "singapore": ("Singapore", "新加坡"),
    "malaysia": ("Malaysia", "马来西亚", "Johor", "柔佛"),
    "india": ("India", "印度", "Mumbai", "孟买"),
    "australia": ("Australia", "澳大利亚", "Sydney", "悉尼", "Melbourne", "墨尔本"),
    "brazil": ("Brazil", "巴西", "São Paulo", "圣保罗"),
}


def _pattern(name: str) -> str:
    # A Latin name is a capitalised word of its own (not "Helsinki-NLP", a research group's
    # name, nor "Parisian"); a Chinese one is read where it stands.
    if name.isascii():
        return rf"(?<![A-Za-z0-9-]){re.escape(name)}(?![A-Za-z0-9-])"
    return re.escape(name)


_FINDERS = {country: re.compile("|".join(map(_pattern, names))) for country, names in _PLACES.items()}


@lru_cache(maxsize=4096)
def countries(text: str) -> frozenset[str]:
    """The countries ``text`` names, by their names or their cities'."""
    return frozenset(country for country, finder in _FINDERS.items() if finder.search(text))
