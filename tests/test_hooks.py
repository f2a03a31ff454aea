"""The MkDocs hooks on their own: front matter is validated on the render path, text from it is escaped,
and an unknown placeholder is an error (so `mkdocs serve` shows bad metadata instead of rendering it)."""

from __future__ import annotations

import importlib
import sys
from types import SimpleNamespace

import pytest
from mkdocs.exceptions import PluginError

from handbook import pages

sys.path.insert(0, str(pages.ROOT / "hooks"))
page_meta = importlib.import_module("page_meta")

META = pages.load(pages.DOCS / "online-rl" / "grpo-zero-std-group.md").meta


def render(meta: dict, markdown: str = "# Title\n\nbody", src: str = "online-rl/grpo-zero-std-group.md") -> str:
    page = SimpleNamespace(file=SimpleNamespace(src_uri=src), meta=meta)
    return page_meta.on_page_markdown(markdown, page, config={}, files=None)


def test_a_real_page_renders_badges_and_symptoms():
    out = render(dict(META))
    assert 'class="hb-badge hb-verdict hb-verdict--wrong"' in out and "!!! symptoms" in out


def test_bad_front_matter_stops_the_build_naming_file_and_field():
    with pytest.raises(PluginError, match=r"docs/online-rl/grpo-zero-std-group.md: field 'verdict'"):
        render({**META, "verdict": "maybe"})


def test_unknown_placeholder_is_an_error():
    with pytest.raises(PluginError, match="unknown placeholder <!-- handbook:nope -->"):
        render(dict(META), "# T\n\n<!-- handbook:nope -->")


def test_front_matter_text_is_escaped():
    hostile = "<img src=x onerror=alert(1)>"
    out = render({**META, "verdict_reason": f"reason {hostile}", "symptoms": [hostile, "a b", "loss is 0"]})
    assert "<img" not in out and "&lt;img" in out
