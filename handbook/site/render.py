"""What the site's generated parts say, as plain functions of the pages and the committed records.

The MkDocs hook (``hooks/page_meta.py``) only adapts: it validates a page's front matter, calls ``render_meta``
for a pitfall page's badges and symptom box, and fills ``<!-- handbook:NAME -->`` with ``PLACEHOLDERS[NAME]``.
Each renderer takes the page's source path under docs/ (``src_uri``, for relative links) and the language,
and returns Markdown; text from front matter is escaped. Records are read when a renderer runs, never at import.
"""

from __future__ import annotations

import functools
import html
import pathlib
import re

from handbook.versions import compat_page
from handbook.content import markdown_scan
from handbook import ui
from handbook.content import pages as hp
from handbook.ui import ADVICE_GROUPS, ADVICE_LABELS, FINDER, FINDER_LABELS, LABELS


class RenderError(ValueError):
    """A renderer cannot do its job (a record it needs is missing); the hook reports it as a build error."""


REPO = "https://github.com/rlhf-pitfalls/rlhf-pitfalls-handbook"


@functools.cache
def verified_versions() -> dict[str, str]:
    """Pinned versions from the test constraints: the versions every snippet was verified against."""
    pins = {}
    for line in (hp.ROOT / "requirements" / "test.txt").read_text(encoding="utf-8").splitlines():
        m = re.match(r"^([A-Za-z0-9_.-]+)==([^\s;#]+)", line.strip())
        if m:
            pins[m.group(1).lower()] = m.group(2)
    return pins


matrix_results = compat_page.matrix_results
passed_on = compat_page.passed_on


SHOWN_VERSIONS = ("trl", "transformers", "torch", "accelerate", "datasets", "peft", "tokenizers")


def _badge(cls: str, label: str, value_html: str, href: str | None = None, title: str | None = None) -> str:
    inner = (
        f'<span class="hb-badge__label">{html.escape(label)}</span><span class="hb-badge__value">{value_html}</span>'
    )
    tip = f' title="{html.escape(title, quote=True)}"' if title else ""
    if href:
        return f'<a class="hb-badge {cls}" href="{html.escape(href, quote=True)}"{tip}>{inner}</a>'
    return f'<span class="hb-badge {cls}"{tip}>{inner}</span>'


def verified_badge(rel: str, lang: str) -> tuple[str, str]:
    """The "Verified on TRL" badge's text and tooltip: the releases the page passed on and how many of how many
    (compat_page.summary), or the pinned TRL before the version matrix ran the page."""
    t = LABELS[lang]
    s = compat_page.summary(rel)
    if s is None:
        return verified_versions().get("trl", "?"), t["verified_pin"]
    spans, n, total = s
    return t["verified_value"].format(spans=spans, n=n, total=total), t["verified_title"].format(
        spans=spans, n=n, total=total
    )


IDENT = re.compile(r"^(?=.*\w)[\w.()/=<>\[\]-]*[_/=][\w.()/=<>\[\]-]*$", re.ASCII)
"""An identifier, a metric key or a key=value: has an underscore, a slash or an equals sign, and a letter or digit
(a lone ``/`` or ``=`` is prose)."""


