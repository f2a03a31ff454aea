"""The site builds with zero warnings, and a real browser finds pages by symptom in both languages.

The browser tests use Debian's Chromium (/usr/bin/chromium) through Playwright; without it they skip with a
reason. ``.ci/run`` installs Chromium so CI always runs them.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
from html.parser import HTMLParser

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PREFIX = "/rlhf-pitfalls-handbook"  # the path of site_url in mkdocs.yml (the fixtures: tests/conftest.py)


@pytest.mark.site
def test_build_strict_zero_warnings(site):
    out, code, log = site
    warnings = [ln for ln in log.splitlines() if "WARNING" in ln or "ERROR" in ln]
    assert code == 0, f"mkdocs build --strict failed:\n{log[-4000:]}"
    assert not warnings, "mkdocs printed warnings:\n" + "\n".join(warnings)
    assert (out / "index.html").exists() and (out / "zh" / "index.html").exists()


@pytest.mark.site
def test_no_external_requests_in_html(site):
    out, code, _ = site
    assert code == 0
    offenders = []
    for html in out.rglob("*.html"):
        text = html.read_text(encoding="utf-8")
        for host in ("fonts.googleapis.com", "fonts.gstatic.com", "cdn.jsdelivr.net", "unpkg.com"):
            if host in text:
                offenders.append(f"{html.relative_to(out)}: {host}")
    assert not offenders, offenders[:10]


@pytest.mark.site
def test_no_unparsed_markdown_leaks_into_pages(site):
    """A fence or include the Markdown extensions did not understand shows up as raw text on the page."""
    out, code, _ = site
    assert code == 0
    leaks = []
    for html in out.rglob("*.html"):
        text = html.read_text(encoding="utf-8")
        for marker in ("<p>```", "<p>~~~", "<p>--8&lt;--", "<p>!!! ", "<!-- handbook:"):
            if marker in text:
                leaks.append(f"{html.relative_to(out)}: {marker}")
    assert not leaks, leaks[:10]


@pytest.mark.site
def test_every_page_has_both_languages(site):
    out, code, _ = site
    assert code == 0
    en = {
        p.relative_to(out)
        for p in out.rglob("index.html")
        if p.relative_to(out).parts[0] not in ("zh", "search", "assets")
    }
    zh = {p.relative_to(out / "zh") for p in (out / "zh").rglob("index.html")}
    assert en and en == zh, f"pages only in one language: {sorted(map(str, en ^ zh))[:10]}"


@pytest.mark.browser
@pytest.mark.parametrize(
    ("start", "lang", "expected"),
    [
        ("/online-rl/grpo-zero-std-group/", "zh", "/zh/online-rl/grpo-zero-std-group/"),
        ("/zh/preference/dpo-no-ref-model/", "en", "/preference/dpo-no-ref-model/"),
        ("/walkthroughs/grpo-metrics/", "zh", "/zh/walkthroughs/grpo-metrics/"),
        ("/zh/walkthroughs/grpo-metrics/", "en", "/walkthroughs/grpo-metrics/"),
    ],
)
def test_language_switcher_lands_on_twin(page, server, start, lang, expected):
    page.goto(server + start)
    page.hover(".md-header .md-select")
    with page.expect_navigation():
        page.click(f".md-header a.md-select__link[hreflang='{lang}']")
    assert page.url.split("#")[0].endswith(PREFIX + expected), page.url
    assert page.locator("h1").first.inner_text().strip()
    assert not page.external_requests, f"requests to external hosts: {page.external_requests}"


@pytest.mark.browser
@pytest.mark.parametrize("width", [1220, 1366, 1920])
@pytest.mark.parametrize("path", ["/", "/zh/"])
def test_every_chapter_tab_is_on_screen(browser, server, width, path):
    """All chapter tabs fit the first screen at common desktop widths (none cut off at the right edge)."""
    from handbook import ui

    context = browser.new_context(viewport={"width": width, "height": 900})
    pg = context.new_page()
    pg.goto(server + path)
    tabs = pg.locator(".md-tabs__item")
    boxes = [tabs.nth(i).bounding_box() for i in range(tabs.count())]
    context.close()
    assert len(boxes) == len(ui.CHAPTERS) + 1, f"{len(boxes)} tabs for {len(ui.CHAPTERS)} chapters and Home"
    cut = [i for i, b in enumerate(boxes) if b is None or b["x"] + b["width"] > width]
    assert not cut, f"at {width} px, tabs {cut} of {len(boxes)} run past the right edge of {path}"


@pytest.mark.browser
def test_language_switcher_keeps_the_anchor(page, server):
    page.goto(server + "/online-rl/grpo-zero-std-group/#fix")
    page.hover(".md-header .md-select")
    with page.expect_navigation():
        page.click(".md-header a.md-select__link[hreflang='zh']")
    assert page.url.endswith("/zh/online-rl/grpo-zero-std-group/#fix"), page.url


@pytest.mark.browser
@pytest.mark.parametrize("path", ["/", "/online-rl/grpo-zero-std-group/", "/zh/preference/dpo-no-ref-model/"])
def test_no_failed_requests_on_page_load(page, server, path):
    failed = []
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.goto(server + path)
    page.wait_for_load_state("networkidle")
    assert not failed, failed


@pytest.mark.site
def test_one_search_index_per_language_symptoms_first(site, capsys):
    import json

    out, code, _ = site
    assert code == 0
    sizes = {}
    for lang, path in (
        ("en", out / "search" / "search_index.json"),
        ("zh", out / "zh" / "search" / "search_index.json"),
    ):
        data = json.loads(path.read_text(encoding="utf-8"))
        sizes[lang] = path.stat().st_size
        assert data["config"]["lang"] == [lang]
        fields = data["config"]["fields"]
        assert (
            fields["symptoms"]["boost"] >= fields["title"]["boost"] > fields["tags"]["boost"] > fields["text"]["boost"]
        )
        locations = [d["location"] for d in data["docs"]]
        assert locations and not any(loc.startswith("zh/") for loc in locations), f"{lang} index holds another language"
        page = next(d for d in data["docs"] if d["location"] == "online-rl/grpo-zero-std-group/")
        assert "frac_reward_zero_std" in page["symptoms"] and page["boost"] > 1
        assert all(d["boost"] == 1 for d in data["docs"] if "#" in d["location"])  # sections rank below pages
    zh_page = (out / "zh" / "online-rl" / "grpo-zero-std-group" / "index.html").read_text(encoding="utf-8")
    assert '"base": "../../../zh/"' in zh_page, "Chinese pages must search the Chinese index"
    with capsys.disabled():
        print(f"\nsearch index bytes per language: {sizes}")


@pytest.mark.site
def test_one_404_page_per_language(site):
    out, code, _ = site
    assert code == 0
    en, zh = (out / "404.html").read_text(encoding="utf-8"), (out / "zh" / "404.html").read_text(encoding="utf-8")
    assert '<html lang="en"' in en and '<html lang="zh"' in zh
    # a helpful 404 in each language: a search box (the theme's ?q= opens search) and the finder, in its language
    assert "404: no page here" in en and f'href="{PREFIX}/start/symptoms/"' in en and 'name="q"' in en
    assert "404：没有这个页面" in zh and f'href="{PREFIX}/zh/start/symptoms/"' in zh and 'name="q"' in zh


@pytest.mark.site
def test_walkthrough_plots_have_alt_text_and_a_download(site):
    """Each walkthrough plot is described (the "Figure:" sentence before it) and the notebook can be downloaded."""
    import re

    out, code, _ = site
    assert code == 0
    pages = sorted((out / "walkthroughs").glob("*/index.html")) + sorted(
        (out / "zh" / "walkthroughs").glob("*/index.html")
    )
    assert len(pages) >= 6, pages
    for page in pages:
        text = page.read_text(encoding="utf-8")
        alts = re.findall(r'<img [^>]*alt="([^"]*)"', text)
        assert alts and all(len(a) > 20 for a in alts), f"{page}: plots without alt text: {alts}"
        assert "No description has been provided" not in text
        links = [link for link in re.findall(r'href="([^"]+\.ipynb)"', text) if "://" not in link]
        assert links and all((page.parent / link).resolve().is_file() for link in links), f"{page}: download {links}"


@pytest.mark.site
def test_chinese_line_breaks_do_not_become_spaces(site):
    """No rendered Chinese paragraph has a space between two Chinese characters that the source broke there."""
    import re

    out, code, _ = site
    assert code == 0
    text = (out / "zh" / "start" / "how-to-read" / "index.html").read_text(encoding="utf-8")
    paragraphs = re.findall(r"<p>(.*?)</p>", text, re.S)
    broken = [p for p in paragraphs if re.search(r"[\u4e00-\u9fff]\n[\u4e00-\u9fff]", p)]
    assert paragraphs and not broken, broken[:3]


@pytest.mark.site
def test_symptom_finder_links_every_pitfall_page(site):
    from handbook import pages

    out, code, _ = site
    assert code == 0
    for prefix, lang in (("", "en"), ("zh/", "zh")):
        text = (out / prefix / "start" / "symptoms" / "index.html").read_text(encoding="utf-8")
        for p in pages.all_pages():
            if p.lang == lang and p.kind == "pitfall":
                slug = p.path.name.split(".")[0]
                assert f"{p.meta['chapter']}/{slug}/" in text, f"{lang} symptom finder misses {p.rel}"


def _theme_sources() -> str:
    """The text of the templates that may legitimately emit <script>: Material's, mkdocs-jupyter's, nbconvert's."""
    import material
    import mkdocs_jupyter

    roots = [pathlib.Path(material.__file__).parent, pathlib.Path(mkdocs_jupyter.__file__).parent]
    roots.append(pathlib.Path(sys.prefix) / "share" / "jupyter" / "nbconvert" / "templates")
    texts = []
    for root in roots:
        for path in root.rglob("*"):
            if path.suffix in (".html", ".j2", ".js", ".tpl") and path.is_file():
                texts.append(path.read_text(encoding="utf-8", errors="ignore"))
    return "\n".join(texts)


