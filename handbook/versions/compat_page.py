"""The version matrix as the site shows it: the Compatibility page (version picker, tables) and the
"Verified on TRL" summary of a page's badge. Reads compat/trl-matrix.json (handbook/versions/matrix.py writes it)."""

from __future__ import annotations

import functools
import html
import json
import pathlib
import re

from handbook.content import contract
from handbook.content import pages as hp
from handbook.ui import COMPAT_LABELS
from handbook.versions.matrix_plan import version_key


@functools.cache
def matrix_results() -> dict:
    """compat/trl-matrix.json, written by `make matrix` ({} before it first ran)."""
    path = hp.ROOT / "compat" / "trl-matrix.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def columns(kind: str | None = None) -> dict[str, dict]:
    """The matrix's columns in order (name -> info), all or those of one kind (pinned, transformers, release)."""
    cols = matrix_results().get("versions", {})
    return {n: c for n, c in cols.items() if kind is None or c.get("kind", "pinned") == kind}


def applies(meta: dict, name: str) -> bool:
    """Whether the page's ``trl:``/``transformers:`` ranges, as its front matter says now, hold for the stack of
    column ``name``. Judged here, never stored: a range changes after the matrix ran (a release found broken)."""
    info = columns().get(name, {})
    return contract.out_of_range(meta, info.get("stack") or {"trl": info.get("trl", name)}) is None


def release_columns() -> dict[str, str]:
    """Every TRL release the matrix ran, oldest first, and the column that speaks for it: its pinned-stack column,
    else its release-day column (TRL 0.19-0.28 predate transformers 5.3 and have no pinned-stack column)."""
    by_trl: dict[str, str] = {}
    for kind in ("release", "pinned"):  # the pinned-stack column last: it wins
        for name, info in columns(kind).items():
            by_trl[info.get("trl", name)] = name
    return dict(sorted(by_trl.items(), key=lambda kv: version_key(kv[0])))


def releases() -> list[str]:
    return list(release_columns())


def passed_on(rel: str) -> list[str]:
    """The TRL releases on which every seed the column ran of the page passed (``release_columns``)."""
    cells = matrix_results().get("pages", {}).get(rel, {})
    return [v for v, name in release_columns().items() if cells.get(name, {}).get("outcome") == "passed"]


def spans(names: list[str] | set[str], order: list[str]) -> str:
    """Versions as runs of consecutive entries of ``order``: ``0.29.1, 1.1.0–1.3.0``."""
    runs: list[list[str]] = []
    for i, name in enumerate(order):
        if name in names:
            if runs and order.index(runs[-1][-1]) == i - 1:
                runs[-1].append(name)
            else:
                runs.append([name])
    return ", ".join(r[0] if len(r) == 1 else f"{r[0]}–{r[-1]}" for r in runs)


def summary(rel: str) -> tuple[str, int, int] | None:
    """``passed_on`` in a few characters (runs of consecutive releases as ``first–last``), how many releases that
    is and of how many; None before the matrix ran the page."""
    order = releases()
    ok = set(passed_on(rel))
    return (spans(ok, order), len(ok), len(order)) if ok else None


_WHY = (  # (pattern over a failure's first line, label in COMPAT_LABELS): what is absent, said in words
    (re.compile(r"(?P<cls>[\w.]+)\.__init__\(\) got an unexpected keyword argument '(?P<name>\w+)'"), "why_arg"),
    (re.compile(r"cannot import name '(?P<name>[\w.]+)' from '(?P<cls>[\w.]+)'"), "why_import"),
    (re.compile(r"No module named '(?P<name>[\w.]+)'"), "why_module"),
    (re.compile(r"'(?P<cls>\w+)' object has no attribute '(?P<name>\w+)'"), "why_attr"),
    (re.compile(r"module '(?P<cls>[\w.]+)' has no attribute '(?P<name>\w+)'"), "why_attr"),
    (re.compile(r"Unknown loss type: (?P<name>[\w-]+)"), "why_value"),
    # the claim, without what was measured (": [0.1, ...]", ", got ...")
    (re.compile(r"claim: (?P<name>[^:]{1,160}?)(?=,? got\b|:|$)"), "why_claim"),
)
_PATH = re.compile(r"(?<![\w.])'?/(?:[^\s/']+/)+[^\s']*'?")  # absolute paths, not metric keys (rewards/a/mean)