def _code(text: str) -> str:
    """A Markdown code span holding ``text`` verbatim (backticks inside are fenced by longer runs)."""
    fence = "`" * (max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _link(src_uri: str, target: str) -> str:
    """A Markdown link from the page being rendered to ``target`` (a path under docs/, e.g. 'sft/x.md')."""
    here = pathlib.PurePosixPath(src_uri).parent
    return pathlib.PurePosixPath(*[".."] * len(here.parts), target).as_posix()


def _cell(text: str) -> str:
    """Front-matter text as the content of a Markdown table cell: escaped, its pipes kept as text."""
    text = html.escape(str(text).replace("`", ""))
    return re.sub(r"([|_*\[\]\\])", r"\\\1", text)  # `__init__` stays text, not bold; a pipe stays in its cell


def symptom_markdown(text: str) -> str:
    """Metric keys, identifiers and error lines as code; prose escaped, so it stays text and stays searchable."""
    if re.match(r"^\w*(Error|Exception|Warning)\b", text):
        return _code(text)
    return " ".join(_code(tok) if IDENT.match(tok) or "`" in tok else html.escape(tok) for tok in text.split(" "))


def inline_markdown(text: str) -> str:
    """A one-line field (``fix_line``, ``verdict_reason``) as Markdown: `code` spans stay code spans, which Markdown
    escapes itself; the prose between them is escaped here. Escaping the code too would show ``&quot;``."""
    parts = str(text).split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: all prose
        return html.escape(str(text))
    return "".join(f"`{p}`" if i % 2 else html.escape(p) for i, p in enumerate(parts))


def verified_models(meta: hp.FrontMatter, lang: str) -> list[str]:
    """The models the page's check passed on: the real model when its committed row passed, and the tiny one."""
    from handbook.lanes import real, real_runs

    models = [real.NAME] if real_runs.passed(real_runs.load(meta.model_dump())) else []
    return [*models, LABELS[lang]["tiny_model"]]


def render_meta(meta: hp.FrontMatter, lang: str) -> str:
    t = LABELS[lang]
    v = meta.verdict
    verified, verified_title = verified_badge(f"docs/{meta.chapter}/{meta.id}.md", lang)
    compat = "../../start/compatibility/"  # raw HTML: the built URL, not the .md path
    badges = [
        _badge(f"hb-verdict hb-verdict--{v}", t["verdict"], html.escape(t[v])),
        _badge("hb-trl", t["applies"], html.escape(compat_page.describe_range(meta.trl, lang)), title=f"trl{meta.trl}"),
        _badge("hb-verified", t["verified"], html.escape(verified), compat, verified_title),
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
    colon, space = ("：", "") if lang == "zh" else (":", " ")
    if meta.fix_line:  # the fix first: what a reader came for; then the cause
        out += ["", f"    **{html.escape(t['fix_line'])}{colon}**{space}{inline_markdown(meta.fix_line)}"]
    out += ["", f"    *{html.escape(t['why'])}{colon}*{space}{inline_markdown(meta.verdict_reason)}", ""]
    older = compat_page.other_releases(f"docs/{meta.chapter}/{meta.id}.md", meta.model_dump(), lang)
    if older:  # where the matrix ran the page outside its ranges and it failed: what a reader there meets
        said = t["older_join"].join(
            f"TRL {compat_page.spans(vs, compat_page.releases())}{colon}{space}{inline_markdown(why)}"
            for vs, why in older
        )
        # shown, not indexed: error text of other releases would pull unrelated queries to the page
        out += [f"    *{html.escape(t['older'])}{colon}*{space}{said}", "    { data-search-exclude }", ""]
    return "\n".join(out)


def nav_label(text: str) -> str:
    """A ``nav_title`` as HTML for the sidebar: `code` spans become <code>, everything else is escaped text."""
    parts = str(text).split("`")
    return "".join(f"<code>{html.escape(p)}</code>" if i % 2 else html.escape(p) for i, p in enumerate(parts))


# -- the whole program -------------------------------------------------------------------------------------
MODEL_LINE = re.compile(r"""^MODEL = os\.environ\.get\("HANDBOOK_MODEL", "([^"]+)"\)""", re.M)


def program_path(meta: hp.FrontMatter) -> str:
    """Where the site serves a pitfall page's whole program, relative to the site root."""
    return f"programs/{meta.chapter}/{meta.id}.py"


def program_code(meta: hp.FrontMatter) -> str:
    """The page's whole program: its Python blocks in order, includes resolved, as the paste test runs it."""
    from handbook.content import contract

    return contract.page_code(hp.DOCS / meta.chapter / f"{meta.id}.md")


def program_box(meta: hp.FrontMatter, lang: str, code: str) -> str:
    """Copy and download buttons for the whole program, and how to run it (on the Hub model, offline, on SmolLM2)."""
    t = LABELS[lang]
    name = f"{meta.id}.py"
    # from [zh/]<chapter>/<slug>/ up to the site root, where hooks/programs.py writes the file (once, both languages)
    href = ("../" * (3 if lang == "zh" else 2)) + program_path(meta)
    m = MODEL_LINE.search(code)
    run = t["run_as_is"].format(file=name)
    run += (t["run_default"].format(model=m.group(1)) + t["run_offline"].format(file=name)) if m else t["run_plain"]
    buttons = (
        f'<button type="button" class="md-button md-button--primary hb-program__copy" data-program="{href}" '
        f'data-copied="{html.escape(t["copied"])}">{html.escape(t["copy_program"])}</button> '
        f'<a class="md-button hb-program__download" href="{href}" download="{name}">'
        f"{html.escape(t['download_program'].format(file=name))}</a>"
    )
    how = (
        f'<details class="hb-program__run" markdown="1">\n<summary>{html.escape(t["run_how"])}</summary>\n\n{run}\n\n'
        "</details>"
    )
    return f'<div class="hb-program" markdown="1">\n\n<p markdown="0">{buttons}</p>\n\n{how}\n\n</div>\n'


def place_program_box(markdown: str, box: str) -> str:
    """``markdown`` with the whole-program box at the end of its Fix section (before the next level-2 heading
    outside code): the first thing under "Fix" is the change to make, not the buttons and the run instructions
    of the whole program. Unchanged if the page has no Fix heading."""
    lines = markdown.split("\n")
    fix = end = None
    for i, line in markdown_scan.outside_fences(markdown):
        h = markdown_scan.heading(line)
        if not h or h[0] != 2:
            continue
        if fix is None and h[2] == "fix":
            fix = i
        elif fix is not None:
            end = i - 1  # 0-based index of the next level-2 heading
            break
    if fix is None:
        return markdown
    end = len(lines) if end is None else end
    head = lines[:end]
    while head and not head[-1].strip():
        head.pop()
    return "\n".join([*head, "", box, *lines[end:]])


# -- the search box of the home page and the 404 page ------------------------------------------------------
def search_form(lang: str, action: str) -> str:
    """A search box outside the header: it opens the theme's search with the words (its ``?q=``) on the page at
    ``action`` (the home page of the reader's language). The home page (``<!-- handbook:search-box -->``) and
    the 404 page (overrides/404.html, through hooks/i18n.py) show it."""
    t = ui.TEMPLATES[lang]
    return (
        f'<form class="hb-search-form" action="{html.escape(action, quote=True)}" method="get" role="search">'
        f'<input type="search" name="q" aria-label="{html.escape(t["search"], quote=True)}" '
        f'placeholder="{html.escape(t["search_placeholder"], quote=True)}">'
        f'<button type="submit" class="md-button md-button--primary">{html.escape(t["search"])}</button></form>'
    )


# -- placeholders ------------------------------------------------------------------------------------------
def _chapter_index(src_uri: str, lang: str) -> str:
    t = LABELS[lang]
    chapter = pathlib.PurePosixPath(src_uri).parent.as_posix()
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


def _chapters(src_uri: str, lang: str) -> str:
    """Every chapter, in navigation order, from the one chapter list (``ui.CHAPTERS``)."""
    i = 0 if lang == "en" else 1
    head = ui.CHAPTER_TABLE[lang]
    rows = [f"| {head[0]} | {head[1]} |", "| --- | --- |"]
    for chapter, titles in ui.CHAPTERS.items():
        link = _link(src_uri, f"{chapter}/index.md")
        rows.append(f"| [{_cell(titles[i])}]({link}) | {_cell(ui.CHAPTER_BLURBS[chapter][i])} |")
    return "\n".join(rows)


def _trl_version(src_uri: str, lang: str) -> str:
    return f"TRL `{verified_versions().get('trl', '?')}`"


def _versions(src_uri: str, lang: str) -> str:
    rows = [f"| `{name}` | `{verified_versions()[name]}` |" for name in SHOWN_VERSIONS if name in verified_versions()]
    return "| package | version |\n| --- | --- |\n" + "\n".join(rows)


def _compatibility(src_uri: str, lang: str) -> str:
    """Pages × matrix columns (compat/trl-matrix.json), with a version picker: handbook/versions/compat_page.py."""
    return compat_page.render(src_uri, lang, _link, _cell)


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


def symptom_index(lang: str) -> dict[str, dict[str, list[tuple[str, list[str]]]]]:
    """Where a symptom shows -> chapter -> [(symptom, [its pages' paths under docs/])], for every pitfall page in the
    reader's language. A phrasing that several pages list (the same words, case and spacing aside) is one entry that
    names all of them, under the chapter of the first. Entries sorted; groups in the order of ``FINDER`` and
    ``CHAPTERS``."""
    entries: dict[str, tuple[str, str, list[str]]] = {}  # folded symptom -> (symptom, chapter, pages)
    for chapter in hp.CHAPTERS:
        for path in sorted((hp.DOCS / chapter).glob("*.md")):
            if path.name.endswith(".zh.md"):
                continue
            doc = hp.load(hp.twin_of(path) if lang == "zh" else path)
            if doc.kind != "pitfall" or doc.errors:
                continue
            for symptom in map(str, doc.meta["symptoms"]):
                entry = entries.setdefault(" ".join(symptom.lower().split()), (symptom, chapter, []))
                if f"{chapter}/{path.name}" not in entry[2]:
                    entry[2].append(f"{chapter}/{path.name}")
    index: dict[str, dict[str, list[tuple[str, list[str]]]]] = {k: {} for k in FINDER[lang]}
    for symptom, chapter, paths in sorted(entries.values(), key=lambda e: e[0].lower()):
        index[where_shown(symptom)].setdefault(chapter, []).append((symptom, paths))
    return {
        where: {c: chapters[c] for c in hp.CHAPTERS if c in chapters} for where, chapters in index.items() if chapters
    }


def _symptom_finder(src_uri: str, lang: str) -> str:
    """Every pitfall page's symptoms (``symptom_index``): under a heading for where they show, one folded group per
    chapter, each line a symptom and the links to its pages; above them a filter box that
    docs/javascripts/finder.js shows and runs (hidden without it)."""
    t = FINDER_LABELS[lang]
    i = 0 if lang == "en" else 1
    titles: dict[str, str] = {}
    attrs = " ".join(f'data-{k}="{html.escape(t[k], quote=True)}"' for k in ("one", "many", "none"))
    out = [
        f'<div class="hb-finder__filter" markdown="0" hidden {attrs}>'
        f'<label for="hb-finder-q">{html.escape(t["label"])}</label>'
        f'<input id="hb-finder-q" type="search" placeholder="{html.escape(t["placeholder"], quote=True)}" '
        'autocomplete="off" spellcheck="false" enterkeyhint="search">'
        '<p class="hb-finder__status" aria-live="polite"></p></div>',
        "",
        '<div class="hb-finder" markdown="1">',
        "",
    ]
    for where, chapters in symptom_index(lang).items():
        out += ['<section class="hb-finder__where" markdown="1">', "", f"## {FINDER[lang][where]} {{#{where}}}", ""]
        for chapter, entries in chapters.items():
            name = html.escape(ui.CHAPTERS[chapter][i])
            out += [
                '<details class="hb-finder__group" markdown="1">',
                f'<summary>{name} <span class="hb-finder__count">{len(entries)}</span></summary>',
                "",
            ]
            for symptom, paths in entries:
                links = []
                for rel in paths:
                    if rel not in titles:
                        doc = hp.load(hp.DOCS / rel if lang == "en" else hp.twin_of(hp.DOCS / rel))
                        titles[rel] = _cell(doc.meta["title"])
                    links.append(f"[{titles[rel]}]({_link(src_uri, rel)})")
                symptom_html = f'<span class="hb-finder__symptom">{symptom_markdown(symptom)}</span>'
                out.append(f"- {symptom_html} → {' · '.join(links)}")
            out += ["", "</details>", ""]
        out += ["</section>", ""]
    out.append("</div>")
    return "\n".join(out)


def _advice_group(item: str) -> str:
    m = re.match(r"(000 §11\.\d+|002 \w+)", item)
    return m.group(1) if m else item


def _advice_checked(src_uri: str, lang: str) -> str:
    """Every item of the common advice, in one line of the reader's language, with its verdict and pages."""
    t, v = ADVICE_LABELS[lang], LABELS[lang]
    answered: dict[str, list[tuple[str, str, str]]] = {}
    for p in hp.all_pages():
        if p.lang != "en" or p.errors or not p.meta.get("advice"):
            continue
        twin = hp.load(hp.twin_of(p.path)) if lang == "zh" else p
        src = pathlib.PurePosixPath(p.path.relative_to(hp.DOCS).as_posix())
        link = _link(src_uri, str(src))
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


def _doctor_example(src_uri: str, lang: str) -> str:
    """The log doctor's real output on a recorded symptom run (seed 0), as a reader would see it."""
    from handbook.site import doctor_rules
    from handbook.lanes import runs

    chapter, pid = DOCTOR_EXAMPLE
    meta = hp.load(hp.DOCS / chapter / f"{pid}.md").meta
    rec = runs.load(meta)
    if rec is None:
        raise RenderError(f"docs/{src_uri}: no run record for {chapter}/{pid}")
    log = rec["seeds"]["0"][meta["chart"]["runs"]["symptom"] - 1]["logs"]
    rules = doctor_rules.export()["pages"]
    text = doctor_rules.cli.report(doctor_rules.R.diagnose(log, rules, lang), log, lang)
    cmd = "rlhf-doctor trainer_state.json" + (" --lang zh" if lang == "zh" else "")
    return f"```text\n$ {cmd}\n{text}\n```"


PLACEHOLDERS = {
    "search-box": lambda src_uri, lang: search_form(lang, "./"),  # on a page at the root of its language's site
    "doctor-example": _doctor_example,
    "run-chart": lambda src_uri, lang: "<!-- handbook:run-chart -->",  # filled by hooks/charts.py
    "advice-checked": _advice_checked,
    "symptom-finder": _symptom_finder,
    "chapter-index": _chapter_index,
    "chapters": _chapters,
    "trl-version": _trl_version,
    "versions": _versions,
    "compatibility": _compatibility,
}
