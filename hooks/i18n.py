"""MkDocs hook: what mkdocs-static-i18n leaves to do for the Chinese site.

- A line break between two Chinese characters is not a space: Markdown turns a soft line break into a space,
  right between English words and wrong between Chinese characters ("训练 过程"). On Chinese pages this joins
  such lines before Markdown sees them, outside code.
- The theme templates' strings (overrides/404.html, overrides/main.html) come from ``handbook.ui.TEMPLATES``, given to
  Jinja as ``hb_ui``; the 404 page's search box is ``handbook.site.render.search_form`` (``hb_search_form``), as on the
  home page.
- One 404 page per language: static-i18n builds the Chinese site last and its 404.html overwrites the English
  one at the site root. The English one is put back at the root (the page a static host serves for any
  missing path) and the Chinese one is kept at ``zh/404.html``; the English one sends a missing address under
  the Chinese site there (docs/javascripts/not-found.js).
"""

from __future__ import annotations

import pathlib
import re

from _common import lang_of_src

from handbook import ui
from handbook.content import markdown_scan
from handbook.site import render

CJK = "\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef"
_BREAK = re.compile(rf"(?<=[{CJK}])[ \t]*\n[ \t]*(?=[{CJK}])")


def join_cjk_lines(markdown: str) -> str:
    """Join a line break between two Chinese characters (it would render as a space), outside code fences."""
    lines = markdown.split("\n")
    outside = {i - 1 for i, _ in markdown_scan.outside_fences(markdown)}
    out, chunk = [], []
    for i, line in enumerate(lines):
        if i in outside:
            chunk.append(line)
            continue
        if chunk:
            out.append(_BREAK.sub("", "\n".join(chunk)))
            chunk = []
        out.append(line)
    if chunk or not out:
        out.append(_BREAK.sub("", "\n".join(chunk)))
    return "\n".join(out)


def on_page_markdown(markdown, page, config, files, **kwargs):
    return join_cjk_lines(markdown) if lang_of_src(page.file.src_uri) == "zh" else markdown


def on_env(env, config, files, **kwargs):
    env.globals["hb_ui"] = ui.TEMPLATES
    env.globals["hb_search_form"] = render.search_form
    return env


_root_404: dict[str, bytes] = {}


def on_post_build(config, **kwargs):
    i18n = config.plugins.get("i18n")
    lang = getattr(i18n, "current_language", "en") if i18n else "en"
    page = pathlib.Path(config["site_dir"]) / "404.html"
    if not page.exists():
        return
    if lang == "en":
        _root_404["en"] = page.read_bytes()
    elif "en" in _root_404:
        (page.parent / lang).mkdir(exist_ok=True)
        (page.parent / lang / "404.html").write_bytes(page.read_bytes())
        page.write_bytes(_root_404["en"])
