"""The snippet contract: what a snippet is, in one place.

A pitfall page shows code a reader can copy: every Python block of the page, pasted in order into one fresh
file, runs with TRL installed. Those blocks are included from ``snippets/<chapter>/<slug>.py`` by named
section, so the snippet file *is* what the page shows:

- The file is a module docstring followed by named sections (``# --8<-- [start:NAME]`` … ``[end:NAME]``),
  nothing else. NAME is a page section anchor (``symptom``, ``why``, ``fix``, ``evidence``), optionally with a
  ``-suffix`` (``evidence-run``). The page includes every section once, in file order, under the heading whose
  anchor NAME starts with; ``fix`` and ``evidence`` are required.
- The code imports what it uses, defines every name, and imports nothing from this repository.
- The model is one visible variable, read from one environment variable with a real default::

      MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

  The test suite points ``HANDBOOK_MODEL`` at the tiny local model; GPU CI at a small real one.
- The last section defines ``check(seed: int = 0) -> str``: it runs the symptom and the fix (or reads the TRL
  fact), asserts on what it observed with a message naming the claim, and returns a one-line verdict. It
  ends with ``SEEDS`` (the seeds the suite runs) and the main block ``MAIN_BLOCK``. Optional
  ``check_gpu`` / ``check_vllm`` / ``check_multiprocess`` run only where that hardware exists.

The validator (``handbook.content.pages``), the page tests (``handbook/lanes/pytest_pages.py``) and the CLI all read the
contract from here.
"""

from __future__ import annotations

import ast
import pathlib
import re
from dataclasses import dataclass, field

from handbook.content import markdown_scan

ROOT = pathlib.Path(__file__).resolve().parents[2]
SNIPPETS = ROOT / "snippets"

ANCHORS = ("symptom", "why", "fix", "evidence")
"""Page sections a snippet section may be shown under, in page order."""
REQUIRED = ("fix", "evidence")
SECTION_NAME = re.compile(r"[a-z]+(?:-[a-z0-9]+)?")
START = re.compile(r"^\s*#\s*--8<--\s*\[start:([^\]]*)\]\s*$")
END = re.compile(r"^\s*#\s*--8<--\s*\[end:([^\]]*)\]\s*$")

CHECK = "check"
"""The entry point: ``check(seed: int = 0) -> str``."""
HARDWARE = {"check_gpu": "gpu", "check_vllm": "vllm", "check_multiprocess": "multiprocess"}
"""Optional entry points -> the pytest marker (and hardware) they need."""

MODEL_ENV = "HANDBOOK_MODEL"
MODEL_DEFAULT = "Qwen/Qwen2.5-0.5B-Instruct"
MODEL_LINE = f'MODEL = os.environ.get("{MODEL_ENV}", "{MODEL_DEFAULT}")'
LR_SCALE_ENV = "HANDBOOK_LR_SCALE"
LR_SCALE_LINE = f'LR_SCALE = float(os.environ.get("{LR_SCALE_ENV}", "1"))'
"""How a page multiplies the learning rates it shows for a real model when it runs on the tiny test model: the
2-layer, 32-wide toy needs a few hundred times a real model's rate to move in a few steps. A reader's copy
leaves it at 1; the harness sets it (``harness.TINY_LR_SCALE``) only when it points ``MODEL`` at the toy."""
VLM_ENV, VLM_DEFAULT = "HANDBOOK_VLM", "Qwen/Qwen2-VL-2B-Instruct"  # a vision-language page's model (tiny_vlm.py)
VLM_LINE = f'VLM = os.environ.get("{VLM_ENV}", "{VLM_DEFAULT}")'
MAIN_BLOCK = 'if __name__ == "__main__":\n    for seed in SEEDS:\n        print(check(seed))'

MAX_LINE = 88
"""The widest line of code a page shows, in columns (a CJK character counts 2, as in ruff's E501): at 1366 px
a code block of the site shows it whole, without scrolling. ``snippets/ruff.toml`` formats to it."""

