"""The page model: loading a page, its front matter (schema in ``handbook.content.schema``) and its per-page rules.

Used by the test suite (``tests/test_pages.py``), by the MkDocs hook that renders badges and the navigation,
and by ``python -m handbook check`` (site-wide rules: ``handbook.site.site_checks``). Every error names the file and the
field.
"""

from __future__ import annotations

import copy
import functools
import pathlib
import re
from dataclasses import dataclass, field

import yaml

from handbook.content import contract, markdown_scan, prose
from handbook.content.schema import (  # noqa: F401  (re-exported: the page model is read as pages.FrontMatter, ...)
    ADVICE,
    INCLUDE,
    METRIC,
    RUN_NUMBER,
    SLUG,
    SOURCE,
    TAG,
    VERDICTS,
    ChartSpec,
    FrontMatter,
    GuideMatter,
    ValidationError,
    advice_ids,
)
from handbook.ui import CHAPTERS, SECTIONS  # noqa: F401  (CHAPTERS re-exported for the CLI)

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
SNIPPETS = ROOT / "snippets"


@dataclass
class Page:
    path: pathlib.Path
    lang: str  # "en" | "zh"
    meta: dict
    body: str
    errors: list[str] = field(default_factory=list)
    offset: int = 0  # lines of front matter before the body: body line n is file line offset + n
    field_lines: dict[str, int] = field(default_factory=dict)  # top-level front-matter field -> its file line

    @property
    def rel(self) -> str:
        return str(self.path.relative_to(ROOT)) if self.path.is_relative_to(ROOT) else str(self.path)

    @property
    def kind(self) -> str:
        return self.meta.get("kind", "pitfall")

    def error(self, where: str, msg: str, line: int | None = None) -> None:
        self.errors.append(f"{self.rel}:{line}: {where}: {msg}" if line else f"{self.rel}: {where}: {msg}")


class FrontMatterError(ValueError):
    """Front matter that cannot be read; ``line`` is 1-based in the file, when known."""

    def __init__(self, msg: str, line: int | None = None):
        super().__init__(msg)
        self.line = line


def split_front_matter(text: str) -> tuple[dict | None, str]:
    """``(meta, body)``; ``meta`` is None when there is no front matter. Raises FrontMatterError when the
    block is there but is not a YAML mapping."""
    if not text.startswith("---\n"):
        return None, text
    end = text.find("\n---\n", 4)
    if end < 0:
        raise FrontMatterError("the '---' block is never closed by a '---' line", 1)
    try:
        meta = copy.deepcopy(_yaml(text[4:end]))  # a copy: callers may change what they got
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = mark.line + 2 if mark is not None else None
        raise FrontMatterError(f"is not valid YAML: {getattr(e, 'problem', None) or e}", line) from None
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        raise FrontMatterError(f"must be a YAML mapping of fields, not a {type(meta).__name__}", 2)
    bad_keys = [k for k in meta if not isinstance(k, str)]
    if bad_keys:
        raise FrontMatterError(f"field names must be text, got {bad_keys[:3]!r}", 2)
    return meta, text[end + 5 :]


@functools.lru_cache(maxsize=4096)
def _yaml(block: str):
    """A front-matter block parsed, remembered by its text: the build reads each page's front matter a dozen times
    (navigation, chapter indexes, symptom finder, search, doctor rules), and PyYAML's parser was a fifth of it."""
    return yaml.safe_load(block)


def lang_of(path: pathlib.Path) -> str:
    return "zh" if path.name.endswith(".zh.md") else "en"


def twin_of(path: pathlib.Path) -> pathlib.Path:
    if path.name.endswith(".zh.md"):
        return path.with_name(path.name[: -len(".zh.md")] + ".md")
    return path.with_name(path.name[: -len(".md")] + ".zh.md")


headings = markdown_scan.headings
heading = markdown_scan.heading


def includes(body: str) -> list[str]:
    return [m.group(1) for line in body.splitlines() if (m := INCLUDE.match(line))]


def python_fences(body: str) -> list[tuple[int, str, list[str]]]:
    """(line number, fence info, lines) of every ```python fence."""
    return [(f.line, f.info, f.lines) for f in markdown_scan.fences(body) if f.is_python]


FIELD_LINE = re.compile(r"^([A-Za-z_][\w-]*)\s*:")


def load(path: pathlib.Path) -> Page:
    """Read a page; never raises on bad input: problems are in ``page.errors`` (then ``meta`` is {})."""
    text, problem = contract.read_text(path)
    if problem:
        page = Page(path=path, lang=lang_of(path), meta={}, body="")
        page.error("file", problem)
        return page
    return from_text(path, text)


