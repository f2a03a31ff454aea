"""A pitfall page's entry in the search index: its one-line fix, then its cause, first (what a result previews)."""

from __future__ import annotations

import html
import pathlib
import re

from handbook.ui import LABELS

ZWSP = "\u200b"


def _loose(text: str) -> str:
    """A pattern for ``text`` as the search index holds it: Material cuts Chinese into words with zero-width spaces,
    which may stand between any two characters."""
    return f"{ZWSP}?".join(re.escape(ch) for ch in text)


def search_preview_first(text: str, lang: str) -> str:
    """A pitfall page's search text with its one-line fix first, then its cause: the search result preview shows
    the start of the text, which would otherwise be the badge row run together. The badges go; the symptom list
    stays, after them. Works on the index's text, emphasis removed and Chinese cut by zero-width spaces."""
    t = LABELS[lang]
    intro = re.compile(rf"<p>{ZWSP}?{_loose(html.escape(t['symptoms']))}{ZWSP}?</p>")
    if not intro.search(text):
        return text
    first = []
    for key in ("fix_line", "why"):
        label = _loose(html.escape(t[key]))
        tags = rf"(?:</?(?:em|strong)>|{ZWSP})*"
        if m := re.search(rf"<p>{tags}{label}{ZWSP}?[:：]{tags}\s*(.*?)</p>", text, re.S):
            first.append(f"<p>{html.escape(t[key])}{'：' if lang == 'zh' else ': '}{m.group(1).strip()}</p>")
            text = text[: m.start()] + text[m.end() :]
    text = text[intro.search(text).start() :]
    return " ".join([*first, text])


ZH_TERMS = pathlib.Path(__file__).with_name("zh_terms.txt")
"""The handbook's Chinese terms that jieba's own dictionary cuts into pieces (显存溢出, 灾难性遗忘 → 灾难性/遗忘): a
jieba user dictionary, loaded before the first page is cut into words (hooks/speed.py for Material's titles and
text, hooks/search.py for the symptoms), so a term is one indexed word wherever it appears. A query's Chinese run
is matched against every indexed word inside it, so it finds the whole term too."""


def load_zh_terms(jieba) -> None:
    """Add ZH_TERMS to jieba's dictionary, once per process. Only when a page is cut into words: a build whose
    search entries all come from the cache never loads jieba's dictionary (tests/test_build_speed.py)."""
    if not getattr(jieba, "_handbook_terms", False):
        jieba.load_userdict(str(ZH_TERMS))
        jieba._handbook_terms = True