class _Scan(HTMLParser):
    """Collects inline event-handler attributes and every <script> (attributes, body) of a page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.handlers, self.scripts, self._script = [], [], None

    def handle_starttag(self, tag, attrs):
        self.handlers += [f"<{tag} {name}=...>" for name, _ in attrs if name.lower().startswith("on")]
        if tag == "script":
            self._script = [dict(attrs), ""]

    def handle_data(self, data):
        if self._script is not None:
            self._script[1] += data

    def handle_endtag(self, tag):
        if tag == "script" and self._script is not None:
            self.scripts.append(tuple(self._script))
            self._script = None


@pytest.mark.site
def test_no_inline_handlers_and_only_the_themes_own_scripts(site):
    """Front-matter text is escaped everywhere: no page carries an inline event handler or a script that the
    theme's (or the notebook renderer's) own templates do not contain."""
    import re

    out, code, _ = site
    assert code == 0
    theme = re.sub(r"\s+", "", _theme_sources())
    bad = []
    for page in out.rglob("*.html"):
        scan = _Scan()
        scan.feed(page.read_text(encoding="utf-8"))
        rel = page.relative_to(out)
        bad += [f"{rel}: inline handler {h}" for h in scan.handlers]
        for attrs, body in scan.scripts:
            src = attrs.get("src")
            if src is not None:
                if "://" in src or src.startswith("//"):
                    bad.append(f"{rel}: external script {src!r}")
                continue
            if attrs.get("id") == "__config":
                continue  # Material's JSON configuration block
            head = re.split(r"[\"']", re.sub(r"\s+", "", body)[:24])[0]  # up to the first templated string
            if head and head not in theme:
                bad.append(f"{rel}: script not from the theme: {body.strip()[:80]!r}")
    assert not bad, "\n".join(sorted(set(bad))[:15])


QUERIES = ROOT / "tests" / "search_queries.yaml"
SETS = ("tuning", "held-out", "blind")
# Floors over all sets together, per language: what the site reaches today less a margin of about 3 queries, so
# a change that makes search worse fails here while one new page that shifts a few near ties does not. Measured
# on 2026-12-05, after 50 blind queries were added: top 1 en 152/186 = 82%, zh 129/165 = 78%; top 3 en 173/186 =
# 93%, zh 151/165 = 92%.
FLOOR = {"top1": {"en": 0.80, "zh": 0.76}, "top3": {"en": 0.91, "zh": 0.89}}


def _queries():
    import yaml

    entries = yaml.safe_load(QUERIES.read_text(encoding="utf-8"))
    for n, e in enumerate(entries):
        where = f"{QUERIES.relative_to(ROOT)}: entry {n + 1} ({e.get('query', '')!r})"
        assert e.get("lang") in ("en", "zh"), f"{where}: lang: must be en or zh"
        assert e.get("source", "").startswith("https://"), f"{where}: source: a link to where the query was found"
        assert e.get("set", "tuning") in SETS, f"{where}: set: one of {SETS}"
        for page in e.get("expected") or [None]:
            assert page and (ROOT / "docs" / f"{page}.md").exists(), f"{where}: expected: no page docs/{page}.md"
    return entries


def _node_search(out, entries):
    """The first five pages the search box lists for each entry, from the built site's own search worker run in
    node (tests/search_eval.js)."""
    results = _node_search_raw(out, [(e["lang"], e["query"]) for e in entries])
    return {(r["lang"], r["query"]): r["top"] for r in results}


@pytest.mark.site
def test_search_evaluation_set(site, capsys):
    """Real user phrasings (tests/search_queries.yaml, each with its source), searched in their language with the
    built site's own search code: the first result should answer the query (the goal: 90% per language), and the
    page that answers it should be among the first three. Reports top 1 and top 3 per set and language; fails
    below FLOOR. test_search_in_the_browser_lists_what_the_evaluation_measured shows the browser agrees."""
    out, code, _ = site
    assert code == 0
    entries = _queries()
    tops = _node_search(out, entries)
    count = {}  # (set, lang) -> [queries, first right, right in top 3]
    misses = []
    for e in entries:
        top, want = tops[(e["lang"], e["query"])], set(e["expected"])
        first, three = bool(top) and top[0] in want, bool(want & set(top[:3]))
        for key in ((e.get("set", "tuning"), e["lang"]), ("all", e["lang"])):
            c = count.setdefault(key, [0, 0, 0])
            c[0], c[1], c[2] = c[0] + 1, c[1] + first, c[2] + three
        if not three:
            misses.append(f"{e['lang']} {e['query']!r}: expected {e['expected'][0]}, got {top[:3]}")
    report = [
        f"{s} {lang}: top 1 {c[1]}/{c[0]} = {c[1] / c[0]:.0%}, top 3 {c[2]}/{c[0]} = {c[2] / c[0]:.0%}"
        for (s, lang), c in sorted(count.items(), key=lambda kv: (("all",) + SETS).index(kv[0][0]))
    ]
    with capsys.disabled():  # make test prints the figures
        print("\nsearch evaluation:\n  " + "\n  ".join(report))
    low = [
        f"{k} {lang}: {count[('all', lang)][1 + (k == 'top3')]}/{count[('all', lang)][0]} < {FLOOR[k][lang]:.0%}"
        for k in ("top1", "top3")
        for lang in ("en", "zh")
        if count[("all", lang)][1 + (k == "top3")] < FLOOR[k][lang] * count[("all", lang)][0]
    ]
    assert not low, "; ".join(low) + "\nnot in the top 3:\n" + "\n".join(misses)
    assert all(count[("all", lang)][0] >= 100 for lang in ("en", "zh")), "fewer than 100 queries in a language"


@pytest.mark.site
def test_search_query_rewriting(site):
    """What hooks/search.py makes of a query before lunr sees it (the worker's query string, from node)."""
    out, code, _ = site
    assert code == 0
    cases = [
        ("en", "GRPO batch size 1 LoRA fine-tune loss 0.6931 PPOTrainer"),
        ("en", "DPO loss unchanged"),
        ("zh", "打分都是负数，模型复读 GRPO训练reward为零"),
        ("en", "my grpo loss is zero after many steps 0.6931"),
        ("zh", "训练完模型只会说你好"),
    ]
    results = _node_search_raw(out, cases)
    asked = {r["query"]: r["lunr"] for r in results}
    terms = {r["query"]: r["terms"] for r in results}
    en = asked[cases[0][1]].split()
    assert "1" in en and "1*" not in en, "a whole number matches only itself, not 10, 11.9, 1024"
    assert "lora*" in en, "LoRA stays one word (the index does not split it)"
    assert {"fine*", "tune*"} <= set(en), "a hyphen splits a word, as in the index"
    assert {"0.6931*", "0.69*", "0.7*"} <= set(en), "a logged number also searches its rounded values"
    assert {"ppo*", "trainer*"} <= set(en), "CamelCase splits as the index does"
    assert "stuck*" in asked[cases[1][1]].split(), "a symptom word also searches its synonyms"
    zh = asked[cases[2][1]].split()
    assert "都" in zh and "都*" not in zh, "a single character matches only itself, not 都是 or 都有"
    assert "重复*" in zh and "0" in zh, "复读 also searches 重复; 零 searches the digit"
    assert {"grpo*", "reward*"} <= set(zh), "Latin words written against Chinese are words of their own"
    # the words a result reports as matched or missing ("Missing: ...") are the reader's, as written
    en_terms = terms[cases[3][1]]
    assert {"grpo", "loss", "many", "steps", "0.6931"} <= set(en_terms), en_terms
    assert not {"mani", "损失", "0.7", "0.69"} & set(en_terms), f"stems, synonyms or rounded numbers shown: {en_terms}"
    zh_terms = terms[cases[4][1]]
    assert zh_terms.get("训练") is True and zh_terms.get("模型") is True, (
        f"a word the page has is 'missing': {zh_terms}"
    )
    assert not any(k.endswith("*") for k in zh_terms), zh_terms
    worker = next((out / "assets" / "javascripts" / "workers").glob("search.*.min.js")).read_text(encoding="utf-8")
    assert "this.b(.75)" in worker, "BM25 length normalisation is back on (Material builds the index with b=0)"


def _node_search_raw(out, cases):
    """tests/search_eval.js on (lang, query) pairs: English results first, then Chinese."""
    import json
    import shutil

    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the search worker runs in node")
    run = subprocess.run(
        [node, str(ROOT / "tests" / "search_eval.js"), str(out)],
        input=json.dumps([{"lang": lang, "query": q} for lang, q in cases]),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    results = json.loads(run.stdout)
    assert sorted((r["lang"], r["query"]) for r in results) == sorted(cases), "search_eval.js lost a query"
    return results


@pytest.mark.browser
def test_search_in_the_browser_lists_what_the_evaluation_measured(site, browser, server):
    """The evaluation above runs the search worker in node; typed into the real search box, every fourth query
    lists the same first three pages, in the same order."""
    out, code, _ = site
    assert code == 0
    entries = _queries()[::4]
    tops = _node_search(out, entries)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    differ = []
    for lang in ("en", "zh"):
        pg.goto(server + ("/" if lang == "en" else "/zh/"))
        box = pg.locator("input.md-search__input")
        box.click()
        for entry in (e for e in entries if e["lang"] == lang):
            box.fill("")
            box.fill(entry["query"])
            box.press("End")
            pg.wait_for_timeout(150)
            try:
                pg.wait_for_selector(".md-search-result__item", timeout=3000)
            except Exception:  # noqa: BLE001 - no result at all is compared like any other
                pass
            hrefs = pg.eval_on_selector_all(".md-search-result__item > a", "els => els.map(e => e.href)")
            root = server + ("/zh/" if lang == "zh" else "/")
            seen = [h.split("#")[0].split("?")[0].removeprefix(root).rstrip("/") for h in hrefs]
            top = list(dict.fromkeys(seen))[:3]
            if top != tops[(lang, entry["query"])][:3]:
                differ.append(f"{lang} {entry['query']!r}: browser {top}, node {tops[(lang, entry['query'])][:3]}")
    context.close()
    assert len(entries) >= 60
    assert not differ, "\n".join(differ)


def _clipboard_page(browser, server):
    from urllib.parse import urlsplit

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(server))
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=origin)
    return context, context.new_page()


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_whole_program_copy_and_download_run(browser, server, tmp_path, lang):
    """ "Copy the whole program" puts exactly the paste test's program on the clipboard; pasted into a file it
    runs (on the tiny model here); the Download link serves the same file from both languages' pages."""
    from handbook import contract, tiny

    rel = "sft/eos-cut-by-truncation"
    context, pg = _clipboard_page(browser, server)
    pg.goto(f"{server}/{'zh/' if lang == 'zh' else ''}{rel}/")
    pg.click(".hb-program__copy")
    pg.wait_for_function("(b => b.textContent === b.dataset.copied)(document.querySelector('.hb-program__copy'))")
    pasted = pg.evaluate("navigator.clipboard.readText()")
    href = pg.get_attribute(".hb-program__download", "href")
    served = pg.evaluate("(h) => fetch(h).then((r) => r.ok ? r.text() : 'HTTP ' + r.status)", href)
    context.close()
    expected = contract.page_code(ROOT / "docs" / f"{rel}.md")
    assert pasted == expected and served == expected, (pasted[:200], served[:200])
    program = tmp_path / "program.py"
    program.write_text(pasted, encoding="utf-8")
    env = dict(os.environ, HANDBOOK_MODEL=str(tiny.model_path(0)), HANDBOOK_LR_SCALE="300", OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, str(program)], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]