def why_not(cell: dict, lang: str, stack: dict | None = None) -> str:
    """Why a page does not hold on a release, in the reader's words: the argument, name or module that release
    lacks, the page's claim that does not hold there, or else the error the page's code raised there. The
    versions of ``stack`` (the column's) and file paths are elided: a message that names the release it ran on
    ("defaults to 'colocate' on TRL 0.20.0") or a temporary file is the same reason on every release."""
    t = COMPAT_LABELS[lang]
    reason = _PATH.sub("…", short_reason(cell))
    for dist, label in (("trl", "TRL"), ("transformers", "transformers")):
        if (stack or {}).get(dist):
            reason = re.sub(rf"\b{label} {re.escape(stack[dist])}\b", f"{label} …", reason, flags=re.I)
    for pattern, label in _WHY:
        m = pattern.search(reason)
        if m:  # backticks dropped: the words are shown inside code spans
            return t[label].format(**{k: v.strip().replace("`", "") for k, v in m.groupdict().items()})
    return t["why_error"].format(error=reason.split(": ", 1)[-1].replace("`", ""))


def other_releases(rel: str, meta: dict, lang: str) -> list[tuple[list[str], str]]:
    """(releases, why) for the releases outside the page's ranges on which it failed, grouped by reason, oldest
    group first: what a reader on such a release meets instead (``spans`` writes the releases short)."""
    cells = matrix_results().get("pages", {}).get(rel, {})
    groups: dict[str, list[str]] = {}
    for v, name in release_columns().items():
        cell = cells.get(name, {})
        if cell.get("outcome") == "failed" and not applies(meta, name):
            groups.setdefault(why_not(cell, lang, columns()[name].get("stack")), []).append(v)
    return [(vs, why) for why, vs in groups.items()]  # insertion order: the group of the oldest release first


def _pill(cell: dict, inside: bool, t: dict) -> str:
    """One cell: a failure is red only where the column's stack is ``inside`` the page's ranges."""
    outcome = cell.get("outcome")
    if outcome == "passed":
        return f'<span class="hb-pill hb-cell--pass">{t["passed"]}</span>'
    if outcome == "failed" and inside:
        return f'<span class="hb-pill hb-cell--fail">{t["failed"]}</span>'
    if outcome == "failed":
        return f'<span class="hb-pill hb-cell--outside" title="{html.escape(t["outside"])}">{t["failed"]}*</span>'
    if outcome == "skipped":
        return f'<span class="hb-pill hb-cell--skip">{t["skipped"]}</span>'
    return f'<span class="hb-cell--none">{t["not_run"]}</span>'


def _head(name: str, info: dict) -> str:
    """A column header: the TRL release, and what differs from the pinned stack."""
    stack = info.get("stack", {})
    kind = info.get("kind", "pinned")
    sub = "" if kind == "pinned" else f"<br><small>transformers {html.escape(stack.get('transformers', '?'))}</small>"
    return f"TRL {html.escape(info.get('trl', name))}{sub}"


def _table(cols: dict[str, dict], rows: list[tuple[str, str, dict, dict]], t: dict) -> str:
    head = f"| {t['page']} | {t['range']} | " + " | ".join(_head(n, c) for n, c in cols.items()) + " |"
    lines = [head, "|" + " --- |" * (len(cols) + 2)]
    for title_link, ranges, meta, cells in rows:
        pills = (_pill(cells.get(n, {}), applies(meta, n), t) for n in cols)
        lines.append(f"| {title_link} | {ranges} | " + " | ".join(pills) + " |")
    return '<div class="hb-compat" markdown="1">\n\n' + "\n".join(lines) + "\n\n</div>"


def release_defects(lang: str, t: dict) -> str:
    """The known release defects (``contract.RELEASE_DEFECTS``) as a list, with how many matrix cells each
    skipped (cells of a column whose stack has the release and whose skip reason is the defect's)."""
    data = matrix_results()
    items = []
    for d in contract.RELEASE_DEFECTS:
        reason = d.reason_zh if lang == "zh" else d.reason
        cells = sum(
            1
            for row in data.get("pages", {}).values()
            for name, cell in row.items()
            if cell.get("outcome") == "skipped"
            and d.reason[:60] in cell.get("reason", "")
            and d.applies_to(data.get("versions", {}).get(name, {}).get("stack", {}).get(d.dist, ""))
        )
        head = f"{html.escape(d.dist)} {html.escape(d.spec)}"
        count = t["defect_cells"].format(n=cells)
        if lang == "zh":
            items.append(f"- **{head}**：{html.escape(reason)}（{count}）")
        else:
            items.append(f"- **{head}**: {html.escape(reason)} ({count})")
    return "\n".join(items)


REASON = re.compile(
    r"^(?:Failed: )?docs/\S+\.md \(.*?\): (?P<what>.*?) \(check\w*, seed \d+\): (?P<error>[^\n]*)", re.S
)


def short_reason(cell: dict) -> str:
    """Why a cell failed, in a line: what the harness concluded and the error's first line, without the page's name
    and title that the recorded reason starts with (the row names the page)."""
    reason = cell.get("reason", "").split(" | ")[0]
    m = REASON.match(reason)
    text = f"{m['what']}: {m['error']}" if m else reason.split("\n")[0]
    return text if len(text) <= 200 else text[:199] + "…"