def from_text(path: pathlib.Path, text: str) -> Page:
    """The page at ``path`` whose file holds ``text`` (what ``load`` reads); never raises on bad input."""
    page = Page(path=path, lang=lang_of(path), meta={}, body="")
    try:
        meta, body = split_front_matter(text)
    except FrontMatterError as e:
        page.error("front matter", str(e), e.line)
        page.body = text
        return page
    page.meta, page.body = meta or {}, body
    page.offset = text[: len(text) - len(body)].count("\n")
    for n, line in enumerate(text.splitlines()[1 : page.offset], 2):
        if (m := FIELD_LINE.match(line)) and m.group(1) not in page.field_lines:
            page.field_lines[m.group(1)] = n
    if meta is None:
        page.error("front matter", "missing (the page must start with a '---' YAML block)", 1)
    return page


def validate(page: Page) -> Page:
    """Check one page against the contract; errors are appended to ``page.errors``."""
    if page.errors:  # the file or its front matter could not be read: nothing more to check
        return page
    model = GuideMatter if page.kind == "guide" else FrontMatter
    try:
        model.model_validate(page.meta)
    except ValidationError as e:
        for err in e.errors():
            loc = ".".join(str(x) for x in err["loc"]) or "front matter"
            line = page.field_lines.get(str(err["loc"][0])) if err["loc"] else None
            page.error(f"field '{loc}'", err["msg"], line)
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
        _check_fix_line(page)
    _check_include_paths(page)
    _check_fences(page)
    _check_active_html(page)
    _check_stray_headings(page)
    if page.kind == "pitfall":
        _check_hand_typed_times(page)
    return page


ACTIVE_HTML = re.compile(r"<\s*(script|iframe|object|embed)\b|<[a-zA-Z][^>]*\son[a-z]+\s*=|javascript:", re.I)


def _check_hand_typed_times(page: Page) -> None:
    for line, quote in prose.hand_typed_times(page.body):
        page.error(
            "body",
            f"a run time typed by hand ({quote!r}): quote timings from the record or not at all",
            page.offset + line,
        )


def _check_stray_headings(page: Page) -> None:
    """A wrapped line that starts with '#' (an issue number, a comment) renders as a heading and breaks the TOC."""
    for n in markdown_scan.stray_headings(page.body):
        page.error(
            "body",
            "this line starts with '#' and would render as a heading: rewrap it (or write 'issue 123', 'trl#123')",
            page.offset + n,
        )


def _check_active_html(page: Page) -> None:
    """No script, frame or event handler in a page's Markdown (outside code): pages are text and tested code."""
    for n, line in markdown_scan.outside_fences(page.body):
        if m := ACTIVE_HTML.search(re.sub(r"`[^`]*`", "", line)):
            page.error("body", f"active HTML {m.group(0)!r} is not allowed in a page", page.offset + n)


def _check_include_paths(page: Page) -> None:
    """Every include, on any page, names a plain ``.py`` snippet file inside snippets/ (no escape, no link)."""
    root = SNIPPETS.resolve()
    for n, line in enumerate(page.body.splitlines(), 1):
        m = INCLUDE.match(line)
        if not m:
            continue
        at = page.offset + n
        file = m.group(1).partition(":")[0]
        rel = pathlib.PurePosixPath(file)
        target = SNIPPETS / file
        if rel.is_absolute() or ".." in rel.parts or "\\" in file:
            page.error("include", f"{m.group(1)!r} must be a path inside snippets/, without '..'", at)
        elif rel.suffix != ".py" or rel.name.startswith("_"):
            page.error("include", f"{m.group(1)!r}: only tested snippet files (.py, not '_'-prefixed) can be shown", at)
        elif any(p.is_symlink() for p in [target, *target.parents] if p.is_relative_to(SNIPPETS)):
            page.error("include", f"{m.group(1)!r} goes through a symbolic link", at)
        elif not target.resolve().is_relative_to(root):
            page.error("include", f"{m.group(1)!r} resolves outside snippets/", at)


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
    snip = contract.parse(target, ROOT)  # its own problems are reported once, by check_all
    shown: list[tuple[str, str | None]] = []  # (section, anchor of the heading it is under)
    anchors_at = {n: h[2] for n, line in markdown_scan.outside_fences(page.body) if (h := heading(line)) and h[0] == 2}
    anchor = None
    for n, line in enumerate(page.body.splitlines(), 1):
        anchor = anchors_at.get(n, anchor)
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
    _check_highlights(page, own, snip)


def _check_highlights(page: Page, own: str, snip: contract.Snippet) -> None:
    """``hl_lines`` name lines of the included section: a number past its end highlights nothing."""
    for line, info, lines in python_fences(page.body):
        hl = re.search(r'hl_lines="([^"]*)"', info)
        inc = next((m.group(1) for ln in lines if (m := INCLUDE.match(ln))), "")
        file, _, section = inc.partition(":")
        if not hl or file != own or section not in snip.sections:
            continue
        last = len(snip.sections[section].rstrip("\n").splitlines())
        numbers = [int(n) for n in re.findall(r"\d+", hl.group(1))]
        if past := [n for n in numbers if not 1 <= n <= last]:
            page.error(
                "fence",
                f"hl_lines {past} outside section {section!r} of snippets/{own}, lines 1-{last}: "
                "re-point them at the lines the Fix changed",
                page.offset + line,
            )


