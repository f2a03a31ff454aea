"""Site-wide checks: every page validated, twins in parity, ids unique, the advice file, tags, run references.

``check_all()`` is what ``python -m handbook check`` runs. Per-page rules live in ``handbook.content.pages``; this
module adds what needs the whole site or the run records (``handbook.lanes.runs``), so imports flow one way:
contract -> pages -> runs -> site_checks.
"""

from __future__ import annotations

import os
import pathlib

import yaml

from handbook.content import contract, pages
from handbook.lanes import runs


def _check_advice_file(site: dict) -> list[str]:
    rel = (
        pages.ADVICE_FILE.relative_to(pages.ROOT) if pages.ADVICE_FILE.is_relative_to(pages.ROOT) else pages.ADVICE_FILE
    )
    try:
        items = pages.advice_items()
    except (OSError, yaml.YAMLError) as e:
        return [f"{rel}: file: cannot be read ({e})"]
    errors = []
    for item, text in items.items():
        if not pages.ADVICE.fullmatch(str(item)):
            errors.append(f"{rel}: {item!r}: not a canonical advice id")
        if not isinstance(text, dict) or set(text) != {"en", "zh"} or not all(str(x).strip() for x in text.values()):
            errors.append(f"{rel}: {item!r}: needs a one-line 'en' and 'zh' paraphrase")
    for page in site.values():
        for item in page.meta.get("advice", []) or []:
            if item not in items:
                errors.append(f"{page.rel}: field 'advice': {item!r} is not in {rel}")
    return errors


def _check_tag_spelling(site: dict) -> list[str]:
    """One spelling per tag across the site: 'KL' and 'kl' would be two entries on the tags page."""
    first: dict[str, tuple[str, str]] = {}
    errors = []
    for page in site.values():
        for tag in page.meta.get("tags", []) or []:
            key = str(tag).casefold()
            if key in first and first[key][0] != tag:
                errors.append(f"{page.rel}: field 'tags': {tag!r} is spelled {first[key][0]!r} in {first[key][1]}")
            first.setdefault(key, (str(tag), page.rel))
    return errors


def check_run_refs(page: pages.Page) -> list[str]:
    """A page's chart and the numbers it quotes name runs and metrics its run record holds."""
    chart = page.meta.get("chart") or {}
    refs = pages.RUN_NUMBER.findall(page.body)
    if not chart and not refs:
        return []
    rec = runs.load(page.meta)
    rec_path = runs.record_path(str(page.meta.get("id")), str(page.meta.get("chapter")))
    rel_rec = rec_path.relative_to(pages.ROOT) if rec_path.is_relative_to(pages.ROOT) else rec_path
    if rec is None:
        return [f"{page.rel}: field 'chart': no run record {rel_rec}: run python -m handbook record {page.rel}"]
    labels = chart.get("runs", {})
    errs = []
    wanted = [(label, n, m) for label, n in labels.items() for m in chart.get("metrics", [])]
    for label, metric, _, _ in refs:
        if label not in labels:
            errs.append(f"{page.rel}: body: {{{{ {label}.{metric} }}}} but field 'chart' names no {label!r} run")
        else:
            wanted.append((label, labels[label], metric))
    for label, n, metric in dict.fromkeys(wanted):
        if not runs.series(rec, n, metric):
            seed0 = rec["seeds"].get("0", [])
            count = len(seed0)
            have = sorted({k for row in seed0[n - 1]["logs"] for k in row} - {"step"}) if n <= count else []
            errs.append(
                f"{page.rel}: field 'chart': the {label} run (run {n} of {count}) of {rel_rec} logged no "
                f"{metric!r}; logged keys: {have}"
            )
    return errs


