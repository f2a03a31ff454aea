"""MkDocs hook: a page's front matter, validated and rendered; ``<!-- handbook:NAME -->`` placeholders.

A thin adapter over ``handbook.site.render`` (the renderers, unit-tested on their own):

- Every page's front matter is validated with the same typed model the validator uses
  (``handbook.content.pages.FrontMatter`` / ``GuideMatter``): bad metadata stops ``mkdocs build`` and ``mkdocs serve``
  with the file and the field.
- A pitfall page gets its badges and symptom box under its title (``render.render_meta``).
- At the end of its Fix section, a pitfall page gets "copy the whole program", a download of it and how to run it
  (``render.program_box``, placed by ``render.place_program_box``).
- ``<!-- handbook:NAME -->`` placeholders are replaced by ``PLACEHOLDERS[NAME]`` (from render.py and
  errors_page.py); an unknown NAME is an error.
"""

from __future__ import annotations

import html
import re

from _common import lang_of_src
from mkdocs.exceptions import PluginError

from handbook.content import pages as hp
from handbook.site import errors_page, render

PLACEHOLDER = re.compile(r"<!-- handbook:([\w-]+) -->")
PLACEHOLDERS = {**render.PLACEHOLDERS, **errors_page.PLACEHOLDERS}
H1 = re.compile(r"^# .*$", re.M)


def _validated(page):
    """The page's front matter as the typed model; a PluginError naming the file and field if it is bad."""
    meta = page.meta or {}
    model = hp.GuideMatter if meta.get("kind") == "guide" else hp.FrontMatter
    if page.file.src_uri.endswith(".ipynb"):
        return None
    try:
        return model.model_validate(meta)
    except hp.ValidationError as e:
        problems = "; ".join(
            f"field '{'.'.join(map(str, err['loc'])) or 'front matter'}': {err['msg']}" for err in e.errors()
        )
        raise PluginError(f"docs/{page.file.src_uri}: {problems}") from None


def on_page_markdown(markdown, page, config, files, **kwargs):
    lang = lang_of_src(page.file.src_uri)
    meta = _validated(page)

    def fill(m: re.Match) -> str:
        name = m.group(1)
        if name not in PLACEHOLDERS:
            known = sorted(PLACEHOLDERS)
            raise PluginError(f"docs/{page.file.src_uri}: unknown placeholder <!-- handbook:{name} -->; known: {known}")
        try:
            return PLACEHOLDERS[name](page.file.src_uri, lang)
        except render.RenderError as e:
            raise PluginError(str(e)) from None

    if page.file.src_uri in ("index.md", "index.zh.md"):
        # the home page keeps its navigation title (Home, 首页: its tab); its browser tab title is the site name
        # (overrides/main.html), said once
        page.meta.pop("title", None)
    elif meta is not None:
        # the navigation, the tab title and search show page.title as HTML: keep it text
        page.title = html.escape(meta.title.replace("`", ""))
        page.meta["title"] = page.title  # Material reads page.meta.title for the tab title
    markdown = PLACEHOLDER.sub(fill, markdown)
    if isinstance(meta, hp.FrontMatter):
        block = render.render_meta(meta, lang)
        m = H1.search(markdown)
        markdown = markdown[: m.end()] + "\n\n" + block + "\n" + markdown[m.end() :] if m else block + "\n" + markdown
        # at the end of the Fix section: copy or download the page's whole program (hooks/programs.py serves it)
        markdown = render.place_program_box(markdown, render.program_box(meta, lang, render.program_code(meta)))
    return markdown
