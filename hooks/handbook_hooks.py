"""MkDocs hooks for the handbook.

- ``on_config``: builds the navigation from the chapters in ``handbook.pages.CHAPTERS`` and each page's
  ``order`` / ``title`` front matter, so adding a page never means editing mkdocs.yml.
- ``on_files`` (after mkdocs-static-i18n): static-i18n rebuilds every file as a plain ``File``, which turns
  mkdocs-jupyter's notebooks back into static downloads; this re-marks ``.ipynb`` files as pages with the
  ``/<lang>/<path>/`` URL their Markdown neighbours get.
- ``on_page_markdown``: renders a pitfall page's metadata (verdict, TRL range, verified version, seed rows,
  sources, snippet link, symptom phrasings) under its title, and a chapter index from its pages.
"""

from __future__ import annotations

import html
import os
import pathlib
import re
import sys
from types import SimpleNamespace

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from handbook import pages as hp  # noqa: E402

REPO = "https://github.com/rlhf-pitfalls/rlhf-pitfalls-handbook"

LABELS = {
    "en": {
        "verdict": "Seed claim",
        "holds": "holds",
        "corrected": "corrected",
        "wrong": "wrong",
        "obsolete": "obsolete",
        "new": "not in the seeds",
        "applies": "Applies to TRL",
        "verified": "Verified on TRL",
        "snippet": "Tested snippet",
        "seed": "Seed row",
        "sources": "Reported in",
        "symptoms": "You may be here because you saw",
        "page": "Page",
        "claim": "Verdict",
        "why": "In one line",
        "none": "No pages yet.",
    },
    "zh": {
        "verdict": "原说法",
        "holds": "成立",
        "corrected": "需修正",
        "wrong": "错误",
        "obsolete": "已过时",
        "new": "原文未收录",
        "applies": "适用 TRL 版本",
        "verified": "验证所用 TRL",
        "snippet": "测试代码",
        "seed": "出处",
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
SHOWN_VERSIONS = ("trl", "transformers", "torch", "accelerate", "datasets", "peft", "tokenizers")


def _lang_of_src(src_path: str) -> str:
    return "zh" if ".zh." in pathlib.PurePath(src_path).name else "en"


def _page_sort_key(path: pathlib.Path):
    meta, _ = hp.split_front_matter(path.read_text(encoding="utf-8")) if path.suffix == ".md" else ({}, "")
    meta = meta or {}
    return (0 if path.stem == "index" else 1, meta.get("order", 100), str(meta.get("title", path.stem)).lower())


def build_nav() -> list:
    nav: list = [{"Home": "index.md"}]
    for chapter, (title, _zh) in hp.CHAPTERS.items():
        folder = hp.DOCS / chapter
        if not folder.is_dir():
            continue
        entries = [
            p
            for p in folder.iterdir()
            if (p.suffix == ".md" and not p.name.endswith(".zh.md"))
            or (p.suffix == ".ipynb" and not p.name.endswith(".zh.ipynb"))
        ]
        entries.sort(key=_page_sort_key)
        if entries:
            nav.append({title: [p.relative_to(hp.DOCS).as_posix() for p in entries]})
    return nav


def on_config(config, **kwargs):
    config["nav"] = build_nav()
    return config


@event_priority(-200)  # after mkdocs-static-i18n (-100) has rebuilt the file list
def on_files(files, config, **kwargs):
    for file in list(files):
        if not file.src_uri.endswith(".ipynb") or file.is_documentation_page():
            continue
        dest = pathlib.PurePosixPath(file.dest_uri)
        # mkdocs-jupyter already gave it ".../<name>/index.html"; a bare copy would still end in ".ipynb"
        page_dir = dest.parent / dest.stem if dest.suffix == ".ipynb" else dest.parent
        file.__class__ = type("I18nNotebookFile", (type(file),), {"is_documentation_page": lambda self: True})
        file.dest_uri = (page_dir / "index.html").as_posix()
        file.url = page_dir.as_posix() + "/"
        # the language switcher reads these: point each language at its own notebook page
        rel = page_dir.as_posix().removeprefix("zh/")
        file.alternates = {
            "en": SimpleNamespace(url=rel + "/", locale="en"),
            "zh": SimpleNamespace(url="zh/" + rel + "/", locale="zh"),
        }
        file.abs_dest_path = os.path.normpath(os.path.join(config["site_dir"], file.dest_uri))
    return files


def _badge(cls: str, label: str, value: str, href: str | None = None) -> str:
    inner = f'<span class="hb-badge__label">{html.escape(label)}</span><span class="hb-badge__value">{value}</span>'
    if href:
        return f'<a class="hb-badge {cls}" href="{href}">{inner}</a>'
    return f'<span class="hb-badge {cls}">{inner}</span>'


IDENT = re.compile(r"^[\w.()/=<>\[\]-]*[_/=][\w.()/=<>\[\]-]*$", re.ASCII)


def _symptom_markdown(text: str) -> str:
    """Show metric keys and identifiers as code; keep prose searchable as prose."""
    if "`" in text:
        return text
    if re.match(r"^\w*(Error|Exception|Warning)\b", text):
        return f"`{text}`"
    return " ".join(f"`{tok}`" if IDENT.match(tok) else tok for tok in text.split(" "))


def render_meta(meta: dict, lang: str) -> str:
    t = LABELS[lang]
    verdict = meta.get("verdict", "new")
    snippet = meta.get("snippet", "")
    badges = [
        _badge(f"hb-verdict hb-verdict--{verdict}", t["verdict"], html.escape(t.get(verdict, verdict))),
        _badge("hb-trl", t["applies"], html.escape(str(meta.get("trl", "")))),
        _badge("hb-verified", t["verified"], html.escape(VERSIONS.get("trl", "?"))),
        _badge("hb-snippet", t["snippet"], f"<code>{html.escape(snippet)}</code>", f"{REPO}/blob/main/{snippet}"),
    ]
    for row in meta.get("advice", []):
        badges.append(_badge("hb-seed", t["seed"], html.escape(row)))
    for src in meta.get("sources", []):
        repo, num = src.split("#")
        badges.append(_badge("hb-source", t["sources"], html.escape(src), f"https://github.com/{repo}/issues/{num}"))
    out = ['<div class="hb-meta" markdown="0">' + " ".join(badges) + "</div>", ""]
    out.append(f'!!! symptoms "{t["symptoms"]}"')
    out.append("")
    for s in meta.get("symptoms", []):
        out.append(f"    - {_symptom_markdown(str(s))}")
    out.append("")
    out.append(f"    *{html.escape(t['why'])}:* {meta.get('verdict_reason', '')}")
    out.append("")
    return "\n".join(out)


def render_chapter_index(chapter: str, lang: str) -> str:
    t = LABELS[lang]
    rows = []
    folder = hp.DOCS / chapter
    for path in sorted(folder.glob("*.md"), key=_page_sort_key):
        if path.name.endswith(".zh.md") or path.stem == "index":
            continue
        twin = hp.twin_of(path) if lang == "zh" else path
        meta, _ = hp.split_front_matter(twin.read_text(encoding="utf-8"))
        meta = meta or {}
        if meta.get("kind", "pitfall") != "pitfall":
            rows.append(f"| [{meta.get('title', path.stem)}]({path.name}) | | |")
            continue
        verdict = meta.get("verdict", "new")
        rows.append(
            f"| [{meta.get('title', path.stem)}]({path.name}) "
            f'| <span class="hb-verdict--{verdict} hb-pill">{t.get(verdict, verdict)}</span> '
            f"| {meta.get('verdict_reason', '')} |"
        )
    if not rows:
        return t["none"]
    head = f"| {t['page']} | {t['claim']} | {t['why']} |\n| --- | --- | --- |\n"
    return head + "\n".join(rows)


H1 = re.compile(r"^# .*$", re.M)


def on_page_markdown(markdown, page, config, files, **kwargs):
    lang = _lang_of_src(page.file.src_uri)
    meta = page.meta or {}
    if "<!-- handbook:chapter-index -->" in markdown:
        chapter = pathlib.PurePosixPath(page.file.src_uri).parent.as_posix()
        markdown = markdown.replace("<!-- handbook:chapter-index -->", render_chapter_index(chapter, lang))
    if "<!-- handbook:trl-version -->" in markdown:
        markdown = markdown.replace("<!-- handbook:trl-version -->", f"TRL `{VERSIONS.get('trl', '?')}`")
    if "<!-- handbook:versions -->" in markdown:
        rows = [f"| `{name}` | `{VERSIONS[name]}` |" for name in SHOWN_VERSIONS if name in VERSIONS]
        markdown = markdown.replace("<!-- handbook:versions -->", "| package | version |\n| --- | --- |\n" + "\n".join(rows))
    if meta.get("kind", "pitfall") == "pitfall" and "snippet" in meta:
        m = H1.search(markdown)
        block = render_meta(meta, lang)
        if m:
            markdown = markdown[: m.end()] + "\n\n" + block + "\n" + markdown[m.end() :]
        else:
            markdown = block + "\n" + markdown
    return markdown


# Material's experimental Chinese query segmentation (search worker, `segment()`) never looks at the last
# character of a run of Han characters and gives up on the whole run as soon as one character starts no
# indexed word, so most queries written only in Chinese find nothing. After the build we swap that function
# for one that looks up every indexed word inside the run, skipping unknown characters. The browser test
# (tests/test_site.py) searches in Chinese and fails if this stops applying.
_SEGMENT = re.compile(
    r'function (\w+)\((\w),(\w)\)\{let (\w)=new Set,(\w)=new Uint16Array\(\2\.length\);.*?'
    r'return \4\.has\(""\)\?new Set\(\[\2\]\):\4\}'
)
_SEGMENT_FIXED = (
    # every indexed word of 2+ characters found anywhere in the run, plus single characters that no longer
    # word covers: jieba segmented the pages, so the query should hit whichever words jieba chose
    "function {name}(t,e){{let r=new Set,c=new Uint8Array(t.length);"
    "for(let s=0;s<t.length;s++)for(let o=s+2;o<=t.length;o++)if(t.slice(s,o)in e){{r.add(t.slice(s,o));"
    "for(let k=s;k<o;k++)c[k]=1}}"
    "for(let s=0;s<t.length;s++)if(!c[s]&&t[s]in e)r.add(t[s]);return r.size?r:new Set([t])}}"
)


def on_post_build(config, **kwargs):
    from mkdocs.exceptions import PluginError

    workers = list((pathlib.Path(config["site_dir"]) / "assets" / "javascripts" / "workers").glob("search.*.min.js"))
    if not workers:
        raise PluginError("handbook hook: Material's search worker not found; cannot fix Chinese search")
    for worker in workers:
        text = worker.read_text(encoding="utf-8")
        if "c=new Uint8Array(t.length);for(let s=0;s<t.length;s++)for(let o=s+2;" in text:
            continue  # already patched (mkdocs serve rebuilds)
        m = _SEGMENT.search(text)
        if not m:
            raise PluginError(
                f"handbook hook: Chinese query segmentation not found in {worker.name} (did mkdocs-material change?)"
            )
        text = text[: m.start()] + _SEGMENT_FIXED.format(name=m.group(1)) + text[m.end() :]
        worker.write_text(text, encoding="utf-8")
