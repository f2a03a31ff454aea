"""The real-model lane: every pitfall page's check run on SmolLM2-135M-Instruct (``make real``).

``python -m handbook real-record [PAGE ...]`` runs each page's ``check`` on the real model (``handbook.lanes.real``)
for the seeds the lane uses (``real_seeds``) and writes ``compat/real/<chapter>/<slug>.json``::

    {"page": "docs/...md", "hash": "<page code hash>", "trl": "1.16.0", "transformers": "5.24.0",
     "model": "SmolLM2-135M-Instruct", "model_key": "<GGUF hash>",
     "seeds": {"0": {"outcome": "passed", "kind": "passed", "message": "<verdict>", "seconds": 41.2,
                     "runs": [{"trainer": "GRPOTrainer", "logs": [...]}, ...]}}}

Failures are recorded too (outcome ``failed``, the kind and message): the lane's pass rate, the page's
"Verified on" line and the tests read them. ``tests/test_real.py`` fails when a row is missing or was taken for
other code, another TRL or another model, and runs a smoke subset (``SMOKE``) on the real model itself.
"""

from __future__ import annotations

import json
import pathlib
import threading
import time
from importlib.metadata import version

from handbook.content import contract, pages
from handbook.lanes import real, runs

RESULTS_DIR = pages.ROOT / "compat" / "real"
TIMEOUT = 1200.0
"""Seconds one check may take on the real model on one core (the slowest pages take about 7 minutes)."""
SMOKE = (
    "docs/sft/eos-cut-by-truncation.md",
    "docs/debugging/verbose-logging-and-log-history.md",
    "docs/preference/dpo-unexpected-keyword-beta.md",
    "docs/online-rl/grpo-length-bias-loss-type.md",
    "docs/rewards/rm-num-labels.md",
    "docs/dynamics/grad-norm-logged-before-clipping.md",
    "docs/scale/chat-template-training-vs-generation.md",
    "docs/integrations/vllm-version-pairing.md",
)
"""One page per chapter that `make test` runs on the real model (seed 0), besides checking the committed rows: one that
trains there and costs little (SFT's: eos-cut-by-truncation, 1.1 s recorded on the real model, in place of
assistant-only-mask-traps, 3.5 s)."""


PENDING_FILE = pages.ROOT / "compat" / "real" / "pending.yaml"
"""Pages not yet verified on the real model, each with the reason (``docs/<chapter>/<slug>.md: why``). The list
only shrinks: a page in it that passes must leave it (tests/test_real.py)."""


