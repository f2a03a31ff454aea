"""Run charts: the symptom run next to the fix run, drawn from a page's run record (never by hand).

``figure(meta, lang)`` returns the ``<figure>`` a pitfall page shows for its ``chart:`` front matter: one
panel per metric, the seed-0 line of each run and, shaded, the range over the recorded seeds. matplotlib
draws it as SVG; text and axes take the page's text colour (``currentColor``) and the two runs use colours
that read on the light and the dark theme, so the chart follows Material's colour scheme. The SVG is inlined
(no request to another host) and cached under ``.cache/charts`` by the hash of what it shows. It is drawn once, in
English, for both languages: its text stays text (``svg.fonttype: none``), and ``localize`` puts the other
language's three words (the runs' legend and the step axis) in place of the English ones.

``quote(meta, label, metric, how)`` is a number a page quotes from its record (``{{ fix.grad_norm.max }}``).
"""

from __future__ import annotations

import hashlib
import html
import io
import json
import math
import pathlib
import re
import warnings
from importlib import metadata

from handbook.content import pages
from handbook.lanes import real_runs, runs
from handbook import ui

CACHE = pages.ROOT / ".cache" / "charts"
INK = "#010101"  # matplotlib's text and axes colour, replaced by currentColor
COLOURS = {"symptom": "#e8590c", "fix": "#1c7ed6"}
MAX_BYTES = 60_000
"""A figure holds two drawings, side by side panels and stacked ones for phones: about 30 KB each at most."""


def _series_by_seed(rec: dict, run: int, metric: str) -> dict[str, list[tuple[int, float]]]:
    return {seed: s for seed in rec.get("seeds", {}) if (s := runs.series(rec, run, metric, seed))}


NARROW_WIDTH_IN = 3.5
"""A phone's chart: panels stacked, drawn 3.5 in wide, so 8 pt text (legend) stays above 11 px at 390 px."""


REFERENCE_GAP_PT = 4
"""Points between a reference line and its label: clear of a run drawn on the line (a loss stuck at ln 2)."""


def reference_line(ax, value: float, label: str):
    """A dashed line at ``value`` across the panel, labelled at its right end just above it, not on it: the run
    a reference line explains often lies right on it. The panel grows at the top when the label needs the room.
    Returns the label (a matplotlib Annotation)."""
    lo, hi = ax.get_ylim()
    room = 0.22 * (max(hi, value) - min(lo, value) or 1.0)  # the label's height and its gap, roughly
    if hi < value + room:
        ax.set_ylim(lo, value + room)
    ax.axhline(value, color=INK, alpha=0.55, linewidth=0.9, linestyle=(0, (4, 3)))
    return ax.annotate(
        label,
        (1.0, value),
        xycoords=("axes fraction", "data"),
        xytext=(0, REFERENCE_GAP_PT),
        textcoords="offset points",
        ha="right",
        va="bottom",
        fontsize=8,
        alpha=0.8,
    )


def _svg(rec: dict, spec: dict, lang: str, narrow: bool = False) -> str:
    import matplotlib

    matplotlib.use("svg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    words = ui.CHART[lang]
    metrics = spec["metrics"]
    style = {
        "svg.fonttype": "none",
        "svg.hashsalt": "handbook-narrow" if narrow else "handbook",  # two SVGs on one page: distinct ids
        "font.size": 9,
        "font.family": "sans-serif",
        # text stays text in the SVG (the page's font draws it); matplotlib only measures it: with a CJK font it
        # measures Chinese labels right, without one it falls back to DejaVu's boxes (the warnings are dropped)
        "font.sans-serif": ["DejaVu Sans", "WenQuanYi Micro Hei", "Noto Sans CJK SC"],
        "axes.spines.top": False,
        "axes.spines.right": False,
        "text.color": INK,
        "axes.labelcolor": INK,
        "axes.edgecolor": INK,
        "xtick.color": INK,
        "ytick.color": INK,
        "axes.titlesize": 9,
        "axes.titlelocation": "left",
        "path.simplify": True,
    }
    with plt.rc_context(style):
        if narrow:
            fig, axes = plt.subplots(len(metrics), 1, figsize=(NARROW_WIDTH_IN, 2.1 * len(metrics)), squeeze=False)
            panels = [row[0] for row in axes]
        else:
            fig, axes = plt.subplots(1, len(metrics), figsize=(min(3.4 * len(metrics), 7.6), 2.5), squeeze=False)
            panels = list(axes[0])
        ref = spec.get("reference")
        for ax, metric in zip(panels, metrics):
            for label, n in spec["runs"].items():
                by_seed = _series_by_seed(rec, n, metric)
                if not by_seed:
                    continue
                colour = COLOURS[label]
                if len(by_seed) > 1:
                    steps = sorted(set.intersection(*(set(x for x, _ in s) for s in by_seed.values())))
                    lows, highs = [], []
                    for step in steps:
                        vals = [v for s in by_seed.values() for x, v in s if x == step and math.isfinite(v)]
                        lows.append(min(vals) if vals else math.nan)
                        highs.append(max(vals) if vals else math.nan)
                    ax.fill_between(steps, lows, highs, color=colour, alpha=0.18, linewidth=0)
                main = by_seed.get("0") or next(iter(by_seed.values()))
                xs, ys = [x for x, _ in main], [v for _, v in main]
                ax.plot(
                    xs,
                    ys,
                    color=colour,
                    linewidth=1.6,
                    label=words[label],
                    marker="o" if len(xs) < 12 else None,
                    markersize=3,
                )
            ax.set_title(metric)
            ax.set_xlabel(words["step"])
            steps = sorted({x for line in ax.get_lines() for x in line.get_xdata()})
            if len(steps) <= 6:  # few steps: a tick on each (a locator would draw 0.96, 1.04 for one step)
                ax.set_xticks(steps)
                if len(steps) == 1:
                    ax.set_xlim(steps[0] - 1, steps[0] + 1)
            else:
                ax.xaxis.set_major_locator(MaxNLocator(integer=True, nbins=6))
            ax.yaxis.set_major_locator(MaxNLocator(nbins=4))
            ax.grid(True, axis="y", color=INK, alpha=0.12, linewidth=0.6)
            if ref and ref["metric"] == metric:
                reference_line(ax, ref["value"], ref["label"])
        panels[0].legend(frameon=False, fontsize=8)
        fig.tight_layout(pad=0.4)
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None}, transparent=True)
        plt.close(fig)
    svg = buf.getvalue()
    svg = svg[svg.index("<svg") :]  # no XML declaration or DOCTYPE inside HTML
    svg = svg.replace(INK, "currentColor")
    svg = re.sub(r"font-family: [^;\"]*", "font-family: inherit", svg)  # the page's font
    cls = "hb-chart__svg hb-chart__svg--narrow" if narrow else "hb-chart__svg hb-chart__svg--wide"
    svg = re.sub(r'<svg ([^>]*?)width="[^"]*" height="[^"]*"', rf'<svg \1class="{cls}"', svg, count=1)
    svg = re.sub(r"<metadata>.*?</metadata>", "", svg, flags=re.S)
    svg = re.sub(r"\n\s*\n", "\n", svg)  # a blank line would end the raw HTML block in Markdown
    svg = re.sub(r"\n\s+", "\n", svg)
    return svg.strip()


