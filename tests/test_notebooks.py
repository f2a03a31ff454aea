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
