"""Imports among the handbook's modules flow one way, and no module grows past about 450 lines."""

from __future__ import annotations

import ast

from handbook import pages

HANDBOOK = pages.ROOT / "handbook"
MAX_LINES = 450


def _graph() -> dict[str, set[str]]:
    mods = {p.stem: p for p in HANDBOOK.glob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for name, path in mods.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):  # lazy imports inside functions too
            if isinstance(node, ast.ImportFrom) and node.module == "handbook":
                graph[name] |= {a.name for a in node.names if a.name in mods}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("handbook."):
                graph[name].add(node.module.split(".")[1])
            elif isinstance(node, ast.Import):
                graph[name] |= {a.name.split(".")[1] for a in node.names if a.name.startswith("handbook.")}
        graph[name].discard(name)
    return graph


def test_no_import_cycle():
    graph, done, path = _graph(), set(), []

    def visit(node):
        if node in path:
            raise AssertionError("import cycle: " + " -> ".join([*path[path.index(node) :], node]))
        if node in done:
            return
        path.append(node)
        for nxt in sorted(graph[node]):
            visit(nxt)
        path.pop()
        done.add(node)

    for node in sorted(graph):
        visit(node)


def test_the_base_modules_import_nothing_of_the_handbook_above_them():
    graph = _graph()
    assert graph["ui"] == set() and graph["markdown_scan"] == set() and graph["page_worker"] == set()
    assert graph["contract"] <= {"markdown_scan"} and graph["prose"] <= {"markdown_scan"}
    assert graph["pages"] <= {"contract", "markdown_scan", "prose", "schema", "ui"}


def test_no_module_is_too_long():
    paths = [*HANDBOOK.glob("*.py"), *(pages.ROOT / "hooks").glob("*.py"), *(pages.ROOT / "doctor").rglob("*.py")]
    long = {
        p.relative_to(pages.ROOT).as_posix(): n for p in paths if (n := len(p.read_text().splitlines())) > MAX_LINES
    }
    assert not long, f"split these modules (over {MAX_LINES} lines): {long}"


def test_every_folder_and_data_file_of_the_package_is_packaged():
    """pyproject.toml names every folder of handbook/ as a package (else setuptools warns, 40 lines at every
    `make serve`, that 'handbook.templates' is absent from its configuration) and ships its data files (a
    non-editable install without advice.yaml breaks the validator)."""
    import fnmatch

    import pytest

    tomllib = pytest.importorskip("tomllib", reason="Python 3.11 reads pyproject.toml with the standard library")
    conf = tomllib.loads((pages.ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    folders = {p.parent for p in HANDBOOK.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    names = {".".join(f.relative_to(pages.ROOT).parts) for f in folders}
    assert names == set(conf["packages"]), f"packages in pyproject.toml: {sorted(names)}"
    data = conf.get("package-data", {})
    unshipped = [
        p.relative_to(pages.ROOT).as_posix()
        for p in HANDBOOK.rglob("*")
        if p.is_file()
        and p.suffix not in (".py", ".pyc")
        and not any(fnmatch.fnmatch(p.name, g) for g in data.get(".".join(p.parent.relative_to(pages.ROOT).parts), []))
    ]
    assert not unshipped, f"data files not in package-data: {unshipped}"
