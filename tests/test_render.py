"""The site's generated parts as plain functions (``handbook.render``) and their strings (``handbook.ui``)."""

from __future__ import annotations

import importlib

import pytest

from handbook import compat_page, notebook_html, pages, render, runs, ui


@pytest.mark.parametrize("table", ["LABELS", "COMPAT_LABELS", "FINDER", "ADVICE_LABELS", "CHART", "TEMPLATES"])
def test_every_ui_table_says_the_same_things_in_both_languages(table):
    t = getattr(ui, table)
    assert set(t) == {"en", "zh"} and set(t["en"]) == set(t["zh"]), table
    assert all(str(v).strip() for lang in t.values() for v in lang.values()), table


def test_chapter_and_section_titles_have_both_languages():
    for pairs in (ui.CHAPTERS, ui.SECTIONS, ui.ADVICE_GROUPS):
        assert all(len(v) == 2 and all(v) for v in pairs.values())


def test_nothing_is_read_at_import():
    importlib.reload(compat_page)
    importlib.reload(render)
    assert render.verified_versions.cache_info().currsize == 0
    assert render.matrix_results.cache_info().currsize == 0


def test_verified_summary_joins_consecutive_releases(monkeypatch):
    cols = {v: {"kind": "pinned", "trl": v} for v in ("0.29.1", "1.0.0", "1.1.0", "1.2.0", "1.3.0")}
    cols["1.3.0@release"] = {"kind": "release", "trl": "1.3.0"}
    passed = {"outcome": "passed"}
    cells = {"0.29.1": passed, "1.1.0": passed, "1.2.0": passed, "1.3.0": passed, "1.3.0@release": {}}
    monkeypatch.setattr(compat_page, "matrix_results", lambda: {"versions": cols, "pages": {"docs/x.md": cells}})
    assert compat_page.summary("docs/x.md") == "0.29.1, 1.1.0–1.3.0 (4/5)"
    assert compat_page.summary("docs/unknown.md") == ""


def test_program_box_links_the_served_file_and_says_how_to_run_it():
    meta = pages.pitfall_pages()[0]
    fm = hp_model(meta)
    code = render.program_code(fm)
    en, zh = render.program_box(fm, "en", code), render.program_box(fm, "zh", code)
    assert (
        f'href="../../programs/{fm.chapter}/{fm.id}.py"' in en and f'"../../../programs/{fm.chapter}/{fm.id}.py"' in zh
    )
    assert code.endswith("\n") and not code.endswith("\n\n")
    if "HANDBOOK_MODEL" in code:
        assert "HANDBOOK_MODEL=/path/to/model" in en and "HANDBOOK_MODEL=/path/to/model" in zh


def hp_model(page):
    return pages.FrontMatter.model_validate(page.meta)


@pytest.mark.parametrize(
    ("symptom", "where"),
    [
        ("ValueError: generation_batch_size (4) must be divisible", "error"),
        ("CUDA out of memory during generation", "memory"),
        ("frac_reward_zero_std is 1.0", "metrics"),
        ("the model repeats itself", "behaviour"),
        ("显存不够", "memory"),
    ],
)
def test_the_symptom_finder_groups_by_where_a_symptom_shows(symptom, where):
    assert render.where_shown(symptom) == where


def test_symptoms_keep_identifiers_as_code_and_escape_the_rest():
    out = render.symptom_markdown("loss_type <b>bold stays")
    assert "`loss_type`" in out and "&lt;b&gt;bold" in out and "<b>" not in out


def test_badges_escape_front_matter_text():
    meta = pages.FrontMatter.model_validate(pages.load(pages.DOCS / "online-rl" / "grpo-zero-std-group.md").meta)
    meta = meta.model_copy(update={"verdict_reason": "<script>alert(1)</script>"})
    out = render.render_meta(meta, "en")
    assert "<script>" not in out and "&lt;script&gt;" in out and 'class="hb-badge' in out


