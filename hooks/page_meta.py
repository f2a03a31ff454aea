"""MkDocs hook: a page's front matter, validated and rendered; ``<!-- handbook:NAME -->`` placeholders.

- Every page's front matter is validated with the same typed model the validator uses
  (``handbook.pages.FrontMatter`` / ``GuideMatter``): bad metadata stops ``mkdocs build`` and ``mkdocs serve``
  with the file and the field.
- A pitfall page gets its badges and symptom box under its title, from that model (text escaped).
- ``<!-- handbook:NAME -->`` placeholders are replaced by the renderer registered under NAME in
  ``PLACEHOLDERS``; an unknown NAME is an error.
"""

from __future__ import annotations

import html
import json
import pathlib
import re

from _common import ROOT, lang_of_src
from mkdocs.exceptions import PluginError

from handbook import pages as hp

REPO = "https://github.com/rlhf-pitfalls/rlhf-pitfalls-handbook"

LABELS = {
    "en": {
        "verdict": "Common advice",
        "holds": "holds",
        "corrected": "corrected",
        "wrong": "wrong",
        "obsolete": "outdated",
        "new": "not common advice",
        "applies": "Applies to TRL",
        "verified": "Verified on TRL",
        "models": "Verified on models",
        "tiny_model": "tiny test model",
        "era": "Advice written for TRL",
        "snippet": "Tested snippet",
        "tiny": "Checked on the tiny test model only",
        "sources": "Reported in",
        "symptoms": "You may be here because you saw",
        "page": "Page",
        "claim": "Verdict",
        "why": "In one line",
        "none": "No pages yet.",
    },
    "zh": {
        "verdict": "常见说法",
        "holds": "成立",
        "corrected": "需修正",
        "wrong": "错误",
        "obsolete": "已过时",
        "new": "非常见说法",
        "applies": "适用 TRL 版本",
        "verified": "验证所用 TRL",
        "models": "验证所用模型",
        "tiny_model": "微型测试模型",
        "era": "该说法针对的 TRL",
        "snippet": "测试代码",
        "tiny": "仅在微型测试模型上验证",
        "sources": "用户报告",
        "symptoms": "你可能是因为看到了这些才来到这里",
        "page": "页面",
        "claim": "结论",
        "why": "一句话",
        "none": "暂无页面。",
    },
}


def verified_versions() -> dict[str, str]:
    """Pinned versions from the test constraints: the versions every snippet was verified against."""
    pins = {}
    for line in (ROOT / "requirements" / "test.txt").read_text(encoding="utf-8").splitlines():
        m = re.match(r"^([A-Za-z0-9_.-]+)==([^\s;#]+)", line.strip())
        if m:
            pins[m.group(1).lower()] = m.group(2)
    return pins


VERSIONS = verified_versions()


def matrix_results() -> dict:
    """compat/trl-matrix.json, written by `make matrix` ({} before it first ran)."""
    path = ROOT / "compat" / "trl-matrix.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


MATRIX = matrix_results()


def passed_on(rel: str) -> list[str]:
    """The TRL versions on which every seed of the page passed in the matrix run."""
    cells = MATRIX.get("pages", {}).get(rel, {})
    return [v for v in MATRIX.get("versions", {}) if cells.get(v, {}).get("outcome") == "passed"]


SHOWN_VERSIONS = ("trl", "transformers", "torch", "accelerate", "datasets", "peft", "tokenizers")


def _badge(cls: str, label: str, value_html: str, href: str | None = None) -> str:
    inner = (
        f'<span class="hb-badge__label">{html.escape(label)}</span><span class="hb-badge__value">{value_html}</span>'
    )
    if href:
        return f'<a class="hb-badge {cls}" href="{html.escape(href, quote=True)}">{inner}</a>'
    return f'<span class="hb-badge {cls}">{inner}</span>'


IDENT = re.compile(r"^[\w.()/=<>\[\]-]*[_/=][\w.()/=<>\[\]-]*$", re.ASCII)


