"""The MkDocs hooks on their own: front matter is validated on the render path, text from it is escaped,
and an unknown placeholder is an error (so `mkdocs serve` shows bad metadata instead of rendering it)."""

from __future__ import annotations

import importlib
import pathlib
import sys
from types import SimpleNamespace

import pytest
from mkdocs.exceptions import PluginError

from handbook.content import pages
from handbook.site import search_text

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


NAV_TITLE_BRANCH = (
    "{% if nav_item.meta and nav_item.meta.nav_title %}\n"
    "    {{ nav_item.meta.nav_title | hb_nav_label }}\n"
    "  {% elif nav_item.typeset %}",
    "{% if nav_item.typeset %}",
)


def _material_partial(name: str) -> str:
    import material

    return (pathlib.Path(material.__file__).parent / "templates" / "partials" / name).read_text(encoding="utf-8")


def test_the_nav_template_is_materials_plus_the_nav_title_only():
    """overrides/partials/nav-item.html is a copy of Material's: a Material upgrade that changes the original fails
    here, so the copy is refreshed instead of silently drifting."""
    ours = (pages.ROOT / "overrides" / "partials" / "nav-item.html").read_text(encoding="utf-8")
    ours = ours[ours.index("-#}\n") + 4 :]  # our header comment
    theirs = _material_partial("nav-item.html").replace(
        "{#-\n  This file was automatically generated - do not edit\n-#}\n", ""
    )
    assert ours.count(NAV_TITLE_BRANCH[0]) == 1
    assert ours.replace(*NAV_TITLE_BRANCH) == theirs


def test_the_sidebar_shows_the_nav_title_with_code_and_escapes_the_rest():
    import jinja2

    nav = importlib.import_module("nav")
    loader = jinja2.FileSystemLoader(str(pages.ROOT / "overrides"))
    env = nav.on_env(jinja2.Environment(loader=loader), config={}, files=None)
    macros = env.get_template("partials/nav-item.html").module
    page = SimpleNamespace(meta={"nav_title": "`kl` keeps <rising>"}, title="The full title", typeset=None)
    assert macros.render_title(page).strip() == "<code>kl</code> keeps &lt;rising&gt;"
    guide = SimpleNamespace(meta={}, title="Start here", typeset=None)
    assert macros.render_title(guide).strip() == "Start here"


def test_the_chinese_terms_are_the_pages_and_stay_whole():
    """handbook/site/zh_terms.txt (jieba's user dictionary for the Chinese index): every term is written in a Chinese
    page, appears once, and jieba keeps it whole (its own dictionary cuts each: 灾难性遗忘 → 灾难性/遗忘)."""
    search = importlib.import_module("search")
    terms = search_text.ZH_TERMS.read_text(encoding="utf-8").split()
    assert len(terms) == len(set(terms)) >= 30, "a term listed twice, or the list lost its terms"
    text = "".join(p.read_text(encoding="utf-8") for p in pages.DOCS.rglob("*.zh.md"))
    assert not [t for t in terms if t not in text], "a term no Chinese page uses"
    split = [(t, search._jieba_segment(t)) for t in terms if search._jieba_segment(t) != t]
    assert not split, f"terms jieba still cuts: {split}"
    assert search._jieba_segment("训练时显存溢出，灾难性遗忘") == "训练\u200b时\u200b显存溢出\u200b，\u200b灾难性遗忘"


def test_search_worker_keeps_lunr_token_set_keys_apart(tmp_path):
    """lunr's minimised word trie keyed a node by its edge labels and child ids run together, so a digit label
    ran into an id ("1" + node 23 = "12" + node 3) and two different nodes merged: a query holding "trl" then
    threw in Index.query (reading '_index' of undefined) and listed nothing. The patched worker separates ids."""
    import material

    search = importlib.import_module("search")
    workers = pathlib.Path(material.__file__).parent / "templates" / "assets" / "javascripts" / "workers"
    out = tmp_path / "assets" / "javascripts" / "workers"
    out.mkdir(parents=True)
    for worker in workers.glob("search.*.min.js"):
        (out / worker.name).write_text(worker.read_text(encoding="utf-8"), encoding="utf-8")
    search.fix_segmentation({"site_dir": str(tmp_path)})
    patched = [w.read_text(encoding="utf-8") for w in out.glob("search.*.min.js")]
    assert patched and all(search._TOKENSET_FIXED in t and search._TOKENSET not in t for t in patched)
