"""Two titles naming different documents on one subject are about two items.

Policy and safety news reports documents: a lab's system card, a third party's red-team report
on the same model, a regulator's template, its implementing act, its guidance, a bill. Their
records read alike on every other word (the model, the regulator, the risk they weigh), and the
learned decision took one for the other. Probe 35: an institute's red-team report on a model
joined the model's own system card at p 0.92, an authority's implementing act on training data
joined an office's compliance template at 0.86, a Senate bill joined another act's committee
vote at 0.48. ``subjects.events_differ`` reads what a company's news reports; this reads what
kind of document a title is about, in either language (系统卡 is a system card).

A document and its own later version (system card v1.1, the final guidelines after the
consultation: ``text.legal`` reads those stages) are one kind, one item. Two titles naming
different kinds are two items unless a record names the other's document: its kind, not owned
by a name the other title never gives ("a standard ODSA template" is ODSA's, not the compliance
template an office published). A title naming both kinds (a report on a system card) sets
nothing apart.

A bill's number (S.1142, AB 412, H.R. 123) is to a bill what a model code is to a product
(``model_codes``): two titles naming different numbers are two items unless a record gives the
other's. A title naming a number and one naming no number but another short name of its own
(FMAA, VASO: capitals) that the numbered title never gives are two items when the numberless
record never gives the number: a bill's news names its number once it has one, so a record that
names another act or agency by its short name and never the number is about that one.
"""

from __future__ import annotations

import re
from functools import lru_cache

_KINDS = {
    "system card": r"\b(?:system|model) cards?\b|系统卡|模型卡",
    "evaluation report": (
        r"\b(?:red[- ]?team(?:ing)?|evaluation|eval|audit|assessment) reports?\b"
        r"|红队(?:测试)?报告|(?:评测|评估|审计)报告"
    ),
    "safety framework": (
        r"\b(?:safety|preparedness|responsible scaling|scaling) (?:framework|policy|charter)\b"
        r"|安全框架|扩展(?:政策|章程|策略)"
    ),
    # "Act" is a law only capitalised after a name (the AI Act, the Accountability Act): "agents
    # that act" and a paper's "Think Twice, Act Once" are not; the lower-case words are ``_LAW_LOWER``'s.
    "law": r"\b[A-Z][\w]*\)? Act\b(?!-)|法案|法律|法》|(?<![\w.])(?:SB|AB|HB|HR|H\.R\.|S\.) ?\d{1,5}\b",
    "template": r"\btemplates?\b|模板",
    "guidance": r"\bguidance\b|\bguidelines?\b|\bguides?\b|指南|指引",
    "code of practice": r"\bcodes? of (?:practice|conduct)\b|行为准则",
    "white paper": r"\bwhite ?papers?\b|白皮书",
    "court filing": r"\b(?:court|legal) filings?\b|\blawsuits?\b|\bcomplaint filed\b|起诉状|诉状|诉讼",
}
_FINDERS = {kind: re.compile(pattern, 0 if kind == "law" else re.IGNORECASE) for kind, pattern in _KINDS.items()}
# A scaling law, a power law or Amdahl's law is no statute.
_LAW_LOWER = re.compile(
    r"\b(?:implementing|delegated) act\b|\bbills?\b|(?<!scaling )(?<!power )(?<!'s )(?<!’s )\blaws?\b",
    re.IGNORECASE,
)
# A name owning a document right before it ("ODSA template", "Ashgrove 的红队报告"): a word with
# a capital in the three words before the kind, in its clause.
_OWNER_WINDOW = re.compile(r"(?:[^\s,.;:，。；：]+\s*){0,3}$")
_CAPITALISED = re.compile(r"(?<![\w-])[A-Za-z][\w-]*")
_OPENERS = frozenset({"a", "an", "the", "its", "their", "our", "this", "that", "new", "draft", "final", "standard"})
_BILL = re.compile(r"(?<![\w.])(SB|AB|HB|HR|H\.R\.|S\.)\s?(\d{1,5})(?![\w.]|\.\d)")
# A short name of a law or an agency: three to six capitals (FMAA, VASO, ODSA), not a bill's
# letters nor the trade's words.
_SHORT_NAME = re.compile(r"(?<![\w.-])[A-Z]{3,6}(?![\w-])")
_NOT_SHORT_NAMES = frozenset({"AGI", "LLM", "GPU", "CPU", "API", "CEO", "GPAI"})


