"""The real-model lane (compat/real/, written by `make real`): every page's claim holds on SmolLM2-135M-Instruct.

- every pitfall page has a committed row, taken for the code the page shows now, on the pinned TRL and on the
  real model this checkout provisions (a snippet edited since makes the row stale: `make real REAL_ARGS=--stale`),
  unless it is listed, with the reason, in compat/real/pending.yaml (a list that only shrinks);
- a page whose row failed says why in `tiny_only` (both twins), and at most ``TINY_ONLY_MAX`` pages do;
- at least ``PASS_GOAL`` of the pages pass on the real model;
- a smoke subset (one page per chapter, ``real_runs.SMOKE``) is run on the real model here, now.
"""

from __future__ import annotations

from importlib.metadata import version

import pytest

from handbook.content import contract, pages
from handbook.lanes import real, real_runs, runs

PASS_GOAL = 0.95
"""This share of all pitfall pages must pass on the real model."""
TINY_ONLY_MAX = 3
"""Pages allowed to carry tiny_only, each with a physical reason (a 135M model cannot show it on a CPU in minutes)."""
PITFALLS = pages.pitfall_pages()
PENDING = real_runs.pending()
PENDING_REL = real_runs.PENDING_FILE.relative_to(pages.ROOT)


@pytest.fixture(scope="module")
def model_key():
    return real.model_key()


@pytest.mark.parametrize("page", PITFALLS, ids=lambda p: p.rel)
def test_real_row_is_current(page, model_key):
    why = real_runs.stale(page, model_key)
    rec = real_runs.load(page.meta)
    if page.rel in PENDING:
        assert why or not real_runs.passed(rec), (
            f"{page.rel} passes on {real.NAME} now: remove it from {PENDING_REL} (the list only shrinks)"
        )
        return
    assert why is None, (
        f"{page.rel}: its real-model row is stale ({why}): make real REAL_ARGS=--stale, "
        f"or list it in {PENDING_REL} with the reason"
    )
    if not real_runs.passed(rec):
        failed = "; ".join(f"seed {s}: {r['kind']}: {r['message'][:200]}" for s, r in rec["seeds"].items())
        assert page.meta.get("tiny_only"), (
            f"{page.rel}: fails on {real.NAME} ({failed}) and its front matter does not say why (tiny_only)"
        )


def test_pending_pages_exist_and_say_why():
    known = {p.rel for p in PITFALLS}
    unknown = sorted(set(PENDING) - known)
    assert not unknown, f"{PENDING_REL} names pages that are not pitfall pages: {unknown}"
    vague = [rel for rel, why in PENDING.items() if len(why.strip()) < 20]
    assert not vague, f"{PENDING_REL}: say why each page is pending: {vague}"


@pytest.mark.parametrize("page", [p for p in PITFALLS if p.meta.get("chart")], ids=lambda p: p.rel)
def test_chart_runs_mean_the_same_trainers_on_both_models(page):
    """`chart: runs:` counts the trainers check() builds: the real run must build the same ones as the tiny run."""
    rec, tiny_rec = real_runs.load(page.meta), runs.load(page.meta)
    if not real_runs.passed(rec) or tiny_rec is None:
        return
    real_trainers = [r["trainer"] for r in rec["seeds"]["0"]["runs"]]
    tiny_trainers = [r["trainer"] for r in tiny_rec["seeds"]["0"]]
    assert real_trainers == tiny_trainers, (
        f"{page.rel}: check() builds {real_trainers} on {real.NAME} but {tiny_trainers} on the tiny model, so "
        "the chart's symptom/fix run numbers would mean different runs"
    )


def test_pass_rate_and_tiny_only(record_property):
    ok, total = real_runs.pass_rate()
    tiny_only = [p.rel for p in PITFALLS if p.meta.get("tiny_only")]
    record_property(
        "figures",
        f"real model: {ok}/{total} pages pass on {real.NAME} ({ok / total:.0%}, goal {PASS_GOAL:.0%}); "
        f"{len(PENDING)} pending; {len(tiny_only)} tiny_only",
    )
    assert ok / total >= PASS_GOAL, f"only {ok}/{total} pages pass on {real.NAME} (goal {PASS_GOAL:.0%})"
    assert len(tiny_only) <= TINY_ONLY_MAX, f"{len(tiny_only)} pages hold only on the tiny model: {tiny_only}"


def test_smoke_pages_cover_every_chapter():
    chapters = {pages.load(pages.ROOT / rel).meta["chapter"] for rel in real_runs.SMOKE}
    with_pitfalls = {p.meta["chapter"] for p in PITFALLS}
    assert chapters == with_pitfalls, f"smoke pages miss chapters {sorted(with_pitfalls - chapters)}"


@pytest.fixture(scope="module")
def real_runner():
    from handbook.lanes import harness

    runner = harness.PageRunner(real.model_path())
    yield runner
    runner.close()


@pytest.mark.parametrize("rel", real_runs.SMOKE)
def test_smoke_on_the_real_model(real_runner, rel):
    """Run the page now on the real model: the committed row is what this checkout really does."""
    page = pages.load(pages.ROOT / rel)
    reason = contract.skip_reason(page.meta)
    if reason:
        pytest.skip(reason)
    res = real_runner.run(page.path, contract.CHECK, 0, timeout=real_runs.TIMEOUT)
    assert res.ok, f"{rel} on {real.NAME}: {res.kind}: {res.message}\n{res.traceback}\n{res.log}"


def _row(outcome: str, logs: list) -> dict:
    seed = {
        "outcome": outcome,
        "kind": outcome,
        "message": "",
        "seconds": 1.0,
        "runs": [{"trainer": "T", "logs": logs}],
    }
    return {"page": "docs/x/y.md", "trl": "1.16.0", "model": real.NAME, "model_key": "k", "seeds": {"0": seed}}


def test_charts_read_the_real_row_only_when_it_passed(monkeypatch):
    tiny_rec = {"model": "tiny", "seeds": {"0": [{"trainer": "T", "logs": [{"step": 1, "loss": 9.0}]}]}}
    monkeypatch.setattr(runs, "load", lambda meta: tiny_rec)
    good = _row("passed", [{"step": 1, "loss": 2.5}])
    monkeypatch.setattr(real_runs, "load", lambda meta: good)
    shown = real_runs.shown({})
    assert shown["model"] == real.NAME and runs.series(shown, 1, "loss") == [(1, 2.5)]
    for bad in (_row("failed", [{"step": 1, "loss": 2.5}]), _row("passed", []), None):
        monkeypatch.setattr(real_runs, "load", lambda meta, bad=bad: bad)
        assert real_runs.shown({}) is tiny_rec, f"a real row {bad} must not be charted"


def test_stale_names_what_changed(monkeypatch):
    page = PITFALLS[0]
    current = {**_row("passed", []), "hash": runs.page_hash(page.path), "trl": version("trl")}
    for change, word in (({"hash": "0"}, "code changed"), ({"trl": "0.1"}, "TRL 0.1"), ({"model_key": "z"}, "model z")):
        monkeypatch.setattr(real_runs, "load", lambda meta, change=change: {**current, **change})
        assert word in (real_runs.stale(page, "k") or ""), change
    monkeypatch.setattr(real_runs, "load", lambda meta: current)
    assert real_runs.stale(page, "k") is None
    monkeypatch.setattr(real_runs, "load", lambda meta: None)
    assert real_runs.stale(page, "k") == "no row"
