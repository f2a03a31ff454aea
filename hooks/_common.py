"""What the handbook's MkDocs hooks share: the repository root and the page language.

The hooks import ``handbook`` and ``rlhf_doctor`` as installed packages (``make serve``/``make docs`` install
both, editable, into the docs environment); nothing here changes ``sys.path``."""

from __future__ import annotations

import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent


def lang_of_src(src_uri: str) -> str:
    return "zh" if ".zh." in pathlib.PurePosixPath(src_uri).name else "en"