FORBIDDEN_IMPORTS = ("handbook", "tests", "hooks", "conftest", "snippets")
"""Top-level packages of this repository: page code must not import them."""


VERSIONED = ("trl", "transformers")
"""Front-matter fields that hold a PEP 440 range of that package: outside it a page is skipped."""


def out_of_range(meta: dict, stack: dict[str, str] | None = None) -> str | None:
    """Why the installed TRL/transformers (or those of ``stack``, e.g. a matrix column) is outside the page's
    ranges, or None when the page applies. A package the stack does not name is not judged."""
    from importlib.metadata import PackageNotFoundError, version

    from packaging.specifiers import SpecifierSet

    for dist in VERSIONED:
        spec = meta.get(dist)
        if not spec:
            continue
        if stack is not None:
            installed = stack.get(dist)
            if installed is None:
                continue
        else:
            try:
                installed = version(dist)
            except PackageNotFoundError:
                return f"{dist} is not installed"
        if not SpecifierSet(spec).contains(installed, prereleases=True):
            where = "installed" if stack is None else "the stack's"
            return f"the page holds for {dist}{spec}; {where} {dist} is {installed}"
    return None


IGNORE_RANGES_ENV = "HANDBOOK_IGNORE_RANGES"
"""Set by the version matrix, which runs every page on every release and records the outcome."""


def skip_reason(meta: dict) -> str | None:
    """Why a test that runs the page's code skips it here: outside its ranges (unless the matrix is running)."""
    import os

    return None if os.environ.get(IGNORE_RANGES_ENV) else out_of_range(meta)


@dataclass(frozen=True)
class ReleaseDefect:
    """A TRL release that breaks every page of a kind on some machines: a defect of the release, not of a page.

    Where it applies, a page whose check raises ``error`` is skipped with ``reason`` instead of failing (by the
    suite and by the matrix alike), so a reader on that release sees why, and the page's range stays the range
    its code was observed to hold on.
    """

    dist: str
    spec: str
    error: str
    reason: str
    reason_zh: str
    missing_module: str = ""  # applies only where this module cannot be imported ("" = everywhere)

    def applies_to(self, version: str) -> bool:
        """Whether ``version`` of ``dist`` is one of the defective releases."""
        from packaging.specifiers import SpecifierSet

        return bool(version) and SpecifierSet(self.spec).contains(version, prereleases=True)

    def applies(self, installed: str) -> bool:
        """Whether the defect bites here: the installed release, on a machine without ``missing_module``."""
        import importlib.util

        if not self.applies_to(installed):
            return False
        return not self.missing_module or importlib.util.find_spec(self.missing_module) is None


RELEASE_DEFECTS = (
    ReleaseDefect(
        dist="trl",
        spec="==1.15.0",
        error="'NoneType' object has no attribute 'apply'",
        missing_module="triton",
        reason=(
            "TRL 1.15.0 needs Triton on this machine: every trainer computes log-probabilities with a fused LM "
            "head whose kernel import (trl/trainer/utils.py) falls back to None without Triton (CPU-only torch, "
            "macOS, Windows), so training raises AttributeError: 'NoneType' object has no attribute 'apply'. "
            "TRL 1.16.0 ships a PyTorch fallback: upgrade"
        ),
        reason_zh=(
            "TRL 1.15.0 在这台机器上需要 Triton：每个 trainer 都用融合 LM head 计算 log-prob，而它的 kernel 导入"
            "（trl/trainer/utils.py）在没有 Triton 时（仅 CPU 的 torch、macOS、Windows）退化为 None，于是训练报 "
            "AttributeError: 'NoneType' object has no attribute 'apply'。TRL 1.16.0 带了纯 PyTorch 的实现：请升级"
        ),
    ),
)
"""Known release defects; each is reproduced by the version matrix (compat/trl-matrix.json)."""


def release_defect(message: str) -> str | None:
    """The reason to skip a page whose check raised ``message`` on the installed release, or None."""
    from importlib.metadata import PackageNotFoundError, version

    for defect in RELEASE_DEFECTS:
        try:
            installed = version(defect.dist)
        except PackageNotFoundError:
            continue
        if defect.error in message and defect.applies(installed):
            return f"{defect.dist} {installed}: {defect.reason}"
    return None


