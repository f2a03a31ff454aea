"""What the handbook's MkDocs hooks share: the repository root on sys.path, and the page language."""

from __future__ import annotations

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def lang_of_src(src_uri: str) -> str:
    return "zh" if ".zh." in pathlib.PurePosixPath(src_uri).name else "en"
