"""A pytest plugin: a pitfall page is a test file. ``pytest docs/online-rl/grpo-zero-std-group.md`` runs it.

Each English pitfall page with a snippet is collected as one node with one item per seed of its ``SEEDS``
(``docs/…/page.md::seed0``), plus one item per hardware entry point (``::check_gpu`` with the ``gpu`` marker,
…). An item writes the Python the built page shows (``contract.page_code``) to a fresh file outside the
repository, runs ``check(seed)`` in a worker process that cannot import this repository, with ``MODEL``
pointed at the tiny test model unless ``HANDBOOK_MODEL`` is set, and fails with a report that names the page
and says whether the claim stopped holding, the code did not run as pasted, or it raised (``repr_failure``).
A page whose ``trl:``/``transformers:`` range excludes the installed version is skipped with both; a check that
raises a known defect of the installed release (``contract.RELEASE_DEFECTS``) is skipped with its reason.

Registered by the repository's ``conftest.py`` (``pytest_plugins``), like pytest's doctest plugin or nbval.
"""

from __future__ import annotations

import importlib.util
import os
import pathlib

import pytest

from handbook.content import contract, pages
from handbook.lanes import harness

WHAT = {
    "claim": "the page's claim no longer holds",
    "error": "the page's check raised instead of asserting (the claim could not be checked)",
    "paste": "the page's code does not run when pasted into a fresh file",
    "contract": "the page's check broke the snippet contract",
    "timeout": "the page's check hangs",
    "crash": "the page's code crashed the Python process",
    "collapsed": "the check passed on a run that is not evidence (the model did not train sanely)",
}

_RUNNER: harness.PageRunner | None = None


def runner() -> harness.PageRunner:
    """The worker process of this pytest process (one per xdist worker), started on first use."""
    global _RUNNER
    if _RUNNER is None:
        _RUNNER = harness.PageRunner()
    return _RUNNER


def pytest_sessionfinish(session, exitstatus):
    global _RUNNER
    if _RUNNER is not None:
        _RUNNER.close()
        _RUNNER = None


def pytest_collect_file(file_path: pathlib.Path, parent):
    if file_path.suffix != ".md" or file_path.name.endswith(".zh.md"):
        return None
    try:
        file_path.resolve().relative_to(pages.DOCS)
    except ValueError:
        return None
    page = pages.load(file_path)
    if page.kind != "pitfall" or not page.meta.get("snippet"):
        return None
    return PageFile.from_parent(parent, path=file_path, page=page)


LAUNCHERS = ("torchrun", "subprocess")
"""Words of a snippet that starts processes of its own: such a check takes tens of seconds (imports in every process,
a timeout it waits out)."""


def launches_processes(page: pages.Page) -> bool:
    return any(word in (contract.ROOT / page.meta["snippet"]).read_text(encoding="utf-8") for word in LAUNCHERS)


def pytest_collection_modifyitems(items):
    """Pages that start processes run first: started last on one xdist worker, such a check would leave the other
    worker idle at the end of the run. The order is otherwise kept (a stable sort)."""
    page_files = {item.parent for item in items if isinstance(item, PageItem)}
    slow = {f for f in page_files if launches_processes(f.page)}
    items.sort(key=lambda item: item.parent not in slow)


class PageFailure(Exception):
    """A page's check did not pass; the message is the whole report."""


class PageFile(pytest.File):
    def __init__(self, *, page: pages.Page, **kwargs):
        super().__init__(**kwargs)
        self.page = page

    def collect(self):
        snip = contract.parse(contract.ROOT / self.page.meta["snippet"])
        if snip.errors or not snip.seeds:
            yield PageItem.from_parent(self, name="contract", func=None, seed=0, errors=snip.errors or ["no SEEDS"])
            return
        for seed in snip.seeds:
            yield PageItem.from_parent(self, name=f"seed{seed}", func=contract.CHECK, seed=seed)
        for func, mark in contract.HARDWARE.items():
            if func in snip.functions:
                item = PageItem.from_parent(self, name=func, func=func, seed=0)
                item.add_marker(getattr(pytest.mark, mark))
                yield item


class PageItem(pytest.Item):
    def __init__(self, *, func: str | None, seed: int, errors: list[str] | None = None, **kwargs):
        super().__init__(**kwargs)
        self.func, self.seed, self.errors = func, seed, errors or []
        self.page: pages.Page = self.parent.page

    def runtest(self):
        if self.func is None:
            raise PageFailure(f"{self.page.rel}: its snippet breaks the contract:\n" + "\n".join(self.errors))
        hardware = contract.HARDWARE.get(self.func)
        reason = contract.skip_reason(self.page.meta) or (missing_hardware(hardware) if hardware else None)
        if reason:
            pytest.skip(f"{self.page.rel}: {reason}")
        res = runner().run(self.page.path, self.func, self.seed, timeout=1800 if hardware else harness.TIMEOUT)
        if not res.ok:
            defect = contract.release_defect(res.message) if res.kind in ("error", "claim") else None
            if defect:
                pytest.skip(f"{self.page.rel}: {defect}")
            raise PageFailure(report(self.page, self.func, self.seed, res))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, PageFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.path, None, f"{self.page.rel}::{self.name}"


def report(page: pages.Page, func: str, seed: int, res: harness.Result) -> str:
    title = page.meta.get("title", "")
    head = f"{page.rel} ({title}): {WHAT.get(res.kind, res.kind)} ({func}, seed {seed}): {res.message}"
    tail = "--- what the page printed (tail) ---" if res.log else ""
    return "\n".join(x for x in (head, res.traceback.strip(), tail, res.log) if x)


def missing_hardware(mark: str) -> str | None:
    """Why ``mark`` cannot run here, or None if it can."""
    import torch

    if not torch.cuda.is_available():
        return f"needs a CUDA GPU ({mark}); CPU CI skips it, GPU CI runs it with HANDBOOK_MODEL set"
    if mark == "vllm" and importlib.util.find_spec("vllm") is None:
        return "needs vLLM installed"
    if mark == "multiprocess" and torch.cuda.device_count() < 2 and not os.environ.get("HANDBOOK_MULTIPROCESS"):
        return "needs 2+ GPUs or HANDBOOK_MULTIPROCESS=1"
    return None
