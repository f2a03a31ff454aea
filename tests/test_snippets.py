"""Run every snippet's ``verify(seed)``: the symptom is observed and the fix works, or the TRL fact holds.

One parametrised test collects every ``snippets/<chapter>/<slug>.py``. A failure names the page whose claim
stopped holding. Optional ``verify_gpu`` / ``verify_vllm`` / ``verify_multiprocess`` functions are collected
with the matching marker and skipped here with a reason when the hardware is missing.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
SNIPPETS = sorted(p for p in (ROOT / "snippets").rglob("*.py") if not p.name.startswith("_"))
EXTRA = {"verify_gpu": "gpu", "verify_vllm": "vllm", "verify_multiprocess": "multiprocess"}


def _load(path: pathlib.Path):
    name = "snippet_" + "_".join(path.relative_to(ROOT / "snippets").with_suffix("").parts).replace("-", "_")
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _seeds(path: pathlib.Path) -> tuple[int, ...]:
    """The snippet's ``SEEDS`` (default 0, 1, 2), read without importing torch at collection time."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "SEEDS" for t in node.targets):
            seeds = ast.literal_eval(node.value)
            if not (isinstance(seeds, tuple) and seeds and all(isinstance(s, int) for s in seeds)):
                raise ValueError(f"{path}: SEEDS must be a non-empty tuple of ints, got {seeds!r}")
            return seeds
    return (0, 1, 2)


def _page(path: pathlib.Path) -> str:
    return "docs/" + path.relative_to(ROOT / "snippets").with_suffix(".md").as_posix()


def _params():
    for path in SNIPPETS:
        page = _page(path)
        for seed in _seeds(path):
            yield pytest.param(path, seed, id=f"{page}[seed{seed}]")


def _extra_params():
    for path in SNIPPETS:
        text = path.read_text(encoding="utf-8")
        for func, mark in EXTRA.items():
            if f"def {func}(" in text:
                yield pytest.param(path, func, id=f"{_page(path)}::{func}", marks=getattr(pytest.mark, mark))


@pytest.mark.parametrize(("path", "seed"), list(_params()))
def test_snippet(path, seed):
    module = _load(path)
    try:
        message = module.verify(seed)
    except AssertionError as e:
        pytest.fail(f"{_page(path)}: the page's claim no longer holds (seed {seed}): {e}", pytrace=True)
    assert isinstance(message, str) and message, f"{path}: verify() must return a one-line verdict"


def _have(mark: str) -> str | None:
    """Why ``mark`` cannot run here, or None if it can."""
    try:
        import torch
    except ImportError:
        return "torch is not installed"
    if not torch.cuda.is_available():
        return f"needs a CUDA GPU ({mark}); CPU CI skips it, GPU CI runs it with HANDBOOK_DEVICE=cuda"
    if mark == "vllm" and importlib.util.find_spec("vllm") is None:
        return "needs vLLM installed"
    if mark == "multiprocess" and torch.cuda.device_count() < 2 and not os.environ.get("HANDBOOK_MULTIPROCESS"):
        return "needs 2+ GPUs or HANDBOOK_MULTIPROCESS=1"
    return None


@pytest.mark.parametrize(("path", "func"), list(_extra_params()))
def test_snippet_hardware(path, func):
    reason = _have(EXTRA[func])
    if reason:
        pytest.skip(reason)
    module = _load(path)
    message = getattr(module, func)(0)
    assert isinstance(message, str) and message