def check_parity(en: pages.Page, zh: pages.Page) -> list[str]:
    errs = []
    if en.kind != zh.kind:
        errs.append(f"{zh.rel}: field 'kind': {zh.kind!r} differs from its English twin's {en.kind!r}")
    for key in (
        "id",
        "chapter",
        "snippet",
        "advice",
        "sources",
        "trl",
        "transformers",
        "advice_trl",
        "verdict",
        "order",
        "doctor",
        "real_seeds",
        "claimed_failures",
    ):
        if en.meta.get(key) != zh.meta.get(key):
            errs.append(f"{zh.rel}: field '{key}': {zh.meta.get(key)!r} differs from {en.rel}'s {en.meta.get(key)!r}")
    a_en = [a for _, _, a in pages.headings(en.body) if a]
    a_zh = [a for _, _, a in pages.headings(zh.body) if a]
    if a_en != a_zh:
        errs.append(f"{zh.rel}: anchors: {a_zh} differ from {en.rel}'s {a_en}")
    l_en = [level for level, _, _ in pages.headings(en.body)]
    l_zh = [level for level, _, _ in pages.headings(zh.body)]
    if l_en != l_zh:
        errs.append(f"{zh.rel}: headings: levels {l_zh} differ from {en.rel}'s {l_en} (a heading added to one twin)")
    charts = [{k: v for k, v in (p.meta.get("chart") or {}).items() if k != "caption"} for p in (en, zh)]
    if charts[0] != charts[1]:
        errs.append(
            f"{zh.rel}: field 'chart': {charts[1]!r} differs from {en.rel}'s {charts[0]!r} (captions may differ)"
        )
    if sorted(pages.RUN_NUMBER.findall(en.body)) != sorted(pages.RUN_NUMBER.findall(zh.body)):
        errs.append(f"{zh.rel}: body: the numbers quoted from the run record ({{{{ fix.… }}}}) differ from {en.rel}'s")
    if sorted(pages.fix_values(str(en.meta.get("fix_line", "")))) != sorted(
        pages.fix_values(str(zh.meta.get("fix_line", "")))
    ):
        errs.append(
            f"{zh.rel}: field 'fix_line': names {pages.fix_values(str(zh.meta.get('fix_line', '')))}, but "
            f"{en.rel}'s names {pages.fix_values(str(en.meta.get('fix_line', '')))}: the same values in both languages"
        )
    if (en.meta.get("tiny_only") is None) != (zh.meta.get("tiny_only") is None):
        errs.append(f"{zh.rel}: field 'tiny_only': set on one twin only (both or neither)")
    if pages.includes(en.body) != pages.includes(zh.body):
        errs.append(f"{zh.rel}: snippet includes differ from {en.rel}'s")
    if en.body.count("!!! folklore") != zh.body.count("!!! folklore"):
        errs.append(f"{zh.rel}: number of '!!! folklore' admonitions differs from {en.rel}'s")
    return errs


def _symlinks() -> list[str]:
    out = []
    for top in (pages.DOCS, pages.SNIPPETS):
        for dirpath, dirnames, filenames in os.walk(top):  # does not follow links
            for name in dirnames + filenames:
                path = pathlib.Path(dirpath, name)
                if path.is_symlink():
                    rel = path.relative_to(pages.ROOT)
                    out.append(f"{rel}: file: is a symbolic link; docs/ and snippets/ hold plain files only")
    return out


def check_all() -> list[str]:
    """Validate every page, every twin pair and id uniqueness in one pass; return all errors (never raises)."""
    site = {}
    for p in pages.all_pages():
        try:
            site[p.path] = pages.validate(p)
        except Exception as e:  # noqa: BLE001 - a validator bug must not hide the other pages' problems
            p.error("validator", f"crashed on this page ({type(e).__name__}: {e}); please report it")
            site[p.path] = p
    errors = _symlinks() + [e for p in site.values() for e in p.errors] + _check_advice_file(site)
    errors += _check_tag_spelling(site)
    errors += [e for p in site.values() if not p.errors for e in check_run_refs(p)]
    errors += _check_twins_and_ids(site) + _check_notebook_twins() + _check_snippets()
    return errors


def _check_twins_and_ids(site: dict) -> list[str]:
    errors = []
    ids: dict[str, str] = {}
    for path, page in site.items():
        twin = pages.twin_of(path)
        if twin not in site:
            errors.append(f"{page.rel}: has no {'Chinese' if page.lang == 'en' else 'English'} twin {twin.name}")
        elif page.lang == "en":
            errors += check_parity(page, site[twin])
        pid = page.meta.get("id")
        if page.lang == "en" and pid:
            if pid in ids:
                errors.append(f"{page.rel}: field 'id': {pid!r} is also used by {ids[pid]}")
            ids[pid] = page.rel
    return errors


def _check_notebook_twins() -> list[str]:
    errors = []
    for nb in sorted(pages.DOCS.rglob("*.ipynb")):
        if ".ipynb_checkpoints" in nb.parts:
            continue
        twin = (
            nb.with_name(nb.name.replace(".zh.ipynb", ".ipynb"))
            if nb.name.endswith(".zh.ipynb")
            else nb.with_name(nb.stem + ".zh.ipynb")
        )
        if not twin.exists():
            errors.append(f"{nb.relative_to(pages.ROOT)}: has no twin notebook {twin.name}")
    return errors


def _check_snippets() -> list[str]:
    """Every snippet meets the contract and belongs to a page."""
    errors = []
    for snip in sorted(pages.SNIPPETS.rglob("*.py")):
        if snip.name.startswith("_"):
            continue
        errors += contract.parse(snip, pages.ROOT).errors
        page = pages.DOCS / snip.relative_to(pages.SNIPPETS).with_suffix(".md")
        if not page.exists():
            errors.append(f"{snip.relative_to(pages.ROOT)}: no page {page.relative_to(pages.ROOT)} links this snippet")
    return errors
