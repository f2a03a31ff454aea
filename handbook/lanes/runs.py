"""The run record: what the trainers of each page's check logged, on the pinned TRL and the tiny model.

``python -m handbook record [PAGE ...]`` runs every page (or the ones named) for each of its seeds and writes
``compat/runs/<chapter>/<slug>.json``::

    {"page": "docs/online-rl/grpo-zero-std-group.md", "hash": "<page code hash>", "trl": "1.16.0",
     "transformers": "5.2.4", "model": "tiny", "seeds": {"0": [{"trainer": "GRPOTrainer", "logs": [...]}, ...]}}

Each seed holds the trainer runs in the order ``check(seed)`` built them (run 1 is the first trainer), each with
its logged rows (``step`` plus every numeric value; NaN and inf kept as strings). Charts, the numbers pages
quote from a run and the log doctor read this record; ``tests/test_runs.py`` fails when a page's code changed
after its record was taken (the hash), so the pictures never drift from what the tests observe.
"""

from __future__ import annotations

import json
import math
import pathlib
import re
import threading
from importlib.metadata import version

from handbook import tiny
from handbook.content import contract, pages

RUNS_DIR = pages.ROOT / "compat" / "runs"
AGGREGATES = ("first", "last", "min", "max", "mean")


page_hash = contract.page_hash


def record_path(page_id: str, chapter: str) -> pathlib.Path:
    return pages.ROOT / "compat" / "runs" / chapter / f"{page_id}.json"  # pages.ROOT: tests may point it elsewhere


def load(meta: dict) -> dict | None:
    """The committed record of the page with front matter ``meta``, or None."""
    path = record_path(str(meta.get("id", "")), str(meta.get("chapter", "")))
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None


VOLATILE = re.compile(r"runtime|per_second|step_time")
"""Keys that measure the machine, not the training: left out so a re-record changes only what training changed."""


def round_row(row: dict) -> dict:
    return {k: (float(f"{v:.5g}") if isinstance(v, float) else v) for k, v in row.items() if not VOLATILE.search(k)}


def record_page(runner, page: pathlib.Path) -> tuple[dict | None, list[str]]:
    """Run ``page`` for each of its seeds; return (record, failures)."""
    from handbook.lanes import harness  # noqa: F401  (runner is a harness.PageRunner)

    meta = pages.load(page).meta
    snip = contract.parse(pages.ROOT / meta.get("snippet", ""))
    seeds, failures = {}, []
    for seed in snip.seeds:
        res = runner.run(page, contract.CHECK, seed)
        if not res.ok:
            failures.append(f"{page.relative_to(pages.ROOT)} seed {seed}: {res.kind}: {res.message}")
            continue
        seeds[str(seed)] = [
            {"trainer": run["trainer"], "logs": [round_row(row) for row in run["logs"]]} for run in res.runs
        ]
    if failures or not any(run["logs"] for runs_ in seeds.values() for run in runs_):
        return None, failures
    return {
        "page": str(page.relative_to(pages.ROOT)),
        "hash": page_hash(page),
        "trl": version("trl"),
        "transformers": version("transformers"),
        "model": "tiny",
        "tiny_recipe": tiny.recipe_key(),
        "seeds": seeds,
    }, failures


def pool(todo: list, workers: int, job, harness, model: str | None = None) -> None:
    """Run ``job(runner, item)`` for every item on ``workers`` threads, each with its own page worker process
    (pages' ``MODEL`` pointed at ``model``, else as ``harness.PageRunner`` decides)."""
    queue, lock = list(todo), threading.Lock()

    def work() -> None:
        runner = harness.PageRunner(model)
        try:
            while True:
                with lock:
                    if not queue:
                        return
                    item = queue.pop(0)
                job(runner, item)
        finally:
            runner.close()

    threads = [threading.Thread(target=work) for _ in range(max(1, workers))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def record(paths: list[str] | None, workers: int = 2) -> int:
    """``python -m handbook record``: (re)write the record of every page that trains, or of ``paths``."""
    from handbook.lanes import harness

    if paths:
        todo = [pathlib.Path(p).resolve() for p in paths]
        todo = [p for p in todo if pages.load(p).kind == "pitfall" and not p.name.endswith(".zh.md")]
    else:
        todo = [p.path for p in pitfall_pages()]
    lock, failures, written = threading.Lock(), [], []

    def job(runner, page: pathlib.Path) -> None:
        rec, fails = record_page(runner, page)
        meta = pages.load(page).meta
        target = record_path(meta["id"], meta["chapter"])
        with lock:
            failures.extend(fails)
            if rec is not None:
                target.parent.mkdir(parents=True, exist_ok=True)
                text = json.dumps(rec, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
                target.write_text(text + "\n", encoding="utf-8")
                written.append(str(target.relative_to(pages.ROOT)))
            elif not fails and target.exists():
                target.unlink()  # the page no longer trains
            print(f"{'recorded' if rec else 'no runs '} {page.relative_to(pages.ROOT)}", flush=True)

    pool(todo, workers, job, harness)
    print(f"{len(written)} record(s) written under {RUNS_DIR.relative_to(pages.ROOT)}/")
    if failures:
        print("failed (no record written):\n  " + "\n  ".join(failures))
    return 1 if failures else 0


pitfall_pages = pages.pitfall_pages


# -- reading a record --------------------------------------------------------------------------------------
def series(rec: dict, run: int, metric: str, seed: str = "0") -> list[tuple[int, float]]:
    """(step, value) of ``metric`` in trainer run ``run`` (1-based) of ``seed``; NaN/inf as floats."""
    runs = rec.get("seeds", {}).get(seed, [])
    if not 1 <= run <= len(runs):
        return []
    out = []
    for row in runs[run - 1]["logs"]:
        if metric in row:
            value = row[metric]
            out.append((row["step"], float(value)))
    return out


def aggregate(values: list[float], how: str) -> float:
    finite = [v for v in values if math.isfinite(v)] or values
    if how == "first":
        return values[0]
    if how == "last":
        return values[-1]
    if how == "min":
        return min(finite)
    if how == "max":
        return max(finite)
    if how == "mean":
        return sum(finite) / len(finite)
    raise ValueError(f"unknown aggregate {how!r}; one of {AGGREGATES}")


def fmt(value: float, digits: int = 3) -> str:
    """A number as a page shows it: ``digits`` significant digits, no exponent for everyday magnitudes."""
    if not math.isfinite(value):
        return str(value)
    if value == 0:
        return "0"
    text = f"{value:.{digits}g}"
    if "e" in text and 1e-4 <= abs(value) < 1e6:
        text = f"{value:.{max(digits - 1 - math.floor(math.log10(abs(value))), 0)}f}"
    return text