def test_a_chapter_index_lists_its_pages_in_the_readers_language():
    en = render.PLACEHOLDERS["chapter-index"]("sft/index.md", "en")
    zh = render.PLACEHOLDERS["chapter-index"]("sft/index.md", "zh")
    assert en.startswith("| Page | Verdict | Why |") and zh.startswith("| 页面 | 结论 | 原因 |")
    assert en.count("\n") == zh.count("\n") > 2


def test_links_are_relative_to_the_page_rendered():
    assert render._link("start/symptom-finder.md", "sft/x.md") == "../sft/x.md"
    assert render._link("index.md", "sft/x.md") == "sft/x.md"


def test_a_missing_record_is_a_render_error(monkeypatch):
    monkeypatch.setattr(runs, "load", lambda meta: None)
    with pytest.raises(render.RenderError, match="no run record"):
        render.PLACEHOLDERS["doctor-example"]("start/log-doctor.md", "en")


def test_table_cells_keep_identifiers_literal():
    assert render._cell("GRPOTrainer.__init__ | *x*") == "GRPOTrainer.\\_\\_init\\_\\_ \\| \\*x\\*"


def test_the_home_page_lists_every_chapter():
    table = render.PLACEHOLDERS["chapters"]("index.md", "zh")
    assert all(f"]({chapter}/index.md)" in table for chapter in ui.CHAPTERS), table


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_search_preview_starts_with_the_fix_then_the_cause(lang):
    t = ui.LABELS[lang]
    colon = "：" if lang == "zh" else ": "
    text = (
        f"Common advicewrong Applies to TRL&gt;=0.29 <p>{t['symptoms']}</p> <ul> <li>x</li> </ul> "
        f"<p>{t['fix_line']}{colon}set <code>beta=0.04</code>.</p> <p>{t['why']}{colon}the cause.</p> <p>body</p>"
    )
    out = render.search_preview_first(text, lang)
    assert out.startswith(
        f"<p>{t['fix_line']}{colon}set <code>beta=0.04</code>.</p> <p>{t['why']}{colon}the cause.</p> "
        f"<p>{t['symptoms']}</p> <ul> <li>x</li> </ul>"
    ), out
    assert "Applies to" not in out and out.count("the cause") == 1 and out.endswith("<p>body</p>")
    assert render.search_preview_first(out, lang) == out  # a rebuild (mkdocs serve) keeps it
    assert render.search_preview_first("<p>a guide page</p>", lang) == "<p>a guide page</p>"


def test_search_preview_reads_chinese_cut_into_words():
    """Material's index cuts Chinese into words with zero-width spaces, the labels included: they still match."""
    t, z = ui.LABELS["zh"], "\u200b"

    def cut(s: str) -> str:  # a zero-width space between any two characters, as jieba may put them
        return z + z.join(s) + z

    text = (
        f"徽章 <p>{cut(t['symptoms'])}</p> <ul> <li>x</li> </ul> "
        f"<p>{cut(t['fix_line'])}：{z}设{z} <code>beta</code></p> <p>{cut(t['why'])}：原因{z}</p>"
    )
    out = render.search_preview_first(text, "zh")
    assert out.startswith(f"<p>{t['fix_line']}：设{z} <code>beta</code></p> <p>{t['why']}：原因{z}</p> <p>"), out
    assert "徽章" not in out


def test_the_symptom_box_says_the_fix_first_then_the_cause():
    meta = pages.FrontMatter.model_validate(pages.load(pages.DOCS / "online-rl" / "grpo-zero-std-group.md").meta)
    meta = meta.model_copy(update={"fix_line": "Set `beta=0.04` <b>now</b>.", "verdict_reason": "The cause."})
    en, zh = render.render_meta(meta, "en"), render.render_meta(meta, "zh")
    assert en.index("**Fix:** Set `beta=0.04` &lt;b&gt;now&lt;/b&gt;.") < en.index("*Why:* The cause.")
    assert zh.index("**修复：**Set `beta=0.04`") < zh.index("*原因：*The cause.")
    assert "<b>" not in en