def _code(text: str) -> str:
    """A Markdown code span holding ``text`` verbatim (backticks inside are fenced by longer runs)."""
    fence = "`" * (max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _link(page, target: str) -> str:
    """A Markdown link from the page being rendered to ``target`` (a path under docs/, e.g. 'sft/x.md')."""
    here = pathlib.PurePosixPath(page.file.src_uri).parent
    return pathlib.PurePosixPath(*[".."] * len(here.parts), target).as_posix()


def _cell(text: str) -> str:
    """Front-matter text as the content of a Markdown table cell: escaped, its pipes kept as text."""
    return html.escape(str(text).replace("`", "")).replace("|", "\\|")


def symptom_markdown(text: str) -> str:
    """Metric keys, identifiers and error lines as code; prose escaped, so it stays text and stays searchable."""
    if re.match(r"^\w*(Error|Exception|Warning)\b", text):
        return _code(text)
    return " ".join(_code(tok) if IDENT.match(tok) or "`" in tok else html.escape(tok) for tok in text.split(" "))


def verified_models(meta: hp.FrontMatter, lang: str) -> list[str]:
    """The models the page's check passed on: the real model when its committed row passed, and the tiny one."""
    from handbook import real, real_runs

    models = [real.NAME] if real_runs.passed(real_runs.load(meta.model_dump())) else []
    return [*models, LABELS[lang]["tiny_model"]]


def render_meta(meta: hp.FrontMatter, lang: str) -> str:
    t = LABELS[lang]
    v = meta.verdict
    verified = passed_on(f"docs/{meta.chapter}/{meta.id}.md") or [VERSIONS.get("trl", "?")]
    compat = "../../start/compatibility/"  # raw HTML: the built URL, not the .md path
    badges = [
        _badge(f"hb-verdict hb-verdict--{v}", t["verdict"], html.escape(t[v])),
        _badge("hb-trl", t["applies"], html.escape(meta.trl)),
        _badge("hb-verified", t["verified"], html.escape(" · ".join(verified)), compat),
        _badge(
            "hb-snippet", t["snippet"], f"<code>{html.escape(meta.snippet)}</code>", f"{REPO}/blob/main/{meta.snippet}"
        ),
    ]
    badges.append(_badge("hb-models", t["models"], html.escape(" · ".join(verified_models(meta, lang))), compat))
    if meta.advice_trl:
        badges.append(_badge("hb-era", t["era"], html.escape(meta.advice_trl)))
    if meta.tiny_only:
        badges.append(_badge("hb-tiny", t["tiny"], html.escape(meta.tiny_only)))
    for src in meta.sources:
        repo, num = src.split("#")
        badges.append(_badge("hb-source", t["sources"], html.escape(src), f"https://github.com/{repo}/issues/{num}"))
    out = ['<div class="hb-meta" markdown="0">' + " ".join(badges) + "</div>", ""]
    out += [f'!!! symptoms "{html.escape(t["symptoms"])}"', ""]
    out += [f"    - {symptom_markdown(s)}" for s in meta.symptoms]
    out += ["", f"    *{html.escape(t['why'])}:* {html.escape(meta.verdict_reason)}", ""]
    return "\n".join(out)


# -- placeholders ------------------------------------------------------------------------------------------
def _chapter_index(page, lang: str) -> str:
    t = LABELS[lang]
    chapter = pathlib.PurePosixPath(page.file.src_uri).parent.as_posix()
    rows = []
    for path in sorted((hp.DOCS / chapter).glob("*.md"), key=lambda p: (hp.load(p).meta.get("order", 100), p.name)):
        if path.name.endswith(".zh.md") or path.stem == "index":
            continue
        meta = hp.load(hp.twin_of(path) if lang == "zh" else path).meta
        title = _cell(meta.get("title", path.stem))
        if meta.get("kind", "pitfall") != "pitfall":
            rows.append(f"| [{title}]({path.name}) | | |")
            continue
        v = html.escape(str(meta.get("verdict", "new")), quote=True)
        pill = f'<span class="hb-verdict--{v} hb-pill">{html.escape(t.get(v, v))}</span>'
        rows.append(f"| [{title}]({path.name}) | {pill} | {_cell(meta.get('verdict_reason', ''))} |")
    if not rows:
        return t["none"]
    return f"| {t['page']} | {t['claim']} | {t['why']} |\n| --- | --- | --- |\n" + "\n".join(rows)


def _trl_version(page, lang: str) -> str:
    return f"TRL `{VERSIONS.get('trl', '?')}`"


def _versions(page, lang: str) -> str:
    rows = [f"| `{name}` | `{VERSIONS[name]}` |" for name in SHOWN_VERSIONS if name in VERSIONS]
    return "| package | version |\n| --- | --- |\n" + "\n".join(rows)


COMPAT_LABELS = {
    "en": {
        "page": "Page",
        "range": "Range",
        "passed": "passed",
        "failed": "failed",
        "outside": "outside the page's range",
        "stack": "Stack each TRL version ran with",
        "none": "The matrix has not been run yet: `make matrix`.",
        "why": "What failed outside a page's range",
    },
    "zh": {
        "page": "页面",
        "range": "范围",
        "passed": "通过",
        "failed": "失败",
        "outside": "不在本页范围内",
        "stack": "各 TRL 版本运行时的依赖版本",
        "none": "尚未运行版本矩阵：`make matrix`。",
        "why": "超出页面范围时失败的原因",
    },
}


def _compatibility(page, lang: str) -> str:
    """Pages × TRL versions from compat/trl-matrix.json: passed on every seed, or failed (and why)."""
    t = COMPAT_LABELS[lang]
    versions = list(MATRIX.get("versions", {}))
    if not versions:
        return t["none"]
    head = f"| {t['page']} | {t['range']} | " + " | ".join(f"TRL {html.escape(v)}" for v in versions) + " |"
    rows = [head, "|" + " --- |" * (len(versions) + 2)]
    notes = []
    for rel, cells in MATRIX.get("pages", {}).items():
        src = pathlib.PurePosixPath(rel).relative_to("docs")
        path = ROOT / rel if lang == "en" else hp.twin_of(ROOT / rel)
        if not path.exists():
            continue
        meta = hp.load(path).meta
        link = _link(page, str(src))
        marks = []
        for v in versions:
            cell = cells.get(v, {})
            if cell.get("outcome") == "passed":
                marks.append("✅")
            elif cell.get("outcome") == "failed":
                marks.append("❌" if cell.get("in_range") else f"❌ <small>{t['outside']}</small>")
                if not cell.get("in_range"):
                    title = html.escape(str(meta.get("title", rel)))
                    notes.append(f"- [{title}]({link}), TRL {v}: {_code(cell.get('reason', '')[:160])}")
            else:
                marks.append("–")
        rows.append(
            f"| [{_cell(meta.get('title', rel))}]({link}) | {_code(str(meta.get('trl', '')))} | "
            + " | ".join(marks)
            + " |"
        )
    stack = [
        f"| TRL | transformers | torch | accelerate | datasets | {t['passed']} / {t['failed']} |",
        "|" + " --- |" * 6,
    ]
    for v, info in MATRIX["versions"].items():
        st = info.get("stack", {})
        stack.append(
            f"| {v} | {st.get('transformers', '?')} | {st.get('torch', '?')} | {st.get('accelerate', '?')} "
            f"| {st.get('datasets', '?')} | {info.get('passed', 0)} / {info.get('failed', 0)} |"
        )
    out = "\n".join(rows) + f"\n\n### {t['stack']} {{#stack}}\n\n" + "\n".join(stack)
    if notes:
        out += f"\n\n### {t['why']} {{#outside}}\n\n" + "\n".join(notes)
    return out


FINDER = {
    "en": {
        "error": "An error message or a warning",
        "metrics": "A metric in the logs",
        "behaviour": "How the model or the run behaves",
        "memory": "Memory and speed",
    },
    "zh": {
        "error": "报错或警告信息",
        "metrics": "日志里的某个指标",
        "behaviour": "模型或训练过程的表现",
        "memory": "显存与速度",
    },
}
_ERROR = re.compile(r"\b\w*(Error|Exception|Warning|Traceback)\b|warns?\b|报错|警告|raises?\b", re.I)
_MEMORY = re.compile(r"\bOOM\b|out of memory|memory|slow|hangs?\b|显存|内存|慢|卡住", re.I)


def where_shown(symptom: str) -> str:
    """Where a reader sees a symptom: an error, a logged metric, memory/speed, or the model's behaviour."""
    if _ERROR.search(symptom):
        return "error"
    if _MEMORY.search(symptom):
        return "memory"
    if any(IDENT.match(tok) for tok in symptom.replace(",", " ").split()):
        return "metrics"
    return "behaviour"


def _symptom_finder(page, lang: str) -> str:
    """Every pitfall page's symptoms, grouped by where they show, each a link to its page."""
    groups: dict[str, list[str]] = {k: [] for k in FINDER[lang]}
    for chapter in hp.CHAPTERS:
        for path in sorted((hp.DOCS / chapter).glob("*.md")):
            if path.name.endswith(".zh.md"):
                continue
            doc = hp.load(hp.twin_of(path) if lang == "zh" else path)
            if doc.kind != "pitfall" or doc.errors:
                continue
            src = pathlib.PurePosixPath(chapter, path.name)
            link = _link(page, str(src))
            title = html.escape(str(doc.meta["title"]).replace("`", ""))
            for symptom in doc.meta["symptoms"]:
                groups[where_shown(str(symptom))].append(f"- {symptom_markdown(str(symptom))} → [{title}]({link})")
    out = []
    for key, lines in groups.items():
        out += [f"## {FINDER[lang][key]} {{#{key}}}", "", *sorted(set(lines), key=str.lower), ""]
    return "\n".join(out)


ADVICE_GROUPS = {
    "000 §11.1": ("SFT", "SFT"),
    "000 §11.2": ("DPO, KTO and other preference methods", "DPO、KTO 等偏好方法"),
    "000 §11.3": ("PPO and GRPO", "PPO 与 GRPO"),
    "000 §11.4": ("Memory", "显存"),
    "000 §11.5": ("Several GPUs and nodes", "多卡与多机"),
    "000 §11.6": ("Debugging", "调试"),
    "000 §11.7": ("Recipes", "配方"),
    "000 §11.8": ("Upgrading to TRL 1.x", "升级到 TRL 1.x"),
    "000 §11.9": ("Versions", "版本"),
    "000 §11.10": ("Traps after TRL 1.0", "TRL 1.0 之后的新坑"),
    "000 §11.11": ("Take-aways", "要点"),
    "002 principle": ("Tuning notes: principles", "调参笔记：原则"),
    "002 trick": ("Tuning notes: tricks", "调参笔记：技巧"),
    "002 phenomenon": ("Tuning notes: what you see and what to do", "调参笔记：现象与对策"),
}
ADVICE_LABELS = {
    "en": {
        "advice": "Common advice",
        "verdict": "Verdict",
        "page": "Page",
        "open": "not checked yet",
        "guide": "discussed",
    },
    "zh": {"advice": "常见说法", "verdict": "结论", "page": "页面", "open": "尚未检验", "guide": "已讨论"},
}


def _advice_group(item: str) -> str:
    m = re.match(r"(000 §11\.\d+|002 \w+)", item)
    return m.group(1) if m else item


def _advice_checked(page, lang: str) -> str:
    """Every item of the common advice, in one line of the reader's language, with its verdict and pages."""
    t, v = ADVICE_LABELS[lang], LABELS[lang]
    answered: dict[str, list[tuple[str, str, str]]] = {}
    for p in hp.all_pages():
        if p.lang != "en" or p.errors or not p.meta.get("advice"):
            continue
        twin = hp.load(hp.twin_of(p.path)) if lang == "zh" else p
        src = pathlib.PurePosixPath(p.path.relative_to(hp.DOCS).as_posix())
        link = _link(page, str(src))
        title = _cell(twin.meta.get("title", ""))
        for item in p.meta.get("advice", []):
            answered.setdefault(item, []).append((p.meta.get("verdict", "guide"), title, link))
    out, group = [], None
    for item, text in hp.advice_items().items():
        g = _advice_group(item)
        if g != group:
            group = g
            out += ["", f"## {ADVICE_GROUPS.get(g, (g, g))[0 if lang == 'en' else 1]}", ""]
            out += [f"| {t['advice']} | {t['verdict']} | {t['page']} |", "| --- | --- | --- |"]
        claim = _cell(text[lang])
        pages = answered.get(item, [])
        if not pages:
            out.append(f"| {claim} | {t['open']} | |")
            continue
        pills = " ".join(
            dict.fromkeys(
                f'<span class="hb-verdict--{vd} hb-pill">{html.escape(v.get(vd, t["guide"]))}</span>'
                for vd, _, _ in pages
            )
        )
        links = "<br>".join(f"[{title}]({link})" for _, title, link in pages)
        out.append(f"| {claim} | {pills} | {links} |")
    return "\n".join(out)


DOCTOR_EXAMPLE = ("online-rl", "grpo-zero-std-group")
"""The recorded symptom run the log doctor page diagnoses as its example."""


def _doctor_example(page, lang: str) -> str:
    """The log doctor's real output on a recorded symptom run (seed 0), as a reader would see it."""
    from handbook import doctor_rules, runs

    chapter, pid = DOCTOR_EXAMPLE
    meta = hp.load(hp.DOCS / chapter / f"{pid}.md").meta
    rec = runs.load(meta)
    if rec is None:
        raise PluginError(f"docs/{page.file.src_uri}: no run record for {chapter}/{pid}")
    log = rec["seeds"]["0"][meta["chart"]["runs"]["symptom"] - 1]["logs"]
    rules = doctor_rules.export()["pages"]
    text = doctor_rules.cli.report(doctor_rules.R.diagnose(log, rules, lang), log, lang)
    cmd = "rlhf-doctor trainer_state.json" + (" --lang zh" if lang == "zh" else "")
    return f"```text\n$ {cmd}\n{text}\n```"


PLACEHOLDERS = {
    "doctor-example": _doctor_example,
    "run-chart": lambda page, lang: "<!-- handbook:run-chart -->",  # filled by hooks/charts.py
    "advice-checked": _advice_checked,
    "symptom-finder": _symptom_finder,
    "chapter-index": _chapter_index,
    "trl-version": _trl_version,
    "versions": _versions,
    "compatibility": _compatibility,
}
PLACEHOLDER = re.compile(r"<!-- handbook:([\w-]+) -->")
H1 = re.compile(r"^# .*$", re.M)


def _validated(page):
    """The page's front matter as the typed model; a PluginError naming the file and field if it is bad."""
    meta = page.meta or {}
    model = hp.GuideMatter if meta.get("kind") == "guide" else hp.FrontMatter
    if page.file.src_uri.endswith(".ipynb"):
        return None
    try:
        return model.model_validate(meta)
    except hp.ValidationError as e:
        problems = "; ".join(
            f"field '{'.'.join(map(str, err['loc'])) or 'front matter'}': {err['msg']}" for err in e.errors()
        )
        raise PluginError(f"docs/{page.file.src_uri}: {problems}") from None


def on_page_markdown(markdown, page, config, files, **kwargs):
    lang = lang_of_src(page.file.src_uri)
    meta = _validated(page)

    def fill(m: re.Match) -> str:
        name = m.group(1)
        if name not in PLACEHOLDERS:
            raise PluginError(
                f"docs/{page.file.src_uri}: unknown placeholder <!-- handbook:{name} -->; known: {sorted(PLACEHOLDERS)}"
            )
        return PLACEHOLDERS[name](page, lang)

    if meta is not None:
        # the navigation, the tab title and search show page.title as HTML: keep it text
        page.title = html.escape(meta.title.replace("`", ""))
        page.meta["title"] = page.title  # Material reads page.meta.title for the tab title
    markdown = PLACEHOLDER.sub(fill, markdown)
    if isinstance(meta, hp.FrontMatter):
        block = render_meta(meta, lang)
        m = H1.search(markdown)
        markdown = markdown[: m.end()] + "\n\n" + block + "\n" + markdown[m.end() :] if m else block + "\n" + markdown
    return markdown
