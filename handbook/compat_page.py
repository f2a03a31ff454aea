"""The version matrix as the site shows it: the Compatibility page (version picker, tables) and the
"Verified on TRL" summary of a page's badge. Reads compat/trl-matrix.json (handbook/matrix.py writes it)."""

from __future__ import annotations

import functools
import html
import json
import pathlib

from handbook import contract
from handbook import pages as hp
from handbook.matrix_plan import version_key
from handbook.ui import COMPAT_LABELS


@functools.cache
def matrix_results() -> dict:
    """compat/trl-matrix.json, written by `make matrix` ({} before it first ran)."""
    path = hp.ROOT / "compat" / "trl-matrix.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def columns(kind: str | None = None) -> dict[str, dict]:
    """The matrix's columns in order (name -> info), all or those of one kind (pinned, transformers, release)."""
    cols = matrix_results().get("versions", {})
    return {n: c for n, c in cols.items() if kind is None or c.get("kind", "pinned") == kind}


def passed_on(rel: str) -> list[str]:
    """The TRL releases (pinned-stack columns) on which every seed of the page passed."""
    cells = matrix_results().get("pages", {}).get(rel, {})
    return [n for n in columns("pinned") if cells.get(n, {}).get("outcome") == "passed"]


def summary(rel: str) -> str:
    """``passed_on`` in a few characters: runs of consecutive releases as ``first–last``, and the count."""
    order = list(columns("pinned"))
    ok = set(passed_on(rel))
    if not ok:
        return ""
    runs: list[list[str]] = []
    for i, name in enumerate(order):
        if name in ok:
            if runs and order.index(runs[-1][-1]) == i - 1:
                runs[-1].append(name)
            else:
                runs.append([name])
    spans = [r[0] if len(r) == 1 else f"{r[0]}–{r[-1]}" for r in runs]
    return f"{', '.join(spans)} ({len(ok)}/{len(order)})"


def _pill(cell: dict, t: dict) -> str:
    outcome = cell.get("outcome")
    if outcome == "passed":
        return f'<span class="hb-pill hb-cell--pass">{t["passed"]}</span>'
    if outcome == "failed" and cell.get("in_range"):
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


def _table(cols: dict[str, dict], rows: list[tuple[str, str, dict]], t: dict) -> str:
    head = f"| {t['page']} | {t['range']} | " + " | ".join(_head(n, c) for n, c in cols.items()) + " |"
    lines = [head, "|" + " --- |" * (len(cols) + 2)]
    for title_link, ranges, cells in rows:
        lines.append(f"| {title_link} | {ranges} | " + " | ".join(_pill(cells.get(n, {}), t) for n in cols) + " |")
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


def _ranges(meta: dict) -> str:
    parts = [f"`{dist}{meta[dist]}`" for dist in ("trl", "transformers") if meta.get(dist)]
    return " ".join(parts)


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
        rows.append((f"[{title}]({href})", _ranges(meta), cells))
        # a failure counts where the column's stack is inside the page's ranges (elsewhere the page does not apply)
        failed = [n for n, c in cells.items() if c.get("outcome") == "failed" and c.get("in_range", True)]
        picker_pages.append(
            {
                "title": str(meta.get("title", rel)),
                "href": "../../" + rel.removeprefix("docs/").removesuffix(".md") + "/",  # the built URL
                "trl": meta.get("trl", ""),
                "transformers": meta.get("transformers", ""),
                "failed": failed,
            }
        )
        for n in failed:
            if not cells[n].get("in_range"):
                notes.append(f"- [{title}]({href}), {n}: {cell_text(cells[n].get('reason', '')[:160])}")
    cols = columns()
    data = {
        "columns": [
            {"name": n, "trl": c.get("trl", n), "transformers": c.get("stack", {}).get("transformers", "")}
            for n, c in cols.items()
        ],
        "pages": picker_pages,
        "pinned": columns("pinned").get(matrix_results().get("pinned", ""), {}).get("stack", {}),
        "labels": {k: t[k] for k in ("out_none", "out_range", "out_failed", "out_ok", "out_unobserved")},
    }
    payload = html.escape(json.dumps(data, ensure_ascii=False), quote=True)  # an attribute: no script to escape
    trl_options = " ".join(  # spaced: the search index reads the options' text as words, not one "0.29.11.0.0…"
        f'<option value="{html.escape(c.get("trl", n))}"{" selected" if n == matrix_results().get("pinned") else ""}>'
        f"{html.escape(c.get('trl', n))}</option>"
        for n, c in columns("pinned").items()
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