MAX_BYTES = 256 * 1024
"""A page or snippet larger than this is refused (a real one is under 20 KB)."""


def read_text(path: pathlib.Path) -> tuple[str | None, str | None]:
    """``(text, problem)``: the file as UTF-8 text with LF line ends, or why it is refused."""
    try:
        if path.is_symlink():
            return None, "is a symbolic link: pages and snippets must be plain files in the repository"
        data = path.read_bytes()
    except OSError as e:
        return None, f"cannot be read ({e.strerror})"
    if len(data) > MAX_BYTES:
        return None, f"is {len(data)} bytes; the limit is {MAX_BYTES}"
    if data.startswith(b"\xef\xbb\xbf"):
        return None, "starts with a UTF-8 byte-order mark: save it as UTF-8 without BOM"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        return None, f"is not UTF-8 (line {line}, byte {e.start}): save it as UTF-8"
    if "\r" in text:
        return None, "has CR (Windows or old Mac) line endings: use LF"
    return text, None


def anchor_of(section: str) -> str:
    """The page section (heading anchor) a snippet section is shown under: ``evidence-run`` -> ``evidence``."""
    return section.split("-", 1)[0]


@dataclass
class Snippet:
    """A parsed snippet file. ``errors`` are ``file:line: field: message`` strings; parsing never raises."""

    path: pathlib.Path
    root: pathlib.Path = ROOT  # file names in errors are relative to this
    sections: dict[str, str] = field(default_factory=dict)  # name -> code (dedented), in file order
    seeds: tuple[int, ...] = ()
    functions: set[str] = field(default_factory=set)
    uses_model: bool = False
    errors: list[str] = field(default_factory=list)

    @property
    def rel(self) -> str:
        return str(self.path.relative_to(self.root)) if self.path.is_relative_to(self.root) else str(self.path)

    @property
    def code(self) -> str:
        """All sections in file order: exactly what a page that includes them all shows."""
        return "\n\n".join(s.rstrip("\n") for s in self.sections.values()) + "\n"

    def error(self, line: int | None, where: str, msg: str) -> None:
        loc = f"{self.rel}:{line}" if line else self.rel
        self.errors.append(f"{loc}: {where}: {msg}")


def _dedent(lines: list[str]) -> str:
    import textwrap

    return textwrap.dedent("\n".join(lines))


def parse(path: pathlib.Path, root: pathlib.Path = ROOT) -> Snippet:
    """Read a snippet file and check it against the contract (never raises on bad input)."""
    snip = Snippet(path=path, root=root)
    text, problem = read_text(path)
    if problem:
        snip.error(None, "file", problem)
        return snip
    spans = _sections(snip, text.splitlines())
    _check_section_order(snip)
    try:
        tree = ast.parse(text, filename=str(path))
    except SyntaxError as e:
        snip.error(e.lineno, "syntax", e.msg)
        return snip
    inside = lambda n: any(a <= n.lineno and n.end_lineno <= b for _, a, b in spans)  # noqa: E731
    for k, node in enumerate(tree.body):
        is_doc = k == 0 and isinstance(node, ast.Expr) and isinstance(getattr(node, "value", None), ast.Constant)
        if not is_doc and not inside(node):
            snip.error(node.lineno, "sections", "code outside a named section is never shown on the page")
    _check_code(snip, tree)
    return snip


