"""The site's generated parts as plain functions (``handbook.site.render``) and their strings (``handbook.ui``)."""

from __future__ import annotations

import html
import importlib
import json
import re

import pytest

from handbook import ui
from handbook.content import pages
from handbook.lanes import runs
from handbook.site import notebook_html, render, search_text
from handbook.versions import compat_page


@pytest.mark.parametrize(
    "table",
    [
        "LABELS",
        "COMPAT_LABELS",
        "FINDER",
        "FINDER_LABELS",
        "ADVICE_LABELS",
        "CHART",
        "TEMPLATES",
        "NOTEBOOK",
        "ERRORS_LABELS",
    ],
)
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
    assert compat_page.summary("docs/x.md") == ("0.29.1, 1.1.0–1.3.0", 4, 5)
    assert compat_page.summary("docs/unknown.md") is None


@pytest.mark.parametrize(("lang", "text"), [("en", "4 of 5 releases"), ("zh", "5 个版本中 4 个通过")])
def test_the_verified_badge_says_what_its_numbers_count(monkeypatch, lang, text):
    """The "Verified on TRL" badge says in words how many of how many releases, and its tooltip what was run; before
    the matrix ran the page it names the pinned TRL and says so."""
    monkeypatch.setattr(compat_page, "summary", lambda rel: ("0.29.1, 1.1.0–1.3.0", 4, 5))
    value, title = render.verified_badge("docs/x.md", lang)
    assert value.startswith("0.29.1, 1.1.0–1.3.0") and text in value and "4/5" not in value
    assert "4" in title and "5" in title and "TRL" in title
    meta = pages.FrontMatter.model_validate(pages.load(pages.DOCS / "online-rl" / "grpo-zero-std-group.md").meta)
    badge = render.render_meta(meta, lang).split('class="hb-badge hb-verified"')[1].split("</a>")[0]
    assert f'title="{title}"'.replace("'", "&#x27;") in badge and text in badge
    monkeypatch.setattr(compat_page, "summary", lambda rel: None)
    value, title = render.verified_badge("docs/x.md", lang)
    assert value == render.verified_versions()["trl"] and title == ui.LABELS[lang]["verified_pin"]


@pytest.mark.parametrize(
    ("spec", "en", "zh"),
    [
        (">=0.29,!=1.6.*,!=1.7.*,!=1.8.*", "≥ 0.29, except 1.6.x–1.8.x", "≥ 0.29，1.6.x–1.8.x 除外"),
        (
            "!=5.2.*,!=5.3.*,!=5.4.*,!=5.5.0,!=5.5.1,!=5.5.2,!=5.5.3",
            "any version except 5.2.x–5.4.x, 5.5.0–5.5.3",
            "除 5.2.x–5.4.x、5.5.0–5.5.3 以外的任何版本",
        ),
        (">=5.23", "≥ 5.23", "≥ 5.23"),
        (">=1.0,<2,!=1.3.0,!=1.5.0", "≥ 1.0, < 2, except 1.3.0, 1.5.0", "≥ 1.0, < 2，1.3.0、1.5.0 除外"),
        ("~=1.4.2", "≥ 1.4.2, < 1.5", "≥ 1.4.2, < 1.5"),
    ],
)
def test_a_range_is_said_in_words(spec, en, zh):
    """A page's range as a reader says it, not as a PEP 440 specifier; a bound keeps its number on its line."""
    assert compat_page.describe_range(spec, "en").replace("\u00a0", " ") == en
    assert compat_page.describe_range(spec, "zh").replace("\u00a0", " ") == zh
    cell = compat_page._ranges({"trl": spec}, "en")
    assert "!=" not in cell.split(">", 1)[1] and f'title="{html.escape("trl" + spec, quote=True)}"' in cell