@pytest.mark.browser
def test_code_blocks_copy_with_a_trailing_newline(browser, server):
    """Each code block's copy button copies its text ending in a newline: the Fix then the Evidence, pasted one
    after the other, is valid Python (without the newline the two blocks join on one line)."""
    context, pg = _clipboard_page(browser, server)
    pg.goto(f"{server}/online-rl/grpo-kl-keeps-rising-beta/")
    pg.wait_for_selector(".md-content [data-md-type=copy]", state="attached")  # the theme adds them after load
    copied = []
    for button in pg.query_selector_all(".md-content [data-md-type=copy]")[:2]:
        button.click()
        pg.wait_for_timeout(300)
        copied.append(pg.evaluate("navigator.clipboard.readText()"))
    context.close()
    assert len(copied) == 2 and all(text.endswith("\n") and not text.endswith("\n\n") for text in copied), copied
    compile("".join(copied), "pasted.py", "exec")


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_compatibility_picker_lists_pages_outside_the_readers_versions(page, server, lang):
    """On the Compatibility page, choosing TRL 1.0.0 lists the pages whose range starts later; typing
    transformers 4.56.2 adds the page that needs transformers >= 5.23."""
    page.goto(f"{server}/{'zh/' if lang == 'zh' else ''}start/compatibility/")
    out = page.locator(".hb-picker__out")
    page.select_option(".hb-picker select[name=trl]", "1.0.0")
    assert "grpo-entropy-collapse-entropy-coef/" in out.inner_html()
    assert "lora-gradient-checkpointing/" not in out.inner_html()
    page.fill(".hb-picker input[name=transformers]", "4.56.2")
    assert "lora-gradient-checkpointing/" in out.inner_html()
    page.fill(".hb-picker input[name=transformers]", "5.3.0")  # a wildcard range: != 5.2.*, ..., != 5.5.3
    assert "batch-vs-gradient-accumulation/" in out.inner_html()
    page.select_option(".hb-picker select[name=trl]", "1.7.1")  # != 1.6.*, != 1.7.*, != 1.8.*
    assert "dpo-memory-reference-model/" in out.inner_html()
    with page.expect_navigation():
        page.click(".hb-picker__out a >> nth=0")
    assert page.url.rstrip("/").rsplit("/", 1)[0] != f"{server}/start"  # a listed page opens
    assert not page.external_requests


