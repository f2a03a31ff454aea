"""The paste test: every pitfall page's code, pasted into a fresh file outside this repo, runs and its claim holds.

For each English pitfall page, the Python the built page shows (``contract.page_code``) is written to a
temporary file and run in a worker process where this repository cannot be imported, with
``HANDBOOK_MODEL`` pointed at the tiny local model; then ``check(seed)`` is called for each of the snippet's
``SEEDS``. A failure names the page and says whether the claim stopped holding (an assert, with its message),
the code could not run as pasted, or it raised. ``check_gpu`` / ``check_vllm`` / ``check_multiprocess`` are
collected with their marker and skipped with a reason where that hardware is missing.
"""

from __future__ import annotations

import importlib.util
import os

import pytest

from handbook import contract, harness, pages

PITFALLS = [p for p in pages.all_pages() if p.lang == "en" and p.kind == "pitfall" and p.meta.get("snippet")]
if os.environ.get("HANDBOOK_ONLY"):  # python -m handbook matrix --page: re-run only these pages
    PITFALLS = [p for p in PITFALLS if p.rel in os.environ["HANDBOOK_ONLY"].split(",")]

WHAT = {
    "claim": "the page's claim no longer holds",
    "error": "the page's check raised instead of asserting (the claim could not be checked)",
    "paste": "the page's code does not run when pasted into a fresh file",
    "contract": "the page's check broke the snippet contract",
    "timeout": "the page's check hangs",
    "crash": "the page's code crashed the Python process",
}


def _snippet(page: pages.Page) -> contract.Snippet:
    return contract.parse(contract.ROOT / page.meta["snippet"])


def _params():
    for page in PITFALLS:
        snip = _snippet(page)
        if snip.errors or not snip.seeds:
            yield pytest.param(page, None, snip.errors, id=f"{page.rel}[contract]")
            continue
        for seed in snip.seeds:
            yield pytest.param(page, seed, [], id=f"{page.rel}[seed{seed}]")


def _hardware_params():
    for page in PITFALLS:
        for func, mark in contract.HARDWARE.items():
            if func in _snippet(page).functions:
                yield pytest.param(page, func, id=f"{page.rel}::{func}", marks=getattr(pytest.mark, mark))


@pytest.fixture(scope="session")
def runner():
    r = harness.PageRunner()
    yield r
    r.close()


def _report(page: pages.Page, func: str, seed: int, res: harness.Result) -> str:
    title = page.meta.get("title", "")
    head = f"{page.rel} ({title}): {WHAT.get(res.kind, res.kind)} ({func}, seed {seed}): {res.message}"
    return "\n".join(
        x
        for x in (head, res.traceback.strip(), "--- what the page printed (tail) ---" if res.log else "", res.log)
        if x
    )


@pytest.mark.parametrize(("page", "seed", "errors"), list(_params()))
def test_page_code(runner, page, seed, errors):
    if errors or seed is None:
        pytest.fail(
            f"{page.rel}: its snippet breaks the contract:\n" + "\n".join(errors or ["no SEEDS"]), pytrace=False
        )
    reason = contract.skip_reason(page.meta)
    if reason:
        pytest.skip(f"{page.rel}: {reason}")
    res = runner.run(page.path, contract.CHECK, seed)
    if not res.ok:
        pytest.fail(_report(page, contract.CHECK, seed, res), pytrace=False)


def _have(mark: str) -> str | None:
    """Why ``mark`` cannot run here, or None if it can."""
    import torch

    if not torch.cuda.is_available():
        return f"needs a CUDA GPU ({mark}); CPU CI skips it, GPU CI runs it with HANDBOOK_MODEL set"
    if mark == "vllm" and importlib.util.find_spec("vllm") is None:
        return "needs vLLM installed"
    if mark == "multiprocess" and torch.cuda.device_count() < 2 and not os.environ.get("HANDBOOK_MULTIPROCESS"):
        return "needs 2+ GPUs or HANDBOOK_MULTIPROCESS=1"
    return None


@pytest.mark.parametrize(("page", "func"), list(_hardware_params()))
def test_page_code_hardware(runner, page, func):
    reason = contract.skip_reason(page.meta) or _have(contract.HARDWARE[func])
    if reason:
        pytest.skip(reason)
    res = runner.run(page.path, func, 0, timeout=1800)
    if not res.ok:
        pytest.fail(_report(page, func, 0, res), pytrace=False)


def test_worker_refuses_this_repository(runner, tmp_path):
    """The worker really hides this repo: a page that imports `handbook` fails as not pasteable."""
    code = tmp_path / "probe.py"
    code.write_text("import handbook\n\ndef check(seed=0):\n    return 'imported'\n", encoding="utf-8")
    res = runner.run_file(code, "check", 0)
    assert not res.ok and res.kind == "paste" and "handbook" in res.message, res


def test_out_of_range_pages_skip(monkeypatch):
    """A page whose range excludes the installed TRL/transformers is skipped with both; the matrix runs it anyway."""
    from importlib.metadata import version

    monkeypatch.delenv(contract.IGNORE_RANGES_ENV, raising=False)
    reason = contract.skip_reason({"trl": ">=99"})
    assert reason and ">=99" in reason and version("trl") in reason, reason
    assert "transformers" in (contract.skip_reason({"trl": ">=0.1", "transformers": "<1"}) or "")
    assert contract.skip_reason({"trl": f"=={version('trl')}"}) is None
    monkeypatch.setenv(contract.IGNORE_RANGES_ENV, "1")
    assert contract.skip_reason({"trl": ">=99"}) is None