def pending() -> dict[str, str]:
    import yaml

    if not PENDING_FILE.is_file():
        return {}
    data = yaml.safe_load(PENDING_FILE.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        raise ValueError(f"{PENDING_FILE.relative_to(pages.ROOT)}: a mapping 'docs/<chapter>/<slug>.md: reason'")
    return data


def result_path(page_id: str, chapter: str) -> pathlib.Path:
    return pages.ROOT / "compat" / "real" / chapter / f"{page_id}.json"


def load(meta: dict) -> dict | None:
    """The committed real-model result of the page with front matter ``meta``, or None."""
    path = result_path(str(meta.get("id", "")), str(meta.get("chapter", "")))
    try:
        return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
    except (OSError, json.JSONDecodeError):
        return None


def real_seeds(meta: dict, snip: contract.Snippet) -> tuple[int, ...]:
    """The seeds the real lane runs: ``real_seeds:`` in front matter, else the snippet's first seed."""
    seeds = meta.get("real_seeds")
    return tuple(seeds) if seeds else snip.seeds[:1]


def passed(rec: dict | None) -> bool:
    return bool(rec and rec.get("seeds") and all(s["outcome"] == "passed" for s in rec["seeds"].values()))


def run_page(runner, page: pages.Page, model: tuple[str, str] | None = None) -> dict:
    """Run ``page``'s check on the real model (or ``model``: name, key) for each of its lane seeds; the row."""
    snip = contract.parse(pages.ROOT / page.meta.get("snippet", ""))
    seeds = {}
    for seed in real_seeds(page.meta, snip):
        res = runner.run(page.path, contract.CHECK, seed, timeout=TIMEOUT)
        seeds[str(seed)] = {
            "outcome": "passed" if res.ok else "failed",
            "kind": res.kind,
            "message": res.message[:600],
            "seconds": res.seconds,
            "runs": [{"trainer": r["trainer"], "logs": [runs.round_row(row) for row in r["logs"]]} for r in res.runs],
        }
    return {
        "page": page.rel,
        "hash": runs.page_hash(page.path),
        "trl": version("trl"),
        "transformers": version("transformers"),
        "model": model[0] if model else real.NAME,
        "model_key": model[1] if model else real.model_key(),
        "seeds": seeds,
    }


def stale(page: pages.Page, key: str) -> str | None:
    """Why the committed row of ``page`` does not describe its current code on this stack, or None."""
    rec = load(page.meta)
    if rec is None:
        return "no row"
    if rec.get("hash") != runs.page_hash(page.path):
        return "the page's code changed since"
    if rec.get("trl") != version("trl"):
        return f"recorded on TRL {rec.get('trl')}, installed {version('trl')}"
    if rec.get("model_key") != key:
        return f"recorded on model {rec.get('model_key')}, installed {key}"
    timeouts = [seed for seed, s in rec.get("seeds", {}).items() if s.get("kind") in ("timeout", "crash")]
    if timeouts:  # says nothing about the claim: a loaded machine, a killed worker
        return f"seed {', '.join(timeouts)} timed out or crashed"
    return None


def record(
    paths: list[str] | None, workers: int = 2, only_stale: bool = False, model: str | None = None, out: str = ""
) -> int:
    """``make real``: run every pitfall page (or ``paths``; with ``only_stale`` those whose row is stale).

    ``model`` (a hub id or folder) runs the lane on another model, e.g. a larger one in GPU CI; its rows go to
    ``out`` (never to the committed compat/real/, which holds the SmolLM2 rows the tests check)."""
    from handbook.lanes import harness

    if model and not out:
        raise SystemExit("--model needs --out DIR: compat/real/ holds only the SmolLM2-135M-Instruct rows")
    path = model or real.model_path()
    key = real.model_key() if not model else "external"
    target_dir = pathlib.Path(out).resolve() if out else RESULTS_DIR
    if paths:
        wanted = {str(pathlib.Path(p).resolve().relative_to(pages.ROOT)) for p in paths}
        todo = [p for p in runs.pitfall_pages() if p.rel in wanted]
    else:
        todo = runs.pitfall_pages()
    if only_stale:
        todo = [p for p in todo if stale(p, key)]
    todo.sort(key=lambda p: -_last_seconds(p))  # longest first: the two workers finish together
    started = time.perf_counter()
    lock, summary = threading.Lock(), []

    def job(runner, page: pages.Page) -> None:
        row = run_page(runner, page, (model, key) if model else None)
        target = target_dir / page.meta["chapter"] / f"{page.meta['id']}.json"
        with lock:
            target.parent.mkdir(parents=True, exist_ok=True)
            text = json.dumps(row, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
            target.write_text(text + "\n", encoding="utf-8")
            secs = sum(s["seconds"] for s in row["seeds"].values())
            word = "passed" if passed(row) else "FAILED"
            detail = "" if passed(row) else " " + "; ".join(s["message"][:160] for s in row["seeds"].values())
            summary.append((page.rel, passed(row), secs))
            print(f"{word} {secs:7.1f} s {page.rel}{detail}", flush=True)

    runs.pool(todo, workers, job, harness, path)
    wall = time.perf_counter() - started
    ok = sum(1 for _, p, _ in summary if p)
    print(f"{ok}/{len(summary)} pages passed on {model or real.NAME} in {wall / 60:.1f} min ({workers} workers)")
    tiny_only = {p.rel for p in todo if p.meta.get("tiny_only")}
    unexplained = [rel for rel, p, _ in summary if not p and rel not in tiny_only]
    for rel in unexplained:
        print(f"FAILED without tiny_only: {rel}")
    return 1 if unexplained else 0


def _last_seconds(page: pages.Page) -> float:
    rec = load(page.meta)
    return sum(s.get("seconds", 0) for s in rec["seeds"].values()) if rec else 1e9


def shown(meta: dict) -> dict | None:
    """The record a page's chart and quoted numbers come from: the real model's runs when its row passed and
    logged something, else the tiny model's record (``runs.load``). Both in the run-record shape, with ``model``."""
    rec = load(meta)
    if passed(rec) and any(r["logs"] for s in rec["seeds"].values() for r in s["runs"]):
        seeds = {seed: s["runs"] for seed, s in rec["seeds"].items()}
        return {"page": rec["page"], "trl": rec["trl"], "model": rec["model"], "seeds": seeds}
    return runs.load(meta)


def pass_rate() -> tuple[int, int]:
    """(pages whose committed row passed, pitfall pages)."""
    pitfalls = runs.pitfall_pages()
    return sum(passed(load(p.meta)) for p in pitfalls), len(pitfalls)
