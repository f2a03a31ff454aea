"""The page runner hands each page the model and learning-rate scale of its lane (``handbook.lanes.harness``)."""

from __future__ import annotations

import ast
import json
import os
import pathlib
import subprocess
import sys

import pytest

from handbook.content import contract
from handbook.lanes import harness, pytest_pages

PROBE = """import os

def check(seed: int = 0) -> str:
    return os.environ["HANDBOOK_MODEL"] + " | " + os.environ["HANDBOOK_LR_SCALE"]
"""


VLM_PROBE = """import os

def check(seed: int = 0) -> str:
    return os.environ.get("HANDBOOK_VLM", "unset")
"""


@pytest.mark.parametrize(
    ("model", "scale"),
    [(None, str(harness.TINY_LR_SCALE)), ("/some/real/model", "1")],
    ids=["tiny-lane", "real-lane"],
)
def test_each_lane_hands_pages_its_model_lr_scale_and_vlm(tmp_path, monkeypatch, model, scale):
    """The learning-rate scale is the toy factor only on the tiny model. A page that reads HANDBOOK_VLM gets the tiny
    LLaVA next to the tiny text model; a real lane leaves it unset (the page's default, a hub id, which an offline
    CPU lane cannot load: such pages are pending there). One worker per lane runs both probes."""
    monkeypatch.delenv(contract.MODEL_ENV, raising=False)
    monkeypatch.delenv(contract.VLM_ENV, raising=False)
    probe, vlm_probe = tmp_path / "probe.py", tmp_path / "vlm_probe.py"
    probe.write_text(PROBE, encoding="utf-8")
    vlm_probe.write_text(VLM_PROBE, encoding="utf-8")
    # the tiny lane: the worker this process's pages run in (one start per process); a real lane: its own worker
    runner = harness.PageRunner(model) if model else pytest_pages.runner()
    try:
        res, vlm = (runner.run_file(path, "check", 0, timeout=120) for path in (probe, vlm_probe))
    finally:
        if model:
            runner.close()
    assert res.ok, res.message
    seen_model, seen_scale = res.message.split(" | ")
    assert seen_scale == scale
    assert (seen_model == model) if model else ("tiny-qwen2" in seen_model)
    assert vlm.ok, vlm.message
    if model:
        assert vlm.message == "unset"
    else:
        assert "tiny-llava" in vlm.message
        config = json.loads((pathlib.Path(vlm.message) / "config.json").read_text(encoding="utf-8"))
        assert config["model_type"] == "llava", config["model_type"]
        assert (pathlib.Path(vlm.message) / "processor_config.json").exists() or any(
            pathlib.Path(vlm.message).glob("*processor*.json")
        ), "the tiny VLM is saved with its processor"


def test_vlm_line_is_validated():
    """A snippet that reads HANDBOOK_VLM must name it in the one VLM line, like MODEL."""
    good = contract.Snippet(path=pathlib.Path("x.py"), sections={"evidence": f"import os\n{contract.VLM_LINE}\n"})
    wrong = 'import os\nVLM = os.environ.get("HANDBOOK_VLM", "some/other")\n'
    bad = contract.Snippet(path=pathlib.Path("x.py"), sections={"evidence": wrong})
    for snip in (good, bad):
        contract._check_entry_points(snip, ast.parse(snip.code))
    assert not [e for e in good.errors if "vision-language" in str(e)], good.errors
    assert [e for e in bad.errors if "vision-language" in str(e)], bad.errors


HOSTILE = """import shutil

from datasets import Dataset
from datasets.fingerprint import get_temporary_cache_files_directory


def check(seed: int = 0) -> str:
    Dataset.from_list([{"x": 1}]).map(lambda r: {"y": r["x"] + 1})
    shutil.rmtree(get_temporary_cache_files_directory())  # a page that removes datasets' temp cache under others
    return "removed"
"""

VICTIM = """from datasets import Dataset


def check(seed: int = 0) -> str:
    rows = Dataset.from_list([{"x": i} for i in range(8)]).map(lambda r: {"y": r["x"] * 2})
    rows = rows.map(lambda r: {"z": r["y"] + 1})  # writes next to the first map's cache file
    return str(sum(rows["z"]))
"""


@pytest.mark.parametrize("order", [("victim", "hostile", "victim"), ("hostile", "victim", "hostile", "victim")])
def test_one_page_never_loses_another_pages_files(tmp_path, monkeypatch, order):
    """Pages run back to back in one worker, in either order: each run has its own temp folder and datasets cache."""
    monkeypatch.delenv(contract.MODEL_ENV, raising=False)
    files = {name: tmp_path / f"{name}.py" for name in ("victim", "hostile")}
    files["victim"].write_text(VICTIM, encoding="utf-8")
    files["hostile"].write_text(HOSTILE, encoding="utf-8")
    runner = pytest_pages.runner()  # the worker this process's pages run in: they are what the victim stands for
    results = [runner.run_file(files[name], "check", 0, timeout=120) for name in order]
    assert all(r.ok for r in results), [(r.kind, r.message) for r in results]
    assert [r.message for r, name in zip(results, order) if name == "victim"] == ["64"] * order.count("victim")


def test_tiny_prints_only_the_model_path(tmp_path):
    """`HANDBOOK_MODEL=$(python -m handbook tiny)` (the Makefile's notebook chain, CONTRIBUTING): stdout is the path
    alone, also on the first call, which builds the model and imports DeepSpeed (its logger writes to stdout)."""
    env = dict(os.environ, HANDBOOK_CACHE=str(tmp_path))
    out = subprocess.run(
        [sys.executable, "-m", "handbook", "tiny"], env=env, capture_output=True, text=True, timeout=300, check=True
    ).stdout
    assert len(out.splitlines()) == 1, out
    assert pathlib.Path(out.strip()).parent == tmp_path and (pathlib.Path(out.strip()) / "config.json").exists(), out