DRAWN_IN = "en"
"""The language a chart is drawn in; ``localize`` gives the others their words."""
WORDS = ("symptom", "fix", "step")
"""The words of ``ui.CHART`` a chart's SVG holds: the legend's two runs and the step axis."""


def localize(svg: str, lang: str) -> str:
    """The chart drawn in ``DRAWN_IN`` with ``lang``'s words in its text elements (legend, step axis)."""
    for word in WORDS:
        drawn, wanted = ui.CHART[DRAWN_IN][word], ui.CHART[lang][word]
        svg = svg.replace(f">{html.escape(drawn)}</text>", f">{html.escape(wanted)}</text>")
    return svg


def figure(meta: dict, lang: str) -> str:
    """The ``<figure>`` for the page with front matter ``meta``, in ``lang`` (raises ValueError on a bad record)."""
    spec = meta["chart"]
    rec = real_runs.shown(meta)
    if rec is None:
        raise ValueError(f"no run record for {meta.get('id')}: run python -m handbook record")
    words = ui.CHART[lang]
    drawn_words = {w: ui.CHART[DRAWN_IN][w] for w in WORDS}
    drawn = [rec, {k: v for k, v in spec.items() if k != "caption"}, drawn_words, metadata.version("matplotlib")]
    key = hashlib.sha256(  # what the SVG shows: the record, the spec, its words (legend, axis) and who drew it
        json.dumps(drawn, sort_keys=True, ensure_ascii=False).encode()
        + pathlib.Path(__file__).read_bytes()  # a change to the drawing redraws every chart
    ).hexdigest()[:20]
    svgs = []
    for narrow in (False, True):  # CSS shows the stacked one on narrow screens (docs/stylesheets/extra.css)
        cached = CACHE / f"{key}{'-narrow' if narrow else ''}.svg"
        if cached.is_file():
            svgs.append(cached.read_text(encoding="utf-8"))
        else:
            with warnings.catch_warnings():  # "Glyph 30151 missing from font(s) DejaVu Sans": see font.sans-serif
                warnings.filterwarnings("ignore", message=r"Glyph \d+ .*missing from", category=UserWarning)
                svgs.append(_svg(rec, spec, DRAWN_IN, narrow))
            CACHE.mkdir(parents=True, exist_ok=True)
            cached.write_text(svgs[-1], encoding="utf-8")
    svgs = [localize(x, lang) for x in svgs]
    metrics = ", ".join(f"<code>{html.escape(m)}</code>" for m in spec["metrics"])
    labels = words["and"].join(words[label] for label in spec["runs"])
    alt = words["alt"].format(metrics=", ".join(spec["metrics"]), labels=labels)
    svg = "\n".join(x.replace("<svg ", f'<svg role="img" aria-label="{html.escape(alt)}" ', 1) for x in svgs)
    model = words["tiny"] if rec.get("model", "tiny") == "tiny" else html.escape(rec["model"])
    seeds = words["range"].format(seeds=", ".join(rec["seeds"])) if len(rec["seeds"]) > 1 else ""
    caption = words["caption"].format(metrics=metrics, trl=html.escape(rec.get("trl", "?")), model=model, seeds=seeds)
    if spec.get("caption"):
        caption += " " + html.escape(spec["caption"])
    return f'<figure class="hb-chart">\n{svg}\n<figcaption>{caption}</figcaption>\n</figure>'


def quote(meta: dict, label: str, metric: str, how: str, digits: str | None = None) -> str:
    """The number ``{{ label.metric.how[:digits] }}`` of seed 0 of the page's record (the real model's when it
    passed there), as the page shows it."""
    rec = real_runs.shown(meta)
    n = (meta.get("chart") or {}).get("runs", {}).get(label)
    values = [v for _, v in runs.series(rec, n, metric)] if rec and n else []
    if not values:
        raise ValueError(f"{{{{ {label}.{metric}.{how} }}}}: no such run or metric in the run record")
    return runs.fmt(runs.aggregate(values, how), int(digits or 3))
