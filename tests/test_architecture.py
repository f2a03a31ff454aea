"""The handbook's modules are grouped by job (handbook/__init__.py); imports among them flow one way, down the
groups, and no module grows past about 450 lines."""

from __future__ import annotations

import ast

from handbook.content import pages

HANDBOOK = pages.ROOT / "handbook"
MAX_LINES = 450
LAYERS = ("", "content", "lanes", "versions", "site")
"""The groups, lowest first ("" is the package's own base: ui, tiny, tiny_vlm; __main__ sits above them all)."""
MAX_FLAT = 25
"""More modules than this in one folder: group them by job."""


def _modules() -> dict[str, str]:
    """module name -> its group ('' for the package's top level)."""
    mods = {}
    for p in HANDBOOK.rglob("*.py"):
        rel = p.relative_to(HANDBOOK)
        if "templates" in rel.parts or p.stem == "__init__":
            continue
        group = rel.parts[0] if len(rel.parts) > 1 else ""
        assert mods.setdefault(p.stem, group) == group, f"two handbook modules named {p.stem}: rename one"
    return mods


def _graph() -> dict[str, set[str]]:
    """module -> the handbook modules it imports (lazy imports inside functions too)."""
    mods = _modules()
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for path in HANDBOOK.rglob("*.py"):
        name = path.stem
        if name not in graph:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "handbook":
                parts = node.module.split(".")[1:]
                graph[name] |= {a.name for a in node.names if a.name in mods}
                graph[name] |= {p for p in parts if p in mods}
            elif isinstance(node, ast.Import):
                graph[name] |= {
                    p for a in node.names if a.name.startswith("handbook.") for p in a.name.split(".") if p in mods
                }
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


def test_imports_flow_down_the_groups():
    mods, graph = _modules(), _graph()
    rank = {g: i for i, g in enumerate(LAYERS)}
    assert set(mods.values()) <= set(LAYERS), f"a group missing from LAYERS: {set(mods.values()) - set(LAYERS)}"
    upward = [
        f"{mods[m]}/{m} imports {mods[d]}/{d}"
        for m, deps in graph.items()
        if m != "__main__"
        for d in deps
        if rank[mods[d]] > rank[mods[m]]
    ]
    assert not upward, "imports must flow down handbook's groups: " + "; ".join(sorted(upward))


def test_no_folder_is_flat_past_its_size():
    mods = _modules()
    sizes = {g or "handbook": sum(v == g for v in mods.values()) for g in set(mods.values())}
    assert max(sizes.values()) <= MAX_FLAT, f"group these modules by job: {sizes}"


def test_the_base_modules_import_nothing_of_the_handbook_above_them():
    graph = _graph()
    assert graph["ui"] == set() and graph["markdown_scan"] == set() and graph["page_worker"] == set()
    assert graph["tiny"] == set() and graph["tiny_vlm"] <= {"tiny"}
    assert graph["contract"] <= {"markdown_scan"} and graph["prose"] <= {"markdown_scan"}
    assert graph["pages"] <= {"contract", "markdown_scan", "prose", "schema", "ui"}


def test_no_module_is_too_long():
    paths = [*HANDBOOK.rglob("*.py"), *(pages.ROOT / "hooks").glob("*.py"), *(pages.ROOT / "doctor").rglob("*.py")]
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
