"""Walkthrough notebooks are executed by nbval (see the Makefile's test target); here we check they are
well-formed, paired, and carry their stored outputs (the site shows those, without executing anything)."""

import json
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "docs").rglob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_notebook_has_outputs_and_an_assertion(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert code, f"{path}: no code cells"
    assert all(c.get("outputs") is not None for c in code)
    assert any("image/png" in o.get("data", {}) for c in code for o in c["outputs"]), f"{path}: no stored plot"
    assert any("assert " in "".join(c["source"]) for c in code), f"{path}: nothing asserts an outcome"
    errors = [o for c in code for o in c["outputs"] if o.get("output_type") == "error"]
    assert not errors, f"{path}: stored outputs contain an error"


TWINS = [p for p in NOTEBOOKS if not p.name.endswith(".zh.ipynb")]


@pytest.mark.parametrize("path", TWINS, ids=lambda p: str(p.relative_to(ROOT)))
def test_chinese_twin_runs_the_same_code_with_the_same_outputs(path):
    """make test runs only the English notebooks through nbval: each Chinese twin's code cells and stored
    outputs are the English notebook's, so running it again would check nothing more."""
    twin = path.with_name(path.name.replace(".ipynb", ".zh.ipynb"))
    assert twin.exists(), f"{path}: no Chinese twin {twin.name}"

    def code(p):
        cells = json.loads(p.read_text(encoding="utf-8"))["cells"]
        return [("".join(c["source"]), c.get("outputs")) for c in cells if c["cell_type"] == "code"]

    en, zh = code(path), code(twin)
    assert len(en) == len(zh), f"{twin}: {len(zh)} code cells, the English notebook has {len(en)}"
    for i, ((en_src, en_out), (zh_src, zh_out)) in enumerate(zip(en, zh)):
        assert zh_src == en_src, f"{twin}: code cell {i + 1} differs from the English notebook's"
        assert zh_out == en_out, f"{twin}: the stored outputs of code cell {i + 1} differ from the English notebook's"