def test_a_nav_label_marks_code_and_escapes_the_rest():
    assert (
        render.nav_label("`kl` keeps <rising> & `a<b`")
        == "<code>kl</code> keeps &lt;rising&gt; &amp; <code>a&lt;b</code>"
    )
    assert render.nav_label("no code") == "no code"


def test_a_lone_symbol_is_prose_not_code():
    assert render.symptom_markdown("reward_std = 0") == "`reward_std` = 0"
    assert render.symptom_markdown("loss / grad_norm") == "loss / `grad_norm`"


def test_notebook_css_moves_into_one_shared_file():
    """JupyterLab's inlined stylesheets leave the page for one <link>; other styles and pages stay as they were."""
    page = (
        "<head><style>pre { x: 1 }</style></head><body>"
        '<style type="text/css">\n@charset "UTF-8";.jupyter-wrapper{--a: 1}</style><div class="jupyter-wrapper">'
        '<style type="text/css">\n.jupyter-wrapper{--b: 2}</style><p>cell</p></div></body>'
    )
    out, css = notebook_html.share_notebook_css(page, "../../assets/stylesheets/notebook.css")
    assert "--a: 1" in css and "--b: 2" in css and "<style" not in css
    assert out.count('<link rel="stylesheet" href="../../assets/stylesheets/notebook.css">') == 1
    assert "jupyter-wrapper{" not in out and "<style>pre { x: 1 }</style>" in out and "<p>cell</p>" in out
    assert notebook_html.share_notebook_css("<p>plain</p>", "x.css") == ("<p>plain</p>", "")


def test_notebook_stylesheet_keeps_only_what_the_pages_use():
    """notebook_html.prune_css: a selector naming a class no page has goes (one inside :not() does not count), @media
    blocks are pruned alike, and a custom property stays only while something reads it, here or in the pages."""
    css = (
        ".w{--used: red;--chain: var(--used);--unused: url(data:x);--page: blue}"
        ".w .jp-Cell{color: var(--chain)}"
        ".w .jp-Widget, .w .jp-Cell:not(.jp-mod-active) .jp-Prompt{margin: 0}"
        ".w .jp-Toolbar{color: var(--unused)}"
        "@media (max-width: 600px){.w .jp-Toolbar{x: 1}.w .jp-Cell{y: 2}}"
        "@media print{.w .jp-Toolbar{x: 1}}"
        "@font-face{font-family: f}"
    )
    classes = notebook_html.used_classes('<div class="w"><div class="jp-Cell x"><span class="jp-Prompt">', "")
    assert classes == {"w", "jp-Cell", "x", "jp-Prompt"}
    out = notebook_html.prune_css(css, classes, read_elsewhere='<span style="color: var(--page)">')
    assert "jp-Toolbar" not in out and "jp-Widget" not in out and "@media print" not in out
    assert ".w .jp-Cell:not(.jp-mod-active) .jp-Prompt{margin:0}" in out
    assert "@media (max-width: 600px){.w .jp-Cell{y:2}}" in out and "@font-face" in out
    assert "--used:red" in out and "--chain:var(--used)" in out and "--page:blue" in out
    assert "--unused" not in out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_compatibility_page_lists_each_known_release_defect_with_its_skipped_cells(lang):
    """A defect of a release (contract.RELEASE_DEFECTS) is named on the Compatibility page, in the page's language,
    with how many matrix cells it skipped (TRL 1.15.0 without Triton: both 1.15.0 columns)."""
    import re

    from handbook import contract

    text = compat_page.release_defects(lang, ui.COMPAT_LABELS[lang])
    lines = text.splitlines()
    assert len(lines) == len(contract.RELEASE_DEFECTS)
    assert lines[0].startswith("- **trl ==1.15.0**") and "1.16.0" in lines[0]
    assert int(re.search(r"(\d+) (?:cells|个单元格)", lines[0]).group(1)) > 60, lines[0]
