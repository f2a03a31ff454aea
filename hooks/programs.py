"""MkDocs hook: every pitfall page's whole program is a file of the site, ``programs/<chapter>/<slug>.py``.

The program is the page's Python blocks in order with their includes resolved (``contract.page_code``), exactly
what the paste test runs; the page's "Download" button links it and "Copy the whole program" fetches it
(docs/javascripts/program.js). Both languages show the same code and link the same file.
"""

from __future__ import annotations

import pathlib

from handbook.content import pages as hp
from handbook.site import render


def on_post_build(config, **kwargs):
    # written after the build (mkdocs-static-i18n cannot carry generated files), once, at the site root
    for doc in hp.pitfall_pages():
        meta = hp.FrontMatter.model_validate(doc.meta)
        out = pathlib.Path(config["site_dir"], render.program_path(meta))
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(render.program_code(meta), encoding="utf-8")
