"""MkDocs hook: walkthrough notebooks stay pages under mkdocs-static-i18n.

static-i18n rebuilds every file as a plain ``File``, which turns mkdocs-jupyter's notebooks back into static
downloads; this re-marks ``.ipynb`` files as pages with the ``/<lang>/<path>/`` URL their Markdown neighbours
get, and points the language switcher at the twin notebook. mkdocs-jupyter inlines JupyterLab's stylesheets in
every notebook page: they move to one shared file, pruned to the rules the notebook pages use.
"""

from __future__ import annotations

import html
import os
import pathlib
import re
from types import SimpleNamespace

from _common import lang_of_src
from mkdocs.plugins import event_priority

from handbook import ui
from handbook.site import notebook_html


@event_priority(-200)  # after mkdocs-static-i18n (-100) has rebuilt the file list
def on_files(files, config, **kwargs):
    for file in list(files):
        if not file.src_uri.endswith(".ipynb") or file.is_documentation_page():
            continue
        dest = pathlib.PurePosixPath(file.dest_uri)
        # mkdocs-jupyter already gave it ".../<name>/index.html"; a bare copy would still end in ".ipynb"
        page_dir = dest.parent / dest.stem if dest.suffix == ".ipynb" else dest.parent
        file.__class__ = type("I18nNotebookFile", (type(file),), {"is_documentation_page": lambda self: True})
        file.dest_uri = (page_dir / "index.html").as_posix()
        file.url = page_dir.as_posix() + "/"
        rel = page_dir.as_posix().removeprefix("zh/")
        file.alternates = {
            "en": SimpleNamespace(url=rel + "/", locale="en"),
            "zh": SimpleNamespace(url="zh/" + rel + "/", locale="zh"),
        }
        file.abs_dest_path = os.path.normpath(os.path.join(config["site_dir"], file.dest_uri))
    return files


_NO_ALT = 'alt="No description has been provided for this image"'
_CAPTION = re.compile(r"(?:Figure|图)[:：]\s*(.+?)(?:</p>|$)", re.S)


NOTEBOOK_CSS = "assets/stylesheets/notebook.css"
"""JupyterLab's stylesheets, once for every notebook page (notebook_html.share_notebook_css)."""


def on_post_page(output, page, config, **kwargs):
    """One shared stylesheet instead of 580 KB inlined per notebook page; plots as lazily loaded files beside the
    page, each with a "tap to enlarge" hint; a notebook plot's alt text is the "Figure: …" sentence written before
    it (mkdocs-jupyter has none)."""
    if not page.file.src_uri.endswith(".ipynb"):
        return output
    depth = page.url.rstrip("/").count("/") + 1 if page.url.strip("/") else 0
    output, css = notebook_html.share_notebook_css(output, "../" * depth + NOTEBOOK_CSS)
    if css:
        target = pathlib.Path(config["site_dir"]) / NOTEBOOK_CSS
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(css, encoding="utf-8")  # the same for every notebook: the last write wins
    output, images = notebook_html.move_images_out(output)
    output = notebook_html.add_zoom_hints(output, ui.NOTEBOOK[lang_of_src(page.file.src_uri)]["zoom_hint"])
    folder = pathlib.Path(page.file.abs_dest_path).parent
    for name, data in images.items():
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    if _NO_ALT not in output:
        return output
    parts = output.split(_NO_ALT)
    out = parts[0]
    for part in parts[1:]:
        found = _CAPTION.findall(re.sub(r"<(?!/p>)[^>]+>", "", out[-200_000:]))
        alt = html.escape(html.unescape(found[-1].strip()), quote=True) if found else ""
        out += f'alt="{alt}"' + part
    return out


@event_priority(-200)  # after mkdocs-static-i18n (-100) has built every language (as hooks/search.py)
def on_post_build(config, **kwargs):
    """The shared stylesheet keeps only what the notebook pages use: JupyterLab's 580 KB (85 KB gzipped) styles a
    whole IDE, a rendered notebook needs about 20 KB of it (notebook_html.prune_css)."""
    i18n = config.plugins.get("i18n")
    if i18n is not None and getattr(i18n, "building", False):
        return  # the nested build of one language: wait for the outer build's end
    site = pathlib.Path(config["site_dir"])
    target = site / NOTEBOOK_CSS
    if not target.exists():
        return
    pages = [t for t in (p.read_text(encoding="utf-8") for p in site.rglob("*.html")) if NOTEBOOK_CSS in t]
    theirs = "".join(p.read_text(encoding="utf-8") for p in (site / "stylesheets").glob("*.css"))
    css = notebook_html.prune_css(
        target.read_text(encoding="utf-8"), notebook_html.used_classes(*pages), "".join(pages) + theirs
    )
    target.write_text(css, encoding="utf-8")
