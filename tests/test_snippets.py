"""The page runner on its own (the pages themselves are collected from docs/ by ``handbook/lanes/pytest_pages.py``).

``pytest docs`` (or ``pytest docs/online-rl/grpo-zero-std-group.md``) pastes each pitfall page's code into a
fresh file outside this repo and runs ``check(seed)`` for every seed; this file tests what that relies on.
"""

from __future__ import annotations

import pytest

from handbook.content import contract
from handbook.lanes import pytest_pages


@pytest.fixture(scope="module")
def runner():
    """The tiny lane's worker the pages of this pytest process run in (started once per process, not per test)."""
    return pytest_pages.runner()


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


def test_a_known_release_defect_skips_only_its_error_on_its_release(monkeypatch):
    """TRL 1.15.0 without Triton: the check's AttributeError becomes a skip naming the release and the upgrade;
    another error on 1.15.0, or the same error on 1.16.0 or where Triton imports, still fails."""
    import importlib.metadata
    import importlib.util

    real_version, real_find = importlib.metadata.version, importlib.util.find_spec
    error = "AttributeError: 'NoneType' object has no attribute 'apply'"

    def on(trl: str, triton: bool):
        monkeypatch.setattr(importlib.metadata, "version", lambda d: trl if d == "trl" else real_version(d))
        monkeypatch.setattr(
            importlib.util, "find_spec", lambda n, *a: (object() if triton else None) if n == "triton" else real_find(n)
        )

    on("1.15.0", triton=False)
    reason = contract.release_defect(error)
    assert reason and reason.startswith("trl 1.15.0:") and "1.16.0" in reason and "Triton" in reason, reason
    assert contract.release_defect("claim: the fixed function trains, got " + repr(error)) == reason
    assert contract.release_defect("AttributeError: 'list' object has no attribute 'strip'") is None
    on("1.16.0", triton=False)
    assert contract.release_defect(error) is None
    on("1.15.0", triton=True)
    assert contract.release_defect(error) is None


def test_a_page_is_a_test_file(pytester_pages):
    """`pytest docs/<page>.md` collects one item per seed of the page's SEEDS, named after the seed."""
    items = pytester_pages("docs/online-rl/grpo-zero-std-group.md")
    snip = contract.parse(contract.ROOT / "snippets/online-rl/grpo-zero-std-group.py")
    assert items == [f"docs/online-rl/grpo-zero-std-group.md::seed{s}" for s in snip.seeds]


def test_a_failing_page_reports_its_claim(runner, tmp_path):
    """The report names the page, says the claim stopped holding and quotes the assert's message."""
    from handbook.content import pages

    page = pages.load(contract.ROOT / "docs/online-rl/grpo-zero-std-group.md")
    code = tmp_path / "claim.py"
    code.write_text("def check(seed=0):\n    assert False, 'claim: it holds'\n", encoding="utf-8")
    res = runner.run_file(code, "check", 0)
    text = pytest_pages.report(page, "check", 0, res)
    assert text.startswith("docs/online-rl/grpo-zero-std-group.md (") and "claim no longer holds" in text, text
    assert "claim: it holds" in text, text


@pytest.fixture
def pytester_pages():
    import subprocess
    import sys

    def collect(*paths):
        out = subprocess.run(
            [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *paths],
            cwd=contract.ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        ).stdout
        return [line for line in out.splitlines() if "::" in line]

    return collect