@pytest.mark.browser
def test_pasted_text_searches_without_a_key_press_and_chinese_gets_a_hint(page, server):
    """Text put into the search box without a key (a paste with the mouse, an input method, autofill) searches;
    on the English site a Chinese query gets a link to the same search on the Chinese site."""
    page.goto(server + "/")
    page.click("input.md-search__input")
    page.fill("input.md-search__input", "frac_reward_zero_std")  # an input event only: no key is pressed
    page.wait_for_selector(".md-search-result__item", timeout=5000)
    assert "grpo-zero-std-group" in page.inner_html(".md-search-result")
    page.fill("input.md-search__input", "奖励标准差为零")
    hint = page.wait_for_selector(".hb-search-hint a", timeout=5000)
    assert hint.get_attribute("href").startswith(f"{server}/zh/?q=")
    page.goto(hint.get_attribute("href"))
    page.wait_for_selector(".md-search-result__item", timeout=5000)  # the theme's ?q= opens search with it
    assert "/zh/" in page.eval_on_selector(".md-search-result__item > a", "a => a.href")


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_search_that_finds_nothing_points_to_the_symptom_finder(page, server, lang):
    """A query no page matches gets, in the reader's language, links to the symptom finder and the log doctor;
    the links go once the query finds pages again."""
    root = f"{server}/{'zh/' if lang == 'zh' else ''}"
    page.goto(root)
    page.click("input.md-search__input")
    page.fill("input.md-search__input", "xyzzy frobnicate")
    page.wait_for_selector(".hb-search-none", timeout=5000)
    links = page.eval_on_selector_all(".hb-search-none a", "links => links.map(a => a.href)")
    assert links == [root + "start/symptoms/", root + "debugging/log-doctor/"]
    assert ("症状" in page.inner_text(".hb-search-none")) == (lang == "zh")
    page.fill("input.md-search__input", "frac_reward_zero_std")
    page.wait_for_selector(".md-search-result__item", timeout=5000)
    assert page.query_selector(".hb-search-none") is None


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_log_pasted_into_search_goes_to_the_log_doctor(page, server, lang):
    """A training log pasted into the search box gets a link to the log doctor, which opens with the log as pasted
    (line breaks kept, though the search box drops them) and diagnoses it; one metric name gets no such link."""
    root = f"{server}/{'zh/' if lang == 'zh' else ''}"
    page.goto(root)
    page.click("input.md-search__input")
    page.fill("input.md-search__input", "frac_reward_zero_std")
    page.wait_for_selector(".md-search-result__item", timeout=5000)
    assert page.query_selector(".hb-search-log") is None
    row = (
        "{{'loss': 0.0, 'grad_norm': 0.0, 'reward': 0.5, 'reward_std': 0.0, 'frac_reward_zero_std': 1.0, 'epoch': {}}}"
    )
    log = "\n".join(row.format(epoch) for epoch in (0.01, 0.02))
    page.evaluate(
        """(log) => {  // what a paste does: a paste event with the clipboard's text, then the box's new value
            const input = document.querySelector("input.md-search__input"), data = new DataTransfer();
            data.setData("text/plain", log);
            input.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true }));
            input.value = log.replace(/\\n/g, "");
            input.dispatchEvent(new Event("input", { bubbles: true }));
        }""",
        log,
    )
    with page.expect_navigation():
        page.click(".hb-search-log a", timeout=5000)
    assert page.url == root + "debugging/log-doctor/#diagnose"
    assert page.input_value("#hb-doctor-log") == log
    page.wait_for_selector(".hb-doctor__finding", timeout=10000)
    found = page.eval_on_selector_all(".hb-doctor__finding", "items => items.map(i => i.dataset.page)")
    assert "grpo-zero-std-group" in found, found