def _sections(snip: Snippet, lines: list[str]) -> list[tuple[str, int, int]]:
    """Read the named sections into ``snip.sections``; their spans: name, first code line (1-based), last line."""
    spans: list[tuple[str, int, int]] = []
    current: tuple[str, int] | None = None
    body: list[str] = []
    for i, line in enumerate(lines, 1):
        if m := START.match(line):
            if current:
                snip.error(i, "sections", f"[start:{m.group(1)}] inside section {current[0]!r}")
                continue
            name = m.group(1)
            if not SECTION_NAME.fullmatch(name) or anchor_of(name) not in ANCHORS:
                snip.error(i, "sections", f"section name {name!r} must be one of {list(ANCHORS)}, optionally '-suffix'")
            if name in snip.sections:
                snip.error(i, "sections", f"section {name!r} appears twice")
            current, body = (name, i + 1), []
        elif m := END.match(line):
            if not current or m.group(1) != current[0]:
                snip.error(i, "sections", f"[end:{m.group(1)}] does not close the open section")
                continue
            snip.sections[current[0]] = _dedent(body)
            spans.append((current[0], current[1], i - 1))
            _check_width(snip, snip.sections[current[0]], current[1])
            current = None
        elif current:
            body.append(line)
    if current:
        snip.error(current[1] - 1, "sections", f"section {current[0]!r} is never closed")
    return spans


def _check_width(snip: Snippet, code: str, first: int) -> None:
    """Every line a page shows fits ``MAX_LINE`` columns (``first``: the file line of the section's first line)."""
    import unicodedata

    for k, line in enumerate(code.splitlines()):
        if (width := sum(1 + (unicodedata.east_asian_width(c) in "WF") for c in line)) > MAX_LINE:
            snip.error(
                first + k,
                "line-length",
                f"{width} characters wide; a page shows at most {MAX_LINE} without scrolling: move a trailing "
                "comment above the line, wrap the comment, split the string (implicit concatenation), then "
                "`ruff format`",
            )


def _check_section_order(snip: Snippet) -> None:
    order = [anchor_of(n) for n in snip.sections]
    if order != sorted(order, key=ANCHORS.index) if all(a in ANCHORS for a in order) else False:
        snip.error(
            None, "sections", f"sections must follow the page order {list(ANCHORS)}; found {list(snip.sections)}"
        )
    for need in REQUIRED:
        if need not in order:
            snip.error(None, "sections", f"has no {need!r} section")


def _check_code(snip: Snippet, tree: ast.Module) -> None:
    _check_imports_and_asserts(snip, tree)
    _check_entry_points(snip, tree)
    _check_seeds(snip, tree)
    last = list(snip.sections.values())[-1] if snip.sections else ""
    if not last.rstrip().endswith(MAIN_BLOCK):
        snip.error(None, "main", "the last section must end with the main block:\n" + MAIN_BLOCK)


def _check_imports_and_asserts(snip: Snippet, tree: ast.Module) -> None:
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module]
        for name in names:
            if name.split(".")[0] in FORBIDDEN_IMPORTS:
                snip.error(node.lineno, "imports", f"imports {name!r} from this repository: a reader cannot paste that")
        if isinstance(node, ast.ImportFrom) and node.level:
            snip.error(node.lineno, "imports", "relative import: a reader cannot paste that")
        if isinstance(node, ast.Assert) and node.msg is None:
            snip.error(node.lineno, "assert", "has no message: say which claim of the page failed")


def _check_entry_points(snip: Snippet, tree: ast.Module) -> None:
    """``check(seed)``, and the one-line ``MODEL`` and ``LR_SCALE`` settings a reader edits."""
    top = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    snip.functions = set(top)
    if CHECK not in top:
        snip.error(None, "check", f"defines no top-level {CHECK}(seed: int = 0) -> str")
    else:
        args = top[CHECK].args
        if [a.arg for a in args.args] != ["seed"] or len(args.defaults) != 1:
            snip.error(top[CHECK].lineno, "check", f"must be declared as {CHECK}(seed: int = 0)")
    model_lines = [ln for ln in snip.code.splitlines() if re.match(r"^MODEL\s*=", ln)]
    snip.uses_model = bool(model_lines) or MODEL_ENV in snip.code
    if snip.uses_model and model_lines != [MODEL_LINE]:
        snip.error(None, "model", f"the model must be one top-level line, exactly: {MODEL_LINE}")
    if VLM_ENV in snip.code and [ln for ln in snip.code.splitlines() if re.match(r"^VLM\s*=", ln)] != [VLM_LINE]:
        snip.error(None, "model", f"the vision-language model must be one top-level line, exactly: {VLM_LINE}")
    scale_lines = [ln for ln in snip.code.splitlines() if re.match(r"^LR_SCALE\s*=", ln)]
    if (scale_lines or LR_SCALE_ENV in snip.code) and scale_lines != [LR_SCALE_LINE]:
        snip.error(None, "LR_SCALE", f"the learning-rate scale must be one top-level line, exactly: {LR_SCALE_LINE}")


