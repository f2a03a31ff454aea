"""The page contract: front matter schema, body sections, twin parity.

Used by the test suite (``tests/test_pages.py``), by the MkDocs hook that renders badges and the navigation,
and by ``python -m handbook check``. Every error names the file and the field.
"""

from __future__ import annotations

import pathlib
import re
from dataclasses import dataclass, field
from typing import Literal

import yaml
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from handbook import contract

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SNIPPETS = ROOT / "snippets"

HOME = ("Home", "首页")
"""The home page's navigation title (English, Chinese)."""

# Chapter folder -> (English title, Chinese title). Order here is the order of the navigation.
CHAPTERS: dict[str, tuple[str, str]] = {
    "start": ("Start here", "从这里开始"),
    "sft": ("SFT", "SFT 监督微调"),
    "debugging": ("Debugging", "调试"),
    "preference": ("Preference optimisation", "偏好优化"),
    "online-rl": ("Online RL: GRPO & RLOO", "在线强化学习：GRPO 与 RLOO"),
    "rewards": ("Rewards & reward models", "奖励与奖励模型"),
    "walkthroughs": ("Walkthroughs", "实战演练"),
}

# Body sections of a pitfall page: anchor -> (English heading, Chinese heading), in this order.
SECTIONS: dict[str, tuple[str, str]] = {
    "symptom": ("Symptom", "症状"),
    "why": ("Why it happens", "原因"),
    "fix": ("Fix", "解决办法"),
    "evidence": ("Evidence", "证据"),
    "related": ("Related pages", "相关页面"),
}

VERDICTS = ("holds", "corrected", "wrong", "obsolete", "new")
"""holds/corrected/wrong/obsolete judge the common advice a page answers against current TRL; ``new`` is a
trap users report that no common advice covers."""

SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
ADVICE = re.compile(r"000 §11\.(?:\d+ row \d+|6|9|11)|002 (?:principle|trick|phenomenon) \d+")
"""Canonical ids of the common-advice items a page answers: a row of source document 000's tables
(``000 §11.3 row 6``; sections 11.6, 11.9 and 11.11 have no table: ``000 §11.6``), or an item of document 002
numbered in document order from 1 (``002 principle 1``, ``002 trick 13``, ``002 phenomenon 12``)."""
SOURCE = re.compile(r"^[\w.-]+/[\w.-]+#\d+$")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*(?:\{#([\w-]+)\})?\s*$")
INCLUDE = re.compile(r'^\s*--8<--\s+"([^"]+)"\s*$')
PYTHON_LANGS = ("python", "py", "python3", "pycon")
FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([\w+-]*)(.*)$")


class FrontMatter(BaseModel):
    """Front matter of a pitfall page (``kind: pitfall``, the default)."""

    model_config = ConfigDict(extra="forbid")

    id: str
    kind: Literal["pitfall"] = "pitfall"
    chapter: str
    title: str = Field(min_length=6)
    symptoms: list[str] = Field(min_length=3)
    tags: list[str] = Field(min_length=1)
    snippet: str
    advice: list[str]
    sources: list[str] = []
    trl: str
    verdict: Literal[VERDICTS]  # type: ignore[valid-type]
    verdict_reason: str = Field(min_length=10)
    order: int = 100
    tiny_only: str | None = None
    """Set when the snippet's assertions hold only on the tiny test model: says why, in the page's language."""

    @field_validator("id")
    @classmethod
    def _slug(cls, v: str) -> str:
        if not SLUG.match(v):
            raise ValueError("must be kebab-case (a-z, 0-9, '-')")
        return v

    @field_validator("chapter")
    @classmethod
    def _chapter(cls, v: str) -> str:
        if v not in CHAPTERS:
            raise ValueError(f"unknown chapter {v!r}; one of {list(CHAPTERS)}")
        return v

    @field_validator("symptoms", "tags")
    @classmethod
    def _no_todo(cls, v: list[str]) -> list[str]:
        for item in v:
            if not str(item).strip() or "TODO" in str(item):
                raise ValueError(f"has an empty or TODO entry: {item!r}")
        return v

    @field_validator("advice")
    @classmethod
    def _advice(cls, v: list[str]) -> list[str]:
        for item in v:
            if not ADVICE.fullmatch(str(item)):
                raise ValueError(
                    f"{item!r} is not a canonical id: '000 §11.N row K', '000 §11.6|9|11', "
                    "'002 principle N', '002 trick N' or '002 phenomenon N'"
                )
        if len(set(v)) != len(v):
            raise ValueError("lists an id twice")
        return v

    @field_validator("sources")
    @classmethod
    def _sources(cls, v: list[str]) -> list[str]:
        for src in v:
            if not SOURCE.match(src):
                raise ValueError(f"{src!r} must look like 'owner/repo#123'")
        return v

    @field_validator("trl")
    @classmethod
    def _trl(cls, v: str) -> str:
        try:
            SpecifierSet(v)
        except InvalidSpecifier as e:
            raise ValueError(f"not a PEP 440 version specifier: {e}") from None
        return v

    @model_validator(mode="after")
    def _consistency(self):
        if self.verdict == "new" and self.advice:
            raise ValueError("verdict 'new' is for traps no common advice covers; judge the advice instead")
        if self.verdict != "new" and not self.advice:
            raise ValueError(f"verdict {self.verdict!r} judges common advice, so 'advice' must name it")
        if self.verdict == "new" and not self.sources:
            raise ValueError("a trap no common advice covers must cite at least one real thread in 'sources'")
        if "TODO" in self.title or "TODO" in self.verdict_reason:
            raise ValueError("title/verdict_reason still contain TODO")
        return self


class GuideMatter(BaseModel):
    """Front matter of a guide page (home, chapter index, how-to, walkthrough): no snippet required."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["guide"]
    title: str = Field(min_length=2)
    order: int = 100
    id: str | None = None
    hide: list[str] = []


@dataclass
class Page:
    path: pathlib.Path
    lang: str  # "en" | "zh"
    meta: dict
    body: str
    errors: list[str] = field(default_factory=list)

    @property
    def rel(self) -> str:
        return str(self.path.relative_to(ROOT)) if self.path.is_relative_to(ROOT) else str(self.path)

    @property
    def kind(self) -> str:
        return self.meta.get("kind", "pitfall")

    def error(self, where: str, msg: str) -> None:
        self.errors.append(f"{self.rel}: {where}: {msg}")


def split_front_matter(text: str) -> tuple[dict | None, str]:
    if not text.startswith("---\n"):
        return None, text
    end = text.find("\n---\n", 4)
    if end < 0:
        return None, text
    meta = yaml.safe_load(text[4:end]) or {}
    return meta, text[end + 5 :]


def lang_of(path: pathlib.Path) -> str:
    return "zh" if path.name.endswith(".zh.md") else "en"


def twin_of(path: pathlib.Path) -> pathlib.Path:
    if path.name.endswith(".zh.md"):
        return path.with_name(path.name[: -len(".zh.md")] + ".md")
    return path.with_name(path.name[: -len(".md")] + ".zh.md")


def headings(body: str) -> list[tuple[int, str, str | None]]:
    """(level, text, explicit anchor) for each heading outside code fences."""
    out, in_fence = [], False
    for line in body.splitlines():
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        m = HEADING.match(line)
        if m:
            out.append((len(m.group(1)), m.group(2), m.group(3)))
    return out


def includes(body: str) -> list[str]:
    return [m.group(1) for line in body.splitlines() if (m := INCLUDE.match(line))]


def python_fences(body: str) -> list[tuple[int, str, list[str]]]:
    """(line number, fence info, lines) of every ```python fence."""
    out, lines, cur = [], body.splitlines(), None
    for i, line in enumerate(lines, 1):
        m = FENCE.match(line)
        if m and cur is None:
            lang, rest = m.group(3), m.group(4)
            braced = re.match(r"\s*\{\s*\.(\w+)", rest) if not lang else None  # ``` { .python .not-runnable }
            if (lang or (braced.group(1) if braced else "")) in PYTHON_LANGS:
                cur = (i, lang + rest, [])
            else:
                cur = (i, None, [])
        elif m and cur is not None:
            if cur[1] is not None:
                out.append(cur)
            cur = None
        elif cur is not None:
            cur[2].append(line)
    return out


def load(path: pathlib.Path) -> Page:
    text = path.read_text(encoding="utf-8")
    meta, body = split_front_matter(text)
    page = Page(path=path, lang=lang_of(path), meta=meta or {}, body=body)
    if meta is None:
        page.error("front matter", "missing (the page must start with a '---' YAML block)")
    return page


def validate(page: Page) -> Page:
    """Check one page against the contract; errors are appended to ``page.errors``."""
    model = GuideMatter if page.kind == "guide" else FrontMatter
    try:
        model.model_validate(page.meta)
    except ValidationError as e:
        for err in e.errors():
            loc = ".".join(str(x) for x in err["loc"]) or "front matter"
            page.error(f"field '{loc}'", err["msg"])
    rel_docs = page.path.relative_to(DOCS) if page.path.is_relative_to(DOCS) else page.path
    if page.kind == "pitfall" and not page.errors:
        chapter, slug = rel_docs.parent.as_posix(), page.path.name.split(".")[0]
        if page.meta["chapter"] != chapter:
            page.error("field 'chapter'", f"is {page.meta['chapter']!r} but the page lives in docs/{chapter}/")
        if page.meta["id"] != slug:
            page.error("field 'id'", f"is {page.meta['id']!r} but the file is named {slug!r}")
        expected = f"snippets/{chapter}/{slug}.py"
        if page.meta["snippet"] != expected:
            page.error("field 'snippet'", f"is {page.meta['snippet']!r}; expected {expected!r}")
        elif not (ROOT / expected).exists():
            page.error("field 'snippet'", f"{expected} does not exist")
        _check_sections(page)
        _check_includes(page)
    _check_fences(page)
    return page


def _check_sections(page: Page) -> None:
    hs = [h for h in headings(page.body) if h[0] == 2]
    anchors = [a for _, _, a in hs]
    want = list(SECTIONS)
    if [a for a in anchors if a in SECTIONS] != want:
        page.error("sections", f"level-2 headings must carry anchors {want} in this order; found {anchors}")
    idx = 0 if page.lang == "en" else 1
    for _, text, anchor in hs:
        if anchor in SECTIONS and text != SECTIONS[anchor][idx]:
            page.error("sections", f"heading {{#{anchor}}} should read {SECTIONS[anchor][idx]!r}, not {text!r}")
    h1 = [h for h in headings(page.body) if h[0] == 1]
    if len(h1) != 1:
        page.error("title", f"needs exactly one '# ' heading, found {len(h1)}")
    if page.meta.get("verdict") in ("corrected", "wrong", "obsolete") and "!!! folklore" not in page.body:
        page.error(
            "field 'verdict'",
            f"is {page.meta.get('verdict')!r}: the page must carry a '!!! folklore \"...\"' admonition saying so",
        )


def _check_includes(page: Page) -> None:
    """The page shows its whole snippet: every section once, in file order, under its own heading."""
    own = page.meta.get("snippet", "").removeprefix("snippets/")
    target = SNIPPETS / own
    if not target.is_file():
        return  # reported on field 'snippet'
    snip = contract.parse(target)
    if page.lang == "en":  # the Chinese twin shows the same file; report its problems once
        page.errors.extend(snip.errors)
    shown: list[tuple[str, str | None]] = []  # (section, anchor of the heading it is under)
    anchor = None
    in_fence = False
    for line in page.body.splitlines():
        if FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence and (h := HEADING.match(line)) and len(h.group(1)) == 2:
            anchor = h.group(3)
        if m := INCLUDE.match(line):
            file, _, section = m.group(1).partition(":")
            if file != own:
                page.error("include", f"{m.group(1)!r}: a pitfall page shows only its own snippet {own!r}")
            elif not section:
                page.error("include", f"{m.group(1)!r}: include a named section ({own}:<section>)")
            elif section not in snip.sections:
                page.error("include", f"{m.group(1)!r}: snippets/{own} has no section [start:{section}]")
            else:
                shown.append((section, anchor))
                if contract.anchor_of(section) != anchor:
                    page.error(
                        "include",
                        f"section {section!r} is shown under heading {{#{anchor}}}; "
                        f"it belongs under {{#{contract.anchor_of(section)}}}",
                    )
    if snip.sections and [name for name, _ in shown] != list(snip.sections):
        page.error(
            "include",
            f"must show every section of snippets/{own} once, in file order {list(snip.sections)}; "
            f"shows {[name for name, _ in shown]}",
        )


def _check_fences(page: Page) -> None:
    """Every Python fence is exactly one include: the page's code is what the tests run."""
    for line, info, lines in python_fences(page.body):
        code = [ln for ln in lines if ln.strip()]
        if len(code) == 1 and INCLUDE.match(code[0]) and info.strip() in PYTHON_LANGS:
            continue
        page.error(
            f"line {line}",
            "a Python code fence holds exactly one include of a snippet section "
            '(--8<-- "chapter/slug.py:section"); show untested code as ```text or ```diff instead',
        )


def all_pages() -> list[Page]:
    return [load(p) for p in sorted(DOCS.rglob("*.md"))]


def check_parity(en: Page, zh: Page) -> list[str]:
    errs = []
    if en.kind != zh.kind:
        errs.append(f"{zh.rel}: field 'kind': {zh.kind!r} differs from its English twin's {en.kind!r}")
    for key in ("id", "chapter", "snippet", "advice", "sources", "trl", "verdict", "order"):
        if en.meta.get(key) != zh.meta.get(key):
            errs.append(f"{zh.rel}: field '{key}': {zh.meta.get(key)!r} differs from {en.rel}'s {en.meta.get(key)!r}")
    a_en = [a for _, _, a in headings(en.body) if a]
    a_zh = [a for _, _, a in headings(zh.body) if a]
    if a_en != a_zh:
        errs.append(f"{zh.rel}: anchors {a_zh} differ from {en.rel}'s {a_en}")
    if (en.meta.get("tiny_only") is None) != (zh.meta.get("tiny_only") is None):
        errs.append(f"{zh.rel}: field 'tiny_only': set on one twin only (both or neither)")
    if includes(en.body) != includes(zh.body):
        errs.append(f"{zh.rel}: snippet includes differ from {en.rel}'s")
    if en.body.count("!!! folklore") != zh.body.count("!!! folklore"):
        errs.append(f"{zh.rel}: number of '!!! folklore' admonitions differs from {en.rel}'s")
    return errs


def check_all() -> list[str]:
    """Validate every page, every twin pair and id uniqueness; return all errors."""
    pages = {p.path: validate(p) for p in all_pages()}
    errors = [e for p in pages.values() for e in p.errors]
    ids: dict[str, str] = {}
    for path, page in pages.items():
        twin = twin_of(path)
        if twin not in pages:
            errors.append(f"{page.rel}: has no {'Chinese' if page.lang == 'en' else 'English'} twin {twin.name}")
        elif page.lang == "en":
            errors += check_parity(page, pages[twin])
        pid = page.meta.get("id")
        if page.lang == "en" and pid:
            if pid in ids:
                errors.append(f"{page.rel}: field 'id': {pid!r} is also used by {ids[pid]}")
            ids[pid] = page.rel
    for nb in sorted(DOCS.rglob("*.ipynb")):
        if ".ipynb_checkpoints" in nb.parts:
            continue
        twin = (
            nb.with_name(nb.name.replace(".zh.ipynb", ".ipynb"))
            if nb.name.endswith(".zh.ipynb")
            else nb.with_name(nb.stem + ".zh.ipynb")
        )
        if not twin.exists():
            errors.append(f"{nb.relative_to(ROOT)}: has no twin notebook {twin.name}")
    for snip in sorted(SNIPPETS.rglob("*.py")):
        if snip.name.startswith("_"):
            continue
        page = DOCS / snip.relative_to(SNIPPETS).with_suffix(".md")
        if not page.exists():
            errors.append(f"{snip.relative_to(ROOT)}: no page {page.relative_to(ROOT)} links this snippet")
    return errors