PHONE_PAGES = [
    "/",
    "/preference/",
    "/start/advice/",
    "/start/compatibility/",
    "/start/symptoms/",
    "/preference/dpo-loss-stuck-ln2/",
    "/zh/",
    "/zh/preference/",
    "/zh/start/advice/",
    "/zh/preference/dpo-loss-stuck-ln2/",
    "/walkthroughs/sft-label-mask/",
]


@pytest.mark.browser
@pytest.mark.parametrize("path", PHONE_PAGES)
def test_phone_width_no_page_overflow_and_readable_charts(browser, server, path):
    """At 390 px the page itself never scrolls sideways (a wide table scrolls inside its own box), chart text is
    at least 11 px, and a plot image is shown at the width of the content."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=1)
    pg = context.new_page()
    pg.goto(server + path)
    pg.wait_for_timeout(300)
    overflow = pg.evaluate("document.scrollingElement.scrollWidth - window.innerWidth")
    chart_px = pg.evaluate(
        """() => [...document.querySelectorAll('svg.hb-chart__svg')].filter(s => s.getBoundingClientRect().width)
        .flatMap(s => { const k = s.getBoundingClientRect().width / s.viewBox.baseVal.width;
          return [...s.querySelectorAll('text')].map(t => parseFloat(getComputedStyle(t).fontSize) * k); })"""
    )
    images = pg.evaluate(
        """() => { const w = document.querySelector('.md-content__inner').clientWidth;
        return [...document.querySelectorAll('.md-content img')].filter(i => i.naturalWidth > w)
          .map(i => [i.getBoundingClientRect().width, w]); }"""
    )
    badge_rows = pg.evaluate(  # the metadata badges: one line (it scrolls sideways), not a screen of rows
        """() => { const m = document.querySelector('.hb-meta'); const b = m && m.querySelector('.hb-badge');
        return m && b ? m.getBoundingClientRect().height / b.getBoundingClientRect().height : 0; }"""
    )
    context.close()
    assert overflow <= 1, f"{path}: the page is {overflow} px wider than a 390 px screen"
    assert not chart_px or min(chart_px) >= 11, f"{path}: chart text at {min(chart_px):.1f} px"
    narrow = [(round(w), cw) for w, cw in images if w < 0.9 * cw]
    assert not narrow, f"{path}: plot images narrower than the content (shown, content): {narrow}"
    assert badge_rows < 1.5, f"{path}: the badges take {badge_rows:.1f} rows at 390 px"


WIDE_CODE_PAGES = [  # the pages whose code has the most lines of the full 88 characters
    "online-rl/grpo-reward-func-signature/",
    "sft/loss-near-ln-vocab/",
    "preference/dpo-length-bias-normalisation/",
    "online-rl/grpo-zero-std-group/",
]


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("path", WIDE_CODE_PAGES)
def test_code_blocks_do_not_scroll_sideways_at_1366(browser, server, lang, path):
    """At 1366 x 900, a common laptop screen, every line of code a page shows is visible whole: no code block
    scrolls sideways (``contract.MAX_LINE``, 88 characters, fits the code column)."""
    from handbook import contract

    context = browser.new_context(viewport={"width": 1366, "height": 900}, device_scale_factor=1)
    pg = context.new_page()
    pg.goto(server + ("/zh/" if lang == "zh" else "/") + path)
    pg.wait_for_timeout(300)
    blocks = pg.evaluate(
        """() => [...document.querySelectorAll('.md-content .highlight pre, .md-content .highlight code')]
        .filter(e => e.getClientRects().length)
        .map(e => ({tag: e.tagName, scroll: e.scrollWidth, client: e.clientWidth,
                    longest: Math.max(...e.textContent.split('\\n').map(l => l.length))}))"""
    )
    context.close()
    assert len(blocks) >= 2, f"{lang} {path}: {len(blocks)} code blocks found"
    assert max(b["longest"] for b in blocks) <= contract.MAX_LINE, f"{lang} {path}: a shown line is too long"
    wide = [b for b in blocks if b["scroll"] > b["client"]]
    assert not wide, f"{lang} {path}: code blocks scroll sideways at 1366 px: {wide}"


FIRST_LOAD_LIMIT = 150 * 1024  # gzipped bytes of everything a page loads on a first visit


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("path", ["online-rl/grpo-zero-std-group/", "walkthroughs/dpo-metrics/"])
def test_first_load_is_light_and_search_loads_on_first_use(browser, server, lang, path):
    """A page's first load stays under 150 KB gzipped: the search index (about 200 KB) waits for the first use of
    search (docs/javascripts/lazy-search.js), and a walkthrough's JupyterLab stylesheet is pruned to what the
    notebooks use and its plots load lazily (hooks/notebooks.py). Focusing the box loads the index and a query
    finds a page."""
    import gzip

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    responses = []
    pg.on("response", lambda r: responses.append(r))
    prefix = "zh/" if lang == "zh" else ""
    pg.goto(f"{server}/{prefix}{path}", wait_until="networkidle")
    pg.wait_for_timeout(300)
    loaded = [r.url for r in responses]
    assert not [u for u in loaded if "search_index" in u], f"the search index loads before search is used: {loaded}"
    sizes = {}
    for r in responses:
        try:
            sizes[r.url] = len(gzip.compress(r.body()))
        except Exception:  # noqa: BLE001 - a redirect or an aborted request has no body
            continue
    total = sum(sizes.values())
    assert total <= FIRST_LOAD_LIMIT, (
        f"{lang} {path}: first load {total / 1024:.0f} KB gzipped: {sorted(sizes.items())}"
    )
    pg.click("input.md-search__input")
    pg.fill("input.md-search__input", "frac_reward_zero_std")
    pg.wait_for_selector(".md-search-result__item", timeout=10000)
    assert any("search_index.json" in r.url for r in responses), "focusing the search box did not load the index"
    assert "grpo-zero-std-group" in pg.inner_html(".md-search-result")
    context.close()
