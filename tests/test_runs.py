"""The run record (compat/runs/) behind the run charts and the numbers pages quote.

A record is what the trainers of a page's check logged on the pinned TRL and the tiny model
(``python -m handbook record``). These tests fail when a page's code changed after its record was taken, so a
chart or a quoted number can never show something the current code does not produce.
"""

from __future__ import annotations

import json
import pathlib
import re
from importlib.metadata import version

import pytest

from handbook import tiny, ui
from handbook.content import pages
from handbook.lanes import runs
from handbook.site import charts, site_checks

ROOT = pages.ROOT
CHARTS_FLOOR = 40
"""Pages per language that carry a run chart (the goal is every training page: at least 40)."""

PITFALLS = pages.pitfall_pages()
RECORDS = sorted(runs.RUNS_DIR.rglob("*.json"))


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: str(r.relative_to(runs.RUNS_DIR)))
def test_record_is_fresh(record):
    rec = json.loads(record.read_text(encoding="utf-8"))
    page = ROOT / rec["page"]
    assert page.exists(), f"{record.relative_to(ROOT)}: its page {rec['page']} no longer exists: delete the record"
    fix = f"python -m handbook record {rec['page']}"
    assert rec["hash"] == runs.page_hash(page), f"{rec['page']}: the page's code changed after its run record: {fix}"
    assert rec["trl"] == version("trl"), f"{rec['page']}: recorded on TRL {rec['trl']}, pinned {version('trl')}: {fix}"
    assert rec["model"] == "tiny", f"{record.relative_to(ROOT)}: records come from the tiny test model"
    assert rec.get("tiny_recipe") == tiny.recipe_key(), f"{rec['page']}: the tiny test model changed since: {fix}"
    assert rec["seeds"].get("0"), f"{record.relative_to(ROOT)}: no runs of seed 0"


def test_a_chart_is_drawn_once_and_each_language_gets_its_words(tmp_path, monkeypatch):
    """Both languages show the same drawing (drawn once, cached once): the Chinese SVG is the English one with the
    legend's runs and the step axis in Chinese, and no English word of those left."""
    monkeypatch.setattr(charts, "CACHE", tmp_path)
    page = next(p for p in PITFALLS if p.meta.get("chart"))
    en = charts.figure(page.meta, "en")
    zh = charts.figure(pages.load(pages.twin_of(page.path)).meta, "zh")
    assert len(list(tmp_path.glob("*.svg"))) == 2, "one wide and one narrow drawing for both languages"
    for word in charts.WORDS:
        en_word, zh_word = ui.CHART["en"][word], ui.CHART["zh"][word]
        assert f">{en_word}</text>" in en and f">{en_word}</text>" not in zh, word
        assert f">{zh_word}</text>" in zh, word
    # the drawings themselves (their text alternative is written per language)
    drawings = [re.findall(r"<svg .*?</svg>", re.sub(r'aria-label="[^"]*"', "", f), re.S) for f in (en, zh)]
    assert [charts.localize(x, "zh") for x in drawings[0]] == drawings[1]


def test_quoted_numbers_come_from_the_record():
    """Every ``{{ fix.metric.max }}`` resolves against the record, in both twins."""
    seen = 0
    for page in PITFALLS:
        for p in (page, pages.load(pages.twin_of(page.path))):
            for label, metric, how, digits in pages.RUN_NUMBER.findall(p.body):
                value = charts.quote(p.meta, label, metric, how, digits)
                assert re.fullmatch(r"-?[\d.]+(e-?\d+)?|nan|inf|-inf", value), f"{p.rel}: {metric} -> {value!r}"
                seen += 1
    assert seen >= 1, "no page quotes a number from its run record"


def test_charted_pages():
    charted = [p for p in PITFALLS if p.meta.get("chart")]
    print(f"\nrun charts: {len(charted)} pages per language")
    assert len(charted) >= CHARTS_FLOOR, f"only {len(charted)} pages carry a run chart"


def test_quote_and_format():
    assert runs.fmt(0.00012345) == "0.000123"
    assert runs.fmt(1.3249) == "1.32"
    assert runs.fmt(12345.6) == "12346"
    assert runs.fmt(3.2e-7) == "3.2e-07"
    assert runs.fmt(float("nan")) == "nan"
    assert runs.aggregate([1.0, float("nan"), 3.0], "max") == 3.0
    with pytest.raises(ValueError):
        runs.aggregate([1.0], "median")


def test_check_names_a_missing_metric(tmp_path, monkeypatch):
    """A chart naming a metric the run did not log is a validator error that says which keys exist."""
    page = next(p for p in PITFALLS if p.meta.get("chart"))
    bad = pages.load(page.path)
    bad.meta = {**bad.meta, "chart": {**bad.meta["chart"], "metrics": ["no_such_metric"]}}
    errors = site_checks.check_run_refs(bad)
    assert errors and "no_such_metric" in errors[0] and "logged keys" in errors[0]
    bad.meta = {**bad.meta, "id": "no-such-page"}
    errors = site_checks.check_run_refs(bad)
    assert errors and "python -m handbook record" in errors[0]


def test_records_are_small():
    total = sum(r.stat().st_size for r in RECORDS)
    assert total < 5_000_000, f"compat/runs/ holds {total} bytes: keep records to what charts and rules need"
    for r in RECORDS:
        assert pathlib.Path(r).stat().st_size < 200_000, f"{r.relative_to(ROOT)} is larger than 200 kB"


def test_a_reference_lines_label_sits_above_the_line_inside_the_panel():
    """A reference line's label ("ln 2 = 0.6931") is drawn above the line, clear of a run lying on it, and inside
    the panel; the line does not add a step 0 to the step axis."""
    import matplotlib

    matplotlib.use("svg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(3.4, 2.5))
    ax.plot([1, 2, 3, 4, 5], [0.6931] * 5, marker="o", markersize=3, linewidth=1.6)  # a loss stuck at ln 2
    ax.plot([1, 2, 3, 4, 5], [0.6931, 0.13, 0.04, 0.0, 0.0], marker="o", markersize=3, linewidth=1.6)
    label = charts.reference_line(ax, 0.6931, "ln 2 = 0.6931")
    fig.canvas.draw()
    box, panel = label.get_window_extent(), ax.get_window_extent()
    line_y = ax.transData.transform((1, 0.6931))[1]
    half_marker_px = 1.5 * fig.dpi / 72
    plt.close(fig)
    assert box.y0 >= line_y + half_marker_px + 1, f"the label's bottom {box.y0:.1f} px touches the line at {line_y:.1f}"
    assert box.y1 <= panel.y1 and box.x1 <= panel.x1 + 1, "the label runs out of its panel"
    page = pages.load(ROOT / "docs" / "preference" / "dpo-loss-stuck-ln2.md")
    svg = charts._svg(runs.load(page.meta), page.meta["chart"], "en")
    ticks = re.findall(r'<g id="xtick_\d+">.*?<text[^>]*>(.*?)</text>', svg, re.S)
    assert ticks and "0" not in ticks, f"step ticks {ticks}: the reference line added a step 0"