@pytest.mark.parametrize(("lang", "words"), [("en", "≥ 0.29, except 1.6.x–1.8.x"), ("zh", "≥ 0.29，1.6.x–1.8.x 除外")])
def test_the_applies_badge_says_the_range_in_words(lang, words):
    meta = pages.FrontMatter.model_validate(
        pages.load(pages.DOCS / "preference" / "dpo-memory-reference-model.md").meta
    )
    badge = render.render_meta(meta, lang).split('class="hb-badge hb-trl"')[1].split("</span></span>")[0]
    assert 'title="trl&gt;=0.29,!=1.6.*,!=1.7.*,!=1.8.*"' in badge and words in badge.replace("\u00a0", " ")


def _matrix(cells: dict[str, dict]) -> dict:
    """A matrix of two pinned columns, TRL 1.6.0 and 1.16.0, with the given page rows."""
    cols = {v: {"kind": "pinned", "trl": v, "stack": {"trl": v, "transformers": "5.3.0"}} for v in ("1.6.0", "1.16.0")}
    return {"versions": cols, "pages": cells, "pinned": "1.16.0"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_failure_outside_the_pages_range_is_never_red_whatever_the_matrix_stored(monkeypatch, lang):
    """Whether a failure counts is judged from the page's range as its front matter says now: the DPO memory page
    excludes TRL 1.6-1.8 (huggingface/trl#6291), so its failure there is the legend's grey "failed*", listed with
    its reason at the end, and not a failure in the picker, even when the stored cell says it was in range. A
    page whose range holds there fails red."""
    failed = {"outcome": "failed", "in_range": True, "reason": "x (check, seed 0): FileNotFoundError: gone\nmore"}
    rows = {
        "docs/preference/dpo-memory-reference-model.md": {"1.6.0": failed, "1.16.0": {"outcome": "passed"}},
        "docs/online-rl/grpo-zero-std-group.md": {
            "1.6.0": {**failed, "in_range": False},
            "1.16.0": {"outcome": "passed"},
        },
    }
    monkeypatch.setattr(compat_page, "matrix_results", lambda: _matrix(rows))
    out = compat_page.render("start/compatibility.md", lang, render._link, render._cell)
    table = out.split("{#by-trl}")[1].split("{#stack}")[0]
    memory, zero_std = (line for line in table.splitlines() if "dpo-memory" in line or "grpo-zero-std" in line)
    assert "dpo-memory" in memory and "hb-cell--fail" not in memory and "hb-cell--outside" in memory
    assert "hb-cell--fail" in zero_std, "a failure inside the page's range is red"
    notes = out.split("{#outside}")[1]
    assert "dpo-memory-reference-model.md" in notes and "FileNotFoundError: gone" in notes and "more" not in notes
    picker = json.loads(html.unescape(out.split('data-matrix="')[1].split('"')[0]))
    by_page = {p["href"]: p["failed"] for p in picker["pages"]}
    assert by_page["../../preference/dpo-memory-reference-model/"] == []
    assert by_page["../../online-rl/grpo-zero-std-group/"] == ["1.6.0"]


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


def test_the_whole_program_box_comes_after_the_fix_and_folds_its_run_instructions():
    """Under "Fix" a reader first meets the change to make: the whole-program box goes to the end of the Fix
    section (a "## " inside a code fence is not a heading), and its run instructions fold away."""
    page = (
        '# T\n\n## Fix {#fix}\n\nChange this:\n\n```python\n--8<-- "x.py:fix"\n```\n\n'
        "```text\n## not a heading\n```\n\n"
        "### More {#more}\n\ntext\n\n## Evidence {#evidence}\n\nrest\n"
    )
    out = render.place_program_box(page, "BOX\n")
    assert out.index('--8<-- "x.py:fix"') < out.index("## not a heading") < out.index("text\n\nBOX")
    assert out.index("BOX") < out.index("## Evidence") and out.count("BOX") == 1
    assert render.place_program_box("# T\n\n## Fix {#fix}\n\ncode\n", "BOX\n").endswith("code\n\nBOX\n")
    assert render.place_program_box("# T\n\n## Evidence {#evidence}\n", "BOX\n") == "# T\n\n## Evidence {#evidence}\n"
    # a page whose program loads a model says how to pick it; one that loads none (an import check) does not
    metas = [hp_model(p) for p in pages.pitfall_pages()]
    model = next(m for m in metas if render.MODEL_LINE.search(render.program_code(m)))
    plain = next(m for m in metas if not render.MODEL_LINE.search(render.program_code(m)))
    for lang in ("en", "zh"):
        box = render.program_box(model, lang, render.program_code(model))
        assert box.index("hb-program__copy") < box.index("<details") < box.index("HANDBOOK_MODEL=")
        assert f"<summary>{ui.LABELS[lang]['run_how']}</summary>" in box
        box = render.program_box(plain, lang, render.program_code(plain))
        assert "HANDBOOK_MODEL=" not in box and f"<summary>{ui.LABELS[lang]['run_how']}</summary>" in box


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


@pytest.mark.parametrize("field", ["fix_line", "verdict_reason"])
def test_one_line_fields_escape_once_inside_code_and_out(field):
    """A quote inside a code span reaches the reader as a quote (Markdown escapes code itself: escaping it first
    showed ``&quot;`` on 64 pages), and markup in prose or code stays text."""
    import markdown

    meta = pages.FrontMatter.model_validate(pages.load(pages.DOCS / "online-rl" / "grpo-zero-std-group.md").meta)
    value = 'Set `lr_scheduler_type="cosine"` and `<b>x</b>`, not <script>alert(1)</script> & co'
    md = render.render_meta(meta.model_copy(update={field: value}), "en")
    out = markdown.markdown(md, extensions=["admonition", "md_in_html"])
    assert '<code>lr_scheduler_type="cosine"</code>' in out.replace("&quot;", '"') and "&amp;quot;" not in out
    assert "<code>&lt;b&gt;x&lt;/b&gt;</code>" in out and "&lt;script&gt;" in out and "<script>" not in out
    assert "&amp; co" in out and "&amp;amp;" not in out


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
    out = search_text.search_preview_first(text, lang)
    assert out.startswith(
        f"<p>{t['fix_line']}{colon}set <code>beta=0.04</code>.</p> <p>{t['why']}{colon}the cause.</p> "
        f"<p>{t['symptoms']}</p> <ul> <li>x</li> </ul>"
    ), out
    assert "Applies to" not in out and out.count("the cause") == 1 and out.endswith("<p>body</p>")
    assert search_text.search_preview_first(out, lang) == out  # a rebuild (mkdocs serve) keeps it
    assert search_text.search_preview_first("<p>a guide page</p>", lang) == "<p>a guide page</p>"


def test_search_preview_reads_chinese_cut_into_words():
    """Material's index cuts Chinese into words with zero-width spaces, the labels included: they still match."""
    t, z = ui.LABELS["zh"], "\u200b"

    def cut(s: str) -> str:  # a zero-width space between any two characters, as jieba may put them
        return z + z.join(s) + z

    text = (
        f"徽章 <p>{cut(t['symptoms'])}</p> <ul> <li>x</li> </ul> "
        f"<p>{cut(t['fix_line'])}：{z}设{z} <code>beta</code></p> <p>{cut(t['why'])}：原因{z}</p>"
    )
    out = search_text.search_preview_first(text, "zh")
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

    from handbook.content import contract

    text = compat_page.release_defects(lang, ui.COMPAT_LABELS[lang])
    lines = text.splitlines()
    assert len(lines) == len(contract.RELEASE_DEFECTS)
    assert lines[0].startswith("- **trl ==1.15.0**") and "1.16.0" in lines[0]
    assert int(re.search(r"(\d+) (?:cells|个单元格)", lines[0]).group(1)) > 60, lines[0]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_symptom_finder_lists_each_phrasing_once_with_every_page_that_has_it(lang):
    """Every symptom of every pitfall page is in the finder, each phrasing once (case and spacing aside) with links
    to all the pages that list it, in folded groups (where it shows, then chapter) under a filter box that stays
    hidden until docs/javascripts/finder.js runs."""

    def fold(text):
        return " ".join(str(text).lower().split())

    index = render.symptom_index(lang)
    assert list(index) == [k for k in ui.FINDER[lang] if k in index]
    entries = {}
    for where, chapters in index.items():
        assert list(chapters) == [c for c in pages.CHAPTERS if c in chapters]
        for entries_of_chapter in chapters.values():
            for symptom, paths in entries_of_chapter:
                assert fold(symptom) not in entries, f"listed twice: {symptom}"
                assert render.where_shown(symptom) == where
                entries[fold(symptom)] = paths
    for p in pages.all_pages():
        if p.lang == lang and p.kind == "pitfall":
            rel = f"{p.meta['chapter']}/{p.path.name.split('.')[0]}.md"
            missing = [s for s in p.meta["symptoms"] if rel not in entries.get(fold(s), [])]
            assert not missing, f"{p.rel}: not in the finder: {missing}"
    both = ["online-rl/grpo-entropy-collapse-entropy-coef.md", "rewards/ppo-trainer-import-removed.md"]
    assert entries[fold("ImportError: cannot import name 'PPOTrainer' from 'trl'")] == both
    out = render._symptom_finder("start/symptoms.md", lang)
    assert out.count('<details class="hb-finder__group"') == sum(len(c) for c in index.values())
    assert out.count("\n- ") == len(entries)
    assert '<div class="hb-finder__filter" markdown="0" hidden ' in out and 'id="hb-finder-q"' in out
    line = next(ln for ln in out.splitlines() if "`ImportError: cannot import name 'PPOTrainer' from 'trl'`" in ln)
    assert (
        "../online-rl/grpo-entropy-collapse-entropy-coef.md" in line
        and "../rewards/ppo-trainer-import-removed.md" in line
    )


def test_each_notebook_plot_gets_a_zoom_hint_after_it():
    page = (
        '<div class="jp-RenderedImage jp-OutputArea-output" tabindex="0">\n<img alt="a > b" src="p.png">\n</div>'
        '<div class="jp-RenderedText"><img src="q.png"></div>'
    )
    out = notebook_html.add_zoom_hints(page, "Tap <to> enlarge")
    assert out.count('class="hb-zoom-hint"') == 1
    assert out.index('src="p.png">') < out.index("hb-zoom-hint") and "Tap &lt;to&gt; enlarge" in out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_search_form_opens_the_themes_search_in_the_readers_language(lang):
    form = render.search_form(lang, './"x')
    assert 'action="./&quot;x"' in form and 'name="q"' in form and 'method="get"' in form
    assert f">{ui.TEMPLATES[lang]['search']}</button>" in form
    assert render.PLACEHOLDERS["search-box"]("index.md", lang) == render.search_form(lang, "./")


@pytest.mark.parametrize(
    ("line", "cls"),
    [
        ("KeyError: 'label'", "KeyError"),
        ("torch.OutOfMemoryError: CUDA out of memory in SFTTrainer", "OutOfMemoryError"),
        ("FutureWarning: `tokenizer` is deprecated", "FutureWarning"),
        ("ValueError", "ValueError"),
        ("TRL raises a ValueError when the batch is odd", None),
        ("loss stuck near `ln(vocab_size)`", None),
        ("Errors: none, but the loss is flat", None),
    ],
)
def test_an_error_line_is_told_from_prose_that_names_an_error(line, cls):
    from handbook.site import errors_page

    assert errors_page.error_class(line) == cls


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_errors_by_message_lists_every_error_line_of_every_page_once(lang):
    """Each error line of a pitfall page's symptoms is one table row under its class, linking to that page."""
    from handbook.site import errors_page

    out = errors_page.PLACEHOLDERS["errors-by-message"]("start/errors.md", lang)
    rows = [r for r in out.splitlines() if r.startswith("| `")]
    want = set()
    for p in pages.all_pages():
        if p.lang == lang and p.kind == "pitfall":
            for s in map(str, p.meta["symptoms"]):
                if errors_page.error_class(s):
                    want.add(" ".join(s.lower().split()))
                    assert f"../{p.meta['chapter']}/{p.path.name.split('.')[0]}.md" in out, (p.rel, s)
    assert len(rows) == len(want) > 50
    assert out.index("## ValueError") < out.index("## FutureWarning")  # errors first, then warnings


def test_errors_by_message_escapes_what_a_page_contributes(monkeypatch):
    from handbook.site import errors_page

    hostile = "ValueError: <script>alert(1)</script> | a pipe, `model` and __init__"
    monkeypatch.setattr(
        render, "symptom_index", lambda lang: {"error": {"sft": [(hostile, ["sft/missing-chat-template.md"])]}}
    )
    out = errors_page.PLACEHOLDERS["errors-by-message"]("start/errors.md", "en")
    import markdown

    cells = re.findall(r"<td>(.*?)</td>", markdown.markdown(out, extensions=["tables"]))
    assert len(cells) == 2 and "<script>" not in cells[0]  # the pipe stays in its cell
    assert html.unescape(cells[0]) == f"<code>{hostile}</code>"  # printed text: no markup, backticks or bold


FAILED = "docs/x.md (t): the page's code does not run when pasted into a fresh file (check, seed 0): "


@pytest.mark.parametrize(
    ("error", "en", "zh"),
    [
        (
            "TypeError: GRPOConfig.__init__() got an unexpected keyword argument 'entropy_coef'",
            "`GRPOConfig` has no argument `entropy_coef`",
            "`GRPOConfig` 没有参数 `entropy_coef`",
        ),
        (
            "ImportError: cannot import name 'DataCollatorForLanguageModeling' from 'trl' (/x/trl/__init__.py)",
            "`DataCollatorForLanguageModeling` cannot be imported from `trl`",
            "无法从 `trl` 导入 `DataCollatorForLanguageModeling`",
        ),
        ("ModuleNotFoundError: No module named 'trl.experimental'", "no module `trl.experimental`", "没有模块"),
        (
            "AttributeError: 'GRPOTrainer' object has no attribute 'vllm_mode'",
            "`GRPOTrainer` has no attribute",
            "没有属性",
        ),
        (
            "AssertionError: claim: a larger beta holds kl down: [0.0, 0.1]",
            "does not hold: a larger beta holds kl down",
            "结论不成立",
        ),
        ("KeyError: 'eval_rewards/gold/mean'", "fails: KeyError: 'eval_rewards/gold/mean'", "报错：KeyError"),
    ],
)
def test_a_failure_on_another_release_is_said_in_words(error, en, zh):
    """What a release lacks (an argument, a name, a module) is named, a claim that fails is quoted, and anything else
    shows the error; the harness's own preamble never reaches the reader."""
    cell = {"outcome": "failed", "reason": FAILED + error}
    assert en in compat_page.why_not(cell, "en") and zh in compat_page.why_not(cell, "zh")
    assert "fresh file" not in compat_page.why_not(cell, "en")


def test_a_page_says_why_it_fails_on_releases_outside_its_range(monkeypatch):
    """Releases run only on their release-day stack count as releases; failures outside the page's range are grouped
    by reason into spans on the page's symptom box, a failure inside the range (a test failure) and a pass are not."""
    cols = {
        "0.19.1@release": {"kind": "release", "trl": "0.19.1", "stack": {"trl": "0.19.1"}},
        "0.20.0@release": {"kind": "release", "trl": "0.20.0", "stack": {"trl": "0.20.0"}},
        "0.21.0@release": {"kind": "release", "trl": "0.21.0", "stack": {"trl": "0.21.0"}},
        "0.29.1": {"kind": "pinned", "trl": "0.29.1", "stack": {"trl": "0.29.1"}},
        "0.29.1@release": {"kind": "release", "trl": "0.29.1", "stack": {"trl": "0.29.1"}},
        "1.0.0": {"kind": "pinned", "trl": "1.0.0", "stack": {"trl": "1.0.0"}},
    }
    arg = {
        "outcome": "failed",
        "reason": FAILED + "TypeError: GRPOConfig.__init__() got an unexpected keyword argument 'beta'",
    }
    claim = {"outcome": "failed", "reason": FAILED + "AssertionError: claim: kl is logged"}
    cells = {"0.19.1@release": arg, "0.20.0@release": arg, "0.21.0@release": claim, "0.29.1": {"outcome": "passed"}}
    cells |= {"0.29.1@release": claim, "1.0.0": {"outcome": "passed"}}
    rel = "docs/online-rl/grpo-zero-std-group.md"
    monkeypatch.setattr(compat_page, "matrix_results", lambda: {"versions": cols, "pages": {rel: cells}})
    assert compat_page.releases() == ["0.19.1", "0.20.0", "0.21.0", "0.29.1", "1.0.0"]
    assert compat_page.summary(rel) == ("0.29.1–1.0.0", 2, 5)  # 0.29.1's pinned column speaks for it
    meta = pages.FrontMatter.model_validate(pages.load(pages.DOCS / "online-rl" / "grpo-zero-std-group.md").meta)
    meta = meta.model_copy(update={"trl": ">=0.29"})
    older = compat_page.other_releases(rel, meta.model_dump(), "en")
    assert older == [
        (["0.19.1", "0.20.0"], "`GRPOConfig` has no argument `beta`"),
        (["0.21.0"], "the page's claim does not hold: kl is logged"),
    ]
    box = render.render_meta(meta, "en")
    assert "*On other releases:* TRL 0.19.1–0.20.0: `GRPOConfig` has no argument `beta`; TRL 0.21.0: the page" in box
    assert "kl is logged\n    { data-search-exclude }\n" in box  # shown on the page, kept out of the search index
    assert "其他版本" in render.render_meta(meta, "zh")
    inside = meta.model_copy(update={"trl": ">=0.21"})  # 0.21.0 inside the range: a test failure, not a note
    assert [vs for vs, _ in compat_page.other_releases(rel, inside.model_dump(), "en")] == [["0.19.1", "0.20.0"]]
    assert "On other releases" not in render.render_meta(meta.model_copy(update={"trl": ">=0.1"}), "en")


def test_a_reason_that_names_its_release_is_said_once_for_the_span(monkeypatch):
    """A claim that quotes the release it ran on, or a temporary path, reads the same on every release: one span."""
    cols = {f"0.2{i}.0@release": {"kind": "release", "trl": f"0.2{i}.0", "stack": {"trl": f"0.2{i}.0"}} for i in (1, 2)}
    cells = {
        n: {
            "outcome": "failed",
            "reason": FAILED + f"AssertionError: claim: mode defaults to 'colocate' on TRL {c['trl']}, got 'server'",
        }
        for n, c in cols.items()
    }
    cells["0.22.0@release"]["reason"] = FAILED + "AssertionError: claim: mode defaults to 'colocate' on trl 0.22.0"
    rel = "docs/online-rl/grpo-zero-std-group.md"
    monkeypatch.setattr(compat_page, "matrix_results", lambda: {"versions": cols, "pages": {rel: cells}})
    older = compat_page.other_releases(rel, {"trl": ">=1.0"}, "en")
    assert older == [(["0.21.0", "0.22.0"], "the page's claim does not hold: mode defaults to 'colocate' on TRL …")]
    path = FAILED + "FileNotFoundError: [Errno 2] No such file: '/tmp/run-x1/data.json'"
    monkeypatch.setitem(cells, "0.21.0@release", {"outcome": "failed", "reason": path})
    monkeypatch.setitem(cells, "0.22.0@release", {"outcome": "failed", "reason": path.replace("x1", "y2")})
    assert compat_page.other_releases(rel, {"trl": ">=1.0"}, "en")[0][0] == ["0.21.0", "0.22.0"]
