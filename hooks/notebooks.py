"""MkDocs hook: walkthrough notebooks stay pages under mkdocs-static-i18n.

static-i18n rebuilds every file as a plain ``File``, which turns mkdocs-jupyter's notebooks back into static
downloads; this re-marks ``.ipynb`` files as pages with the ``/<lang>/<path>/`` URL their Markdown neighbours
get, and points the language switcher at the twin notebook.
"""

from __future__ import annotations

import os
import pathlib
from types import SimpleNamespace

from mkdocs.plugins import event_priority


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