@lru_cache(maxsize=4096)  # a title's, asked again for every pair it is in (its dozen finders each time)
def document_kinds(title: str) -> frozenset[str]:
    """The kinds of document a title names (system card, evaluation report, law, template,
    guidance, ...); none for a title naming no known kind."""
    found = {kind for kind, finder in _FINDERS.items() if finder.search(title)}
    if _LAW_LOWER.search(title):
        found.add("law")
    return frozenset(found)


def _names_document(text: str, kinds: frozenset[str], their_title: str) -> bool:
    """Whether ``text`` names a document of one of ``kinds`` that is not owned by a name
    ``their_title`` never gives."""
    title = their_title.lower()
    for kind in kinds:
        finders = [_FINDERS[kind], _LAW_LOWER] if kind == "law" else [_FINDERS[kind]]
        for finder in finders:
            for match in finder.finditer(text):
                before = _OWNER_WINDOW.search(text[: match.start()])
                words = _CAPITALISED.findall(before.group(0) if before else "")
                owners = [w for w in words if re.search(r"[A-Z]", w) and w.lower() not in _OPENERS]
                if not owners or any(w.lower() in title for w in owners):
                    return True
    return False


@lru_cache(maxsize=4096)  # a title's, asked again for every pair it is in
def bill_numbers(title: str) -> frozenset[str]:
    """The bill numbers a title names, without dots or spaces (S1142, AB412, HR123)."""
    return frozenset(f"{letters.replace('.', '')}{number}" for letters, number in _BILL.findall(title))


def _gives_bill(text: str, bill: str) -> bool:
    letters, number = re.match(r"([A-Z]+)(\d+)", bill).groups()  # type: ignore[union-attr]
    dotted = r"\.?".join(letters)
    return re.search(rf"(?<![\w.]){dotted}\.?\s?{number}(?!\d)", text, re.IGNORECASE) is not None


def _bills_differ(item: tuple[str, str], known: tuple[str, str]) -> str | None:
    (our_title, our_text), (their_title, their_text) = item, known
    ours, theirs = bill_numbers(our_title), bill_numbers(their_title)
    if ours and theirs:
        if ours & theirs:
            return None
        if any(_gives_bill(their_text, b) for b in ours) or any(_gives_bill(our_text, b) for b in theirs):
            return None
        return f"the titles name different bills ({', '.join(sorted(ours))} / {', '.join(sorted(theirs))})"
    for numbered, (title, text), other_title in ((ours, known, our_title), (theirs, item, their_title)):
        if not numbered or any(_gives_bill(text, b) for b in numbered):
            continue
        own = {n for n in _SHORT_NAME.findall(title) if n not in other_title and n not in _NOT_SHORT_NAMES}
        if own and document_kinds(title):
            listed = f"{', '.join(sorted(numbered))} / {', '.join(sorted(own))}"
            return f"the titles name different documents ({listed}), the other record never giving the bill's number"
    return None


def documents_differ(item: tuple[str, str], known: tuple[str, str]) -> str | None:
    """Why two records with these (title, title and text) are two items by the documents their
    titles name, or None (see the module)."""
    (our_title, our_text), (their_title, their_text) = item, known
    reason = _bills_differ(item, known)
    mine, other = document_kinds(our_title), document_kinds(their_title)
    if reason or not mine or not other or mine & other:
        return reason
    if _names_document(our_text, other, their_title) or _names_document(their_text, mine, our_title):
        return None
    return f"the titles name different kinds of document ({', '.join(sorted(mine))} / {', '.join(sorted(other))})"
