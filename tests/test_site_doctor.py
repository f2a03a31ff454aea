"""The Log doctor page's "Diagnose my log" panel, in the built site and a real browser, in both languages.

A log pasted into the panel is read and diagnosed by docs/javascripts/doctor.js with the site's copy of the rules
(hooks/doctor.py); the findings link to the pages in the reader's language with relative links, a healthy log says
how much was read, and text that is not a log lists the formats the doctor reads. The fixtures (one build of the
site per session, the server, Chromium) are in tests/conftest.py, shared with tests/test_site.py.
"""

from __future__ import annotations

import json
import pathlib
import re

import pytest
from rlhf_doctor import cli
from rlhf_doctor import rules as R

CORPUS = pathlib.Path(__file__).resolve().parent.parent / "doctor" / "tests" / "corpus"
LOG = CORPUS / "01-grpo-loss-zero-gradnorm-nonzero.txt"  # GRPO: loss 0.0 at every step, grad_norm above 0
PAGE = "grpo-loss-not-progress-signal"
HEALTHY = CORPUS / "14-swift-dpo-rpo-healthy.txt"
DONE = ".hb-doctor__out :is(.hb-doctor__finding, .hb-doctor__none, .hb-doctor__error)"


def _url(server, lang, path):
    return f"{server}/{'zh/' if lang == 'zh' else ''}{path}"


def _diagnose(pg, server, lang, text):
    pg.goto(_url(server, lang, "debugging/log-doctor/"))
    label = pg.locator("label[for=hb-doctor-log]").inner_text()
    pg.get_by_label(label).fill(text)  # the textarea is found by its label
    pg.click(".hb-doctor__run")
    pg.wait_for_selector(DONE, timeout=10000)


@pytest.mark.site
def test_the_rules_and_the_panel_are_on_the_site(site):
    out, code, log = site
    assert code == 0, log[-2000:]
    assert (out / "assets" / "doctor-rules.json").read_bytes() == R.RULES_FILE.read_bytes()
    for prefix, lang in (("", "en"), ("zh/", "zh")):
        html = (out / prefix / "debugging" / "log-doctor" / "index.html").read_text(encoding="utf-8")
        assert re.search(f'<div class="hb-doctor"[^>]* data-lang="{lang}"', html), f"{lang}: no panel"
        assert re.search('<div class="hb-doctor__out"[^>]* aria-live="polite"', html) and 'for="hb-doctor-log"' in html
        assert 'src="../../' + ("../" if lang == "zh" else "") + 'javascripts/doctor.js"' in html


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_pasted_log_names_its_page_in_the_readers_language(page, server, lang):
    rules = R.load_rules()
    title = next(p["title"][lang] for p in rules if p["id"] == PAGE)
    log = cli.read_log(LOG)
    report = cli.report(R.diagnose(log, rules, lang), log, lang)
    _diagnose(page, server, lang, LOG.read_text(encoding="utf-8"))
    out = page.locator(".hb-doctor__out")
    finding = out.locator(f".hb-doctor__finding[data-page='{PAGE}']")
    link = finding.locator("a")
    href = link.get_attribute("href")
    assert href.startswith("../") and "://" not in href, f"not a relative link: {href}"
    assert link.evaluate("a => a.href") == _url(server, lang, f"online-rl/{PAGE}/")
    assert link.inner_text() == title
    assert finding.get_attribute("data-kind") == "expected"
    kinds = out.locator(".hb-doctor__kind").all_inner_texts()
    assert kinds == [cli.TEXT[lang]["expected"] + ":"], kinds  # "expected: how TRL behaves", not a problem
    evidence = finding.locator("li").all_inner_texts()
    assert evidence and all(f"   - {line}" in report.splitlines() for line in evidence), (evidence, report)
    with page.expect_navigation():
        link.click()
    assert page.url.split("#")[0] == _url(server, lang, f"online-rl/{PAGE}/")
    assert page.locator("h1").first.inner_text().strip()
    assert not page.external_requests, page.external_requests


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_no_javascript_notice_goes_when_javascript_runs(page, server, lang):
    """The page's HTML says the diagnosis needs JavaScript (for readers without it); once the script runs, before
    any click, the panel says what to do instead, naming the button as it reads."""
    html = page.request.get(_url(server, lang, "debugging/log-doctor/")).text()
    assert "JavaScript" in html.split('class="hb-doctor__out"', 1)[1][:300], "the no-JavaScript notice is gone"
    page.goto(_url(server, lang, "debugging/log-doctor/"))
    out = page.locator(".hb-doctor__out")
    page.wait_for_selector(".hb-doctor__out .hb-doctor__ready", timeout=10000)
    text = out.inner_text()
    assert "JavaScript" not in text, text
    assert page.locator(".hb-doctor__run").inner_text().strip() in text, text


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_healthy_log_says_what_was_read_and_garbage_lists_the_formats(page, server, lang):
    log = cli.read_log(HEALTHY)
    assert not R.diagnose(log, R.load_rules(), lang)
    _diagnose(page, server, lang, HEALTHY.read_text(encoding="utf-8"))
    none = page.locator(".hb-doctor__none").inner_text()
    assert none == cli.report([], log, lang), none  # e.g. "No handbook page matches this log (2 logged rows, ...)"
    page.fill("#hb-doctor-log", "hello\nthis is not a training log\n")
    page.click(".hb-doctor__run")
    page.wait_for_selector(".hb-doctor__formats", timeout=10000)
    formats = page.locator(".hb-doctor__formats li").all_inner_texts()
    assert len(formats) == 7 and "trainer_state.json" in formats[0] and "CSV" in formats[-1], formats
    assert page.locator(".hb-doctor__error").inner_text()
    assert not page.locator(".hb-doctor__finding").count()


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_panel_fits_a_phone(browser, server, lang):
    """At 390 px, with a log's findings shown (long metric names and values), the page does not scroll sideways."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=1)
    pg = context.new_page()
    _diagnose(pg, server, lang, (CORPUS / "31-autocontext-grpo-all-truncated-summary.txt").read_text(encoding="utf-8"))
    pg.wait_for_timeout(200)
    overflow = pg.evaluate("document.scrollingElement.scrollWidth - window.innerWidth")
    box = pg.locator(".hb-doctor").bounding_box()
    findings = pg.locator(".hb-doctor__finding").count()
    context.close()
    assert findings >= 2
    assert overflow <= 1, f"{lang}: the page is {overflow} px wider than a 390 px screen"
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box


def test_every_finding_link_points_into_the_site():
    """The panel turns each rule's URL into a link relative to the site: every URL must start with the site's."""
    data = json.loads(R.RULES_FILE.read_text(encoding="utf-8"))
    for page in data["pages"]:
        for lang, prefix in (("en", ""), ("zh", "zh/")):
            assert page["url"][lang] == f"{data['site']}{prefix}{page['chapter']}/{page['id']}/", page["url"]


@pytest.mark.browser
def test_a_log_file_opened_with_the_picker_is_diagnosed(page, server):
    """The file picker reads a trainer_state.json-style log into the box and diagnoses it, in the page."""
    page.goto(_url(server, "en", "debugging/log-doctor/"))
    page.set_input_files(".hb-doctor__file", str(LOG))
    page.wait_for_selector(DONE, timeout=10000)
    assert page.locator(".hb-doctor__log").input_value() == LOG.read_text(encoding="utf-8")
    assert page.locator(f".hb-doctor__finding[data-page='{PAGE}']").count() == 1
    assert not page.external_requests, page.external_requests