CLAUSE = re.compile(r"^(~=|==|!=|>=|<=|>|<)\s*([0-9][0-9a-z.]*?)(\.\*)?$")
SIGN = {">=": "≥", "<=": "≤", ">": ">", "<": "<", "==": "="}


def _release(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", v.split("+")[0])[:3])


def describe_range(spec: str, lang: str, wrap=str) -> str:
    """A PEP 440 range in the reader's words: ``>=0.29,!=1.6.*,!=1.7.*,!=1.8.*`` is "≥ 0.29, except 1.6.x–1.8.x"
    ("≥ 0.29，1.6.x–1.8.x 除外"). Excluded releases that follow each other (1.6.*, 1.7.*; 5.5.0, 5.5.1) become
    one span. ``wrap`` renders each version or bound (as plain text by default; the table keeps each on one
    line)."""
    t = COMPAT_LABELS[lang]
    bounds, excluded = [], []
    for clause in filter(None, (c.strip() for c in spec.split(","))):
        m = CLAUSE.match(clause)
        if not m:  # a clause these pages never write: say it as written
            bounds.append(clause)
        elif m[1] == "!=":
            excluded.append((_release(m[2]), bool(m[3])))
        elif m[1] == "~=":  # ~=1.4.2 is >=1.4.2, ==1.4.*
            up = _release(m[2])[:-1]
            bounds += [f"≥\u00a0{m[2]}", f"<\u00a0{'.'.join(map(str, (*up[:-1], up[-1] + 1)))}"]
        else:
            bounds.append(f"{SIGN[m[1]]}\u00a0{m[2]}{'.x' if m[3] else ''}")
    spans: list[list[tuple[tuple[int, ...], bool]]] = []
    for rel, wild in sorted(excluded):
        last = spans[-1][-1] if spans else None
        if last and last[1] == wild and last[0][:-1] == rel[:-1] and last[0][-1] + 1 == rel[-1]:
            spans[-1].append((rel, wild))
        else:
            spans.append([(rel, wild)])

    def name(rel: tuple[int, ...], wild: bool) -> str:
        return ".".join(map(str, rel)) + (".x" if wild else "")

    items = [name(*run[0]) + ("" if len(run) == 1 else "–" + name(*run[-1])) for run in spans]
    low = ", ".join(wrap(b) for b in bounds)
    if not items:
        return low or t["range_any"]
    versions = t["range_sep"].join(wrap(i) for i in items)
    if not low:
        return t["range_any_except"].format(versions=versions)
    return t["range_except"].format(bounds=low, versions=versions)


def _nowrap(text: str) -> str:
    return f'<span class="hb-nowrap">{html.escape(text)}</span>'


def _ranges(meta: dict, lang: str, sep: str = "<br>") -> str:
    """The Range cell: each package's range in words, a version never broken across lines; the specifier as its
    tooltip."""
    lines = [
        f'<span class="hb-range" title="{html.escape(dist + meta[dist], quote=True)}">{NAMES[dist]}\u00a0'
        f"{describe_range(meta[dist], lang, _nowrap)}</span>"
        for dist in contract.VERSIONED
        if meta.get(dist)
    ]
    return sep.join(lines)


NAMES = {"trl": "TRL", "transformers": "transformers"}


def _failed_on(meta: dict, names: list[str], t: dict) -> str:
    """Where a page failed outside its ranges, said as TRL releases (and, where the TRL was inside the page's range,
    the transformers that put the stack outside), not as the matrix's column names."""
    cols = columns()
    order = sorted({c.get("trl", n) for n, c in cols.items()}, key=version_key)
    trls = spans({cols[n].get("trl", n) for n in names}, order)
    trl_only = {k: v for k, v in meta.items() if k == "trl"}
    tfs = {cols[n].get("stack", {}).get("transformers", "") for n in names if applies(trl_only, n)} - {""}
    if not tfs:
        return t["failed_on"].format(trl=trls)
    return t["failed_on_tf"].format(trl=trls, tf=", ".join(sorted(tfs, key=version_key)))


def render(src_uri: str, lang: str, link, cell_text) -> str:
    """The Compatibility page's generated part: picker, two tables, the stacks, failures outside a range."""
    t = COMPAT_LABELS[lang]
    if not columns():
        return t["none"]
    rows, notes, picker_pages = [], [], []
    for rel, cells in matrix_results().get("pages", {}).items():
        path = hp.ROOT / rel if lang == "en" else hp.twin_of(hp.ROOT / rel)
        if not path.exists():
            continue
        meta = hp.load(path).meta
        href = link(src_uri, str(pathlib.PurePosixPath(rel).relative_to("docs")))
        title = cell_text(meta.get("title", rel))
        rows.append((f"[{title}]({href})", _ranges(meta, lang), meta, cells))
        # a failure counts where the column's stack is inside the page's ranges (elsewhere the page does not apply)
        failed = [n for n, c in cells.items() if c.get("outcome") == "failed" and applies(meta, n)]
        picker_pages.append(
            {
                "title": str(meta.get("title", rel)),
                "href": "../../" + rel.removeprefix("docs/").removesuffix(".md") + "/",  # the built URL
                "trl": meta.get("trl", ""),
                "transformers": meta.get("transformers", ""),
                "ranges": {d: f"{NAMES[d]} {describe_range(meta[d], lang)}" for d in contract.VERSIONED if meta.get(d)},
                "failed": failed,
                # what a reader on a release outside the ranges meets there, in words (the picker shows text)
                "why": {v: why.replace("`", "") for vs, why in other_releases(rel, meta, lang) for v in vs},
            }
        )
        outside = [n for n, c in cells.items() if c.get("outcome") == "failed" and not applies(meta, n)]
        if outside:
            note = t["outside_note"].format(
                page=f"[{title}]({href})",
                ranges=_ranges(meta, lang, sep=t["range_join"]),
                failed=_failed_on(meta, outside, t),
                reason=cell_text(short_reason(cells[outside[0]])),
            )
            notes.append(f"- {note}")
    cols = columns()
    data = {
        "columns": [
            {"name": n, "trl": c.get("trl", n), "transformers": c.get("stack", {}).get("transformers", "")}
            for n, c in cols.items()
        ],
        "pages": picker_pages,
        "pinned": columns("pinned").get(matrix_results().get("pinned", ""), {}).get("stack", {}),
        "labels": {
            k: t[k]
            for k in (
                "out_none",
                "out_range",
                "out_needs",
                "out_why",
                "out_failed",
                "out_failed_with",
                "out_ok",
                "out_unobserved",
            )
        },
    }
    payload = html.escape(json.dumps(data, ensure_ascii=False), quote=True)  # an attribute: no script to escape
    trl_options = " ".join(  # spaced: the search index reads the options' text as words, not one "0.29.11.0.0…"
        f'<option value="{html.escape(v)}"{" selected" if v == matrix_results().get("pinned") else ""}>'
        f"{html.escape(v)}</option>"
        for v in releases()
    )
    tf_seen = sorted({c["transformers"] for c in data["columns"] if c["transformers"]}, key=version_key)
    picker = (
        f'<div class="hb-picker" markdown="0" data-matrix="{payload}"><form class="hb-picker__form">'
        f'<label>TRL <select name="trl">{trl_options}</select></label> '
        f'<label>transformers <input name="transformers" list="hb-tf-seen" size="8" '
        f'value="{html.escape(data["pinned"].get("transformers", ""))}" inputmode="decimal"></label>'
        f'<datalist id="hb-tf-seen">{"".join(f"<option value={html.escape(v)!r}>" for v in tf_seen)}</datalist>'
        f'</form><div class="hb-picker__out" aria-live="polite">{html.escape(t["needs_js"])}</div>'
        "</div>"
    )
    stack_rows = [
        f"| {t['column']} | {t['kind']} | TRL | transformers | accelerate | peft | datasets | huggingface_hub "
        f"| {t['passed']} / {t['failed']} / {t['skipped']} | {t['seconds']} |",
        "|" + " --- |" * 10,
    ]
    for n, c in cols.items():
        st = c.get("stack", {})
        kind = t["kinds"].get(c.get("kind", "pinned"), c.get("kind", ""))
        if c.get("date"):
            kind += f" ({c['date']})"
        stack_rows.append(
            f"| `{n}` | {kind} | {st.get('trl', '?')} | {st.get('transformers', '?')} | {st.get('accelerate', '?')} "
            f"| {st.get('peft', '?')} | {st.get('datasets', '?')} | {st.get('huggingface_hub', '?')} "
            f"| {c.get('passed', 0)} / {c.get('failed', 0)} / {c.get('skipped', 0)} | {c.get('seconds', '?')} |"
        )
    out = [f"## {t['pick']} {{#pick}}", "", picker, ""]
    out += [f"## {t['by_trl']} {{#by-trl}}", "", t["by_trl_text"], "", _table(columns("pinned"), rows, t), ""]
    real = {n: c for n, c in cols.items() if c.get("kind", "pinned") != "pinned"}
    if real:
        out += [f"## {t['by_stack']} {{#by-stack}}", "", t["by_stack_text"], "", _table(real, rows, t), ""]
    out += [f"## {t['stack']} {{#stack}}", "", "\n".join(stack_rows)]
    defects = release_defects(lang, t)
    if defects:
        out += ["", f"## {t['defects']} {{#defects}}", "", t["defects_text"], "", defects]
    if notes:
        out += ["", f"## {t['why']} {{#outside}}", "", "\n".join(notes)]
    return "\n".join(out)