def _check_seeds(snip: Snippet, tree: ast.Module) -> None:
    seeds = [
        n for n in tree.body if isinstance(n, ast.Assign) and any(getattr(t, "id", None) == "SEEDS" for t in n.targets)
    ]
    if len(seeds) != 1:
        snip.error(None, "SEEDS", "define SEEDS = (0, 1, ...) once, at the top level of the last section")
    else:
        try:
            value = ast.literal_eval(seeds[0].value)
        except ValueError:
            value = None
        if not (isinstance(value, tuple) and value and all(type(s) is int and s >= 0 for s in value)):
            snip.error(
                seeds[0].lineno,
                "SEEDS",
                f"must be a non-empty tuple of non-negative ints, got {ast.unparse(seeds[0].value)}",
            )
        else:
            snip.seeds = value


def page_hash(markdown_path: pathlib.Path) -> str:
    """The hash of the code a page shows: what a matrix row, a run record or a real-model row was taken for.

    It hashes what the code does, not how it is laid out (``code_fingerprint``): re-wrapping a line, moving or
    rewording a comment or a docstring, splitting a string in two leave a record current; changing a value, a
    name or a statement makes it stale."""
    import hashlib

    return hashlib.sha256(code_fingerprint(page_code(markdown_path)).encode("utf-8")).hexdigest()[:16]


def code_fingerprint(code: str) -> str:
    """A normal form of Python source: its syntax tree without docstrings, dumped like ``ast.dump`` but without
    fields that are None or empty (as 3.13 does; newer versions add such fields), so that it is the same on every
    Python. Layout, comments, docstrings and implicit concatenation (``"a" "b"`` is ``"ab"``, split f-strings
    too) do not count. Code that does not parse is its own text."""

    def dump(node: object) -> str:
        if isinstance(node, list):
            return "[" + ", ".join(map(dump, node)) + "]"
        if not isinstance(node, ast.AST):
            return repr(node)
        skip = isinstance(node, _HAS_DOCSTRING) and ast.get_docstring(node, clean=False) is not None
        fields = ((k, v[1:] if skip and k == "body" else v) for k, v in ast.iter_fields(node))
        return f"{type(node).__name__}({', '.join(f'{k}={dump(v)}' for k, v in fields if v not in (None, []))})"

    try:
        return dump(ast.parse(code))
    except SyntaxError:
        return code


_HAS_DOCSTRING = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def page_code(markdown_path: pathlib.Path) -> str:
    """The Python a built page shows, in page order: its fences with includes resolved as the site does."""
    return "\n\n".join(code for _, code in page_blocks(markdown_path)) + "\n"


def page_blocks(markdown_path: pathlib.Path) -> list[tuple[int, str]]:
    """(line, code) of every Python fence of a page after pymdownx.snippets resolved its includes."""
    import textwrap

    import markdown

    md = markdown.Markdown(
        extensions=["pymdownx.snippets"],
        extension_configs={
            "pymdownx.snippets": {"base_path": [str(SNIPPETS)], "check_paths": True, "dedent_subsections": True}
        },
    )
    text = markdown_path.read_text(encoding="utf-8")
    if text.startswith("---\n"):
        end = text.find("\n---\n", 4)
        text = "\n" * text[: end + 5].count("\n") + text[end + 5 :] if end > 0 else text
    out = []
    for fence in markdown_scan.fences(text):
        if fence.is_python and fence.end is not None:
            resolved = md.preprocessors["snippet"].run(fence.lines)
            out.append((fence.line, textwrap.dedent("\n".join(resolved)).strip("\n")))
    return out
