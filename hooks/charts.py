"""MkDocs hook: run charts and quoted run numbers, from the page's run record (handbook/site/charts.py).

- A pitfall page with ``chart:`` in its front matter shows a ``<figure>`` (inline SVG, caption in the page's
  language) at the top of its Evidence section (what the runs showed, before the code that produced it), or where
  ``<!-- handbook:run-chart -->`` stands.
- ``{{ fix.grad_norm.max }}`` in a page's text becomes that number from seed 0 of the record, so figures in the
  text never drift from what the tests observed.
A missing or unreadable record stops the build with the page named (``python -m handbook check`` reports the
same problem first).
"""

from __future__ import annotations

import re

from _common import lang_of_src
from mkdocs.exceptions import PluginError

from handbook.content import pages as hp
from handbook.site import charts

EVIDENCE = re.compile(r"^## .*\{#evidence\}[ \t]*\n", re.M)
PLACEHOLDER = "<!-- handbook:run-chart -->"


def on_page_markdown(markdown, page, config, files, **kwargs):
    meta = page.meta or {}
    if meta.get("kind", "pitfall") != "pitfall":
        return markdown
    lang = lang_of_src(page.file.src_uri)
    try:
        markdown = hp.RUN_NUMBER.sub(lambda m: charts.quote(meta, *m.groups()), markdown)
        if not meta.get("chart"):
            return markdown
        fig = "\n\n" + charts.figure(meta, lang) + "\n\n"
    except (ValueError, KeyError, OSError) as e:
        raise PluginError(f"{page.file.src_uri}: field 'chart': {e}") from e
    if PLACEHOLDER in markdown:
        return markdown.replace(PLACEHOLDER, fig, 1)
    m = EVIDENCE.search(markdown)
    return markdown[: m.end()] + fig + markdown[m.end() :] if m else markdown + fig
