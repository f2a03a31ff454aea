"""Errors by message: every exact error and warning line that a pitfall page lists among its symptoms, grouped by
the exception or warning class a traceback ends with, each linking to the pages that explain it. The page a reader
lands on after pasting a traceback's last line into a search engine."""

from __future__ import annotations

import re

from handbook.content import pages as hp
from handbook.site import render
from handbook.ui import ERRORS_LABELS

ERROR_LINE = re.compile(r"^(?:[A-Za-z_][\w]*\.)*(?P<cls>[A-Z]\w*(?:Error|Exception|Warning))(?::|$)")
"""A symptom that is an error or warning line as Python prints it: ``KeyError: 'label'``,
``torch.OutOfMemoryError: ...``, ``FutureWarning: ...``. Prose that mentions an error is not one."""


def error_class(symptom: str) -> str | None:
    """The exception or warning class a symptom line starts with, without its module; None for prose."""
    m = ERROR_LINE.match(symptom.strip())
    return m.group("cls") if m else None


def errors_by_class(lang: str) -> dict[str, list[tuple[str, list[str]]]]:
    """Class -> [(error line, [its pages' paths under docs/])], from the symptom finder's index (one entry per
    phrasing, every page that lists it). Errors before warnings, then the most frequent class first."""
    groups: dict[str, list[tuple[str, list[str]]]] = {}
    for chapters in render.symptom_index(lang).values():
        for entries in chapters.values():
            for symptom, paths in entries:
                if cls := error_class(symptom):
                    groups.setdefault(cls, []).append((symptom, paths))
    order = sorted(groups, key=lambda c: (c.endswith("Warning"), -len(groups[c]), c))
    return {c: sorted(groups[c], key=lambda e: e[0].lower()) for c in order}


def _errors_by_message(src_uri: str, lang: str) -> str:
    t = ERRORS_LABELS[lang]
    groups = errors_by_class(lang)
    total = sum(map(len, groups.values()))
    out = [t["count"].format(lines=total, classes=len(groups)), ""]
    titles: dict[str, str] = {}
    for cls, entries in groups.items():
        out += [f"## {cls} {{#{cls.lower()}}}", "", f"| {t['message']} | {t['page']} |", "|---|---|"]
        for message, paths in entries:
            links = []
            for rel in paths:
                if rel not in titles:
                    doc = hp.load(hp.DOCS / rel if lang == "en" else hp.twin_of(hp.DOCS / rel))
                    titles[rel] = render._cell(doc.meta.get("nav_title") or doc.meta["title"])
                links.append(f"[{titles[rel]}]({render._link(src_uri, rel)})")
            out.append(f"| {render._code(message)} | {' · '.join(links)} |")  # verbatim; a pipe in it stays
        out.append("")
    return "\n".join(out)


PLACEHOLDERS = {"errors-by-message": _errors_by_message}