CODE_SPAN = re.compile(r"`([^`]+)`")


def fix_values(fix_line: str) -> list[str]:
    """The `code` spans of a ``fix_line`` that set something (``beta=0.04``, ``os.environ[...] = "1"``)."""
    return [span for span in CODE_SPAN.findall(fix_line) if "=" in span]


def section_text(page: Page, anchor: str) -> str:
    """What a reader sees under the level-2 heading ``{#anchor}``: its prose and code, includes of the page's own
    snippet resolved (an include that cannot be resolved is reported elsewhere and left as it is)."""
    top = {n: h for n, line in markdown_scan.outside_fences(page.body) if (h := heading(line)) and h[0] <= 2}
    lines, inside = [], False
    for n, line in enumerate(page.body.splitlines(), 1):
        if n in top:
            inside = top[n][0] == 2 and top[n][2] == anchor
        elif inside:
            lines.append(line)
    snip_path = SNIPPETS / str(page.meta.get("snippet", "")).removeprefix("snippets/")
    sections = contract.parse(snip_path, ROOT).sections if snip_path.is_file() else {}

    def resolve(m: re.Match) -> str:
        return sections.get(m.group(1).partition(":")[2], m.group(0))

    return "\n".join(INCLUDE.sub(resolve, line) for line in lines)


def _whole(text: str) -> str:
    """A pattern for the code ``text`` as a whole, spaces around its symbols aside: ``beta = 0.04`` matches
    ``beta=0.04``, but ``beta=0.0`` is not found in ``beta=0.04``, nor ``lr=1`` in ``min_lr=1``."""
    body = r"\s*".join(re.escape(token) for token in re.findall(r"\w+|\S", text))
    before = r"(?<!\w)" if re.match(r"\w", text) else ""
    after = r"(?!\w|\.\d)" if re.search(r"\w$", text) else ""
    return before + body + after


def _check_fix_line(page: Page) -> None:
    """Every value the one-line fix names (a `code` span with '=') is in the page's Fix section as written, so
    the line cannot drift from the code the page shows and tests."""
    fix_line = page.meta.get("fix_line")
    if not fix_line:
        return
    shown = section_text(page, "fix")
    for value in fix_values(str(fix_line)):
        if not re.search(_whole(value), shown):
            page.error(
                "field 'fix_line'",
                f"`{value}` is not in the page's Fix section: name an argument and value its code or text sets, "
                "exactly as written there",
                page.field_lines.get("fix_line"),
            )


FENCE_INFO = re.compile(r'(?:python|py|python3)(?:\s+hl_lines="\d+(?:-\d+)?(?:\s+\d+(?:-\d+)?)*")?')
"""A runnable fence's info: the language, optionally ``hl_lines="3 5-6"`` (lines of the included section that the
Fix changed, highlighted on the page)."""


def _check_fences(page: Page) -> None:
    """Every Python fence is exactly one include: the page's code is what the tests run."""
    for fence in markdown_scan.fences(page.body):
        if not fence.is_python and any(INCLUDE.match(ln) for ln in fence.lines):
            page.error(
                "fence",
                f"a snippet include in a ```{fence.lang or 'plain'} fence is shown but never run: use ```python",
                page.offset + fence.line,
            )
    for line, info, lines in python_fences(page.body):
        code = [ln for ln in lines if ln.strip()]
        if len(code) == 1 and INCLUDE.match(code[0]) and FENCE_INFO.fullmatch(info.strip()):
            continue
        page.error(
            "fence",
            "a Python code fence holds exactly one include of a snippet section "
            '(--8<-- "chapter/slug.py:section"); show untested code as ```text or ```diff instead; '
            'the only attribute allowed is hl_lines="N N-M"',
            page.offset + line,
        )


ADVICE_FILE = pathlib.Path(__file__).with_name("advice.yaml")


def advice_items() -> dict[str, dict[str, str]]:
    """Every common-advice item (canonical id -> one-line paraphrase per language), in document order."""
    return yaml.safe_load(ADVICE_FILE.read_text(encoding="utf-8"))


def pitfall_pages() -> list[Page]:
    """The English pitfall pages without front-matter errors: what the per-page tests are parametrized over."""
    return [p for p in all_pages() if p.lang == "en" and p.kind == "pitfall" and not p.errors]


def all_pages() -> list[Page]:
    return [load(p) for p in sorted(DOCS.rglob("*.md"))]
