"""The one Markdown scanner: code fences, lines outside them, and ATX headings (standard library only).

The validator (``handbook.content.pages``), the paste test (``handbook.content.contract.page_blocks``) and the hooks
(``hooks/i18n.py``) all read fences through ``fences()``, so they agree on where a fence opens and closes:
a fence opens with three or more backticks or tildes (indented up to any depth, as inside an admonition), and
closes with a line of the same character, at least as long, with nothing after it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

OPEN = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)(.*)$")
PYTHON_LANGS = ("python", "py", "python3")
"""Fence languages whose code is page code: run by the tests, shown as one include. Anything else is text."""
HEADING = re.compile(r"(#{1,6})[ \t]+(.*)")
ANCHOR = re.compile(r"\{#([\w-]+)\}")
STRAY_HASH = re.compile(r"^ {0,3}(?:>\s*)?#")
"""A line that Python-Markdown renders as a heading although nobody meant one (``#6263`` wrapped to a line start)."""


@dataclass
class Fence:
    line: int  # 1-based line of the opening marker
    indent: int
    marker: str
    lang: str  # "python", "text", ... or "" ; ``` { .python } counts as python
    info: str  # everything after the marker, as written
    lines: list[str] = field(default_factory=list)  # the content, indentation of the opener removed
    end: int | None = None  # 1-based line of the closing marker; None if never closed

    @property
    def is_python(self) -> bool:
        return self.lang in PYTHON_LANGS


def _closes(fence: Fence, line: str) -> bool:
    m = OPEN.match(line)
    return bool(m and m.group(2)[0] == fence.marker[0] and len(m.group(2)) >= len(fence.marker)) and not (
        m.group(3) or m.group(4).strip()
    )


def fences(text: str) -> list[Fence]:
    """Every fenced code block of ``text``, in order."""
    out: list[Fence] = []
    cur: Fence | None = None
    for i, line in enumerate(text.splitlines(), 1):
        if cur is None:
            if m := OPEN.match(line):
                lang = m.group(3) or (re.match(r"\s*\{\s*\.(\w+)", m.group(4)) or [None, ""])[1]
                cur = Fence(i, len(m.group(1)), m.group(2), lang, (m.group(3) + m.group(4)).strip())
        elif _closes(cur, line):
            cur.end = i
            out.append(cur)
            cur = None
        else:
            cur.lines.append(line[cur.indent :] if line[: cur.indent].strip() == "" else line)
    if cur is not None:
        out.append(cur)
    return out


def outside_fences(text: str) -> Iterator[tuple[int, str]]:
    """(1-based line, line) of every line that is not inside a fence nor a fence marker."""
    inside: set[int] = set()
    for f in fences(text):
        inside.update(range(f.line, (f.end or len(text.splitlines())) + 1))
    for i, line in enumerate(text.splitlines(), 1):
        if i not in inside:
            yield i, line


def heading(line: str) -> tuple[int, str, str | None] | None:
    """(level, text, explicit anchor) of an ATX heading line, in linear time; None for other lines."""
    m = HEADING.fullmatch(line)
    if not m:
        return None
    text, anchor = m.group(2).strip(), None
    if text.endswith("}") and (i := text.rfind("{#")) >= 0 and ANCHOR.fullmatch(text[i:]):
        text, anchor = text[:i].strip(), text[i + 2 : -1]
    return len(m.group(1)), text, anchor


def headings(text: str) -> list[tuple[int, str, str | None]]:
    """(level, text, explicit anchor) for each heading outside code fences."""
    return [h for _, line in outside_fences(text) if (h := heading(line))]


def stray_headings(text: str) -> list[int]:
    """Lines outside fences that would render as a heading without being one (``#123`` at a line start)."""
    return [i for i, line in outside_fences(text) if STRAY_HASH.match(line) and not heading(line)]
