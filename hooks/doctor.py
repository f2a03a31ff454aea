"""MkDocs hook: the log doctor's rules on the site, for the Log doctor page's in-browser doctor.

``docs/javascripts/doctor.js`` (a port of the ``rlhf-doctor`` CLI) fetches ``assets/doctor-rules.json`` from the
site root; this copies the CLI's own ``rules.json`` there, byte for byte, after each build (each language's build
writes the same file). No logic here: the rules are exported from the pages by ``python -m handbook doctor-rules``.
"""

from __future__ import annotations

import pathlib
import shutil

from rlhf_doctor.rules import RULES_FILE

TARGET = "assets/doctor-rules.json"


def on_post_build(config, **kwargs):
    out = pathlib.Path(config["site_dir"]) / TARGET
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(RULES_FILE, out)
