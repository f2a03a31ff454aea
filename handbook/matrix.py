"""The TRL version matrix: run every page's code on several TRL releases and record page × version × seed.

``python -m handbook matrix`` (``make matrix``) runs the pages (``pytest docs``) once per TRL version, each in
its own cached virtual environment under ``.cache/matrix/trl-<version>``. Such an environment holds that TRL
release and whatever it needs that the pinned stack lacks; for everything else it sees the pinned test
environment (a ``.pth`` file), so a version is compared on the same torch/transformers/datasets as the pin
whenever that TRL accepts them. The results go to ``compat/trl-matrix.json`` (committed): for each page and
version the outcome of each seed, the skip or failure reason, and the hash of the page's code that ran.
``tests/test_matrix.py`` fails when a page's code changed since its row was recorded, or when a version inside
a page's ``trl:`` range failed.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys
import sysconfig
import time
import xml.etree.ElementTree as ET
from importlib.metadata import version as installed_version

from handbook import contract, pages

RESULTS = pages.ROOT / "compat" / "trl-matrix.json"
ENVS = pages.ROOT / ".cache" / "matrix"
BASELINE = ("0.29.1", "1.0.0", "1.12.0")
"""Releases always in the matrix, besides the pinned one and the newest one the registry serves."""


def pinned() -> str:
    for line in (pages.ROOT / "requirements" / "test.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith("trl=="):
            return line.split("==", 1)[1].strip()
    raise SystemExit("requirements/test.txt pins no trl==")


def newest() -> str | None:
    """The newest TRL release the package index serves (None when it cannot be asked)."""
    out = subprocess.run(
        [sys.executable, "-m", "pip", "index", "versions", "trl"], capture_output=True, text=True, timeout=120
    )
    m = re.search(r"^trl \(([^)]+)\)", out.stdout, re.M)
    return m.group(1) if m else None


page_hash = contract.page_hash


def environment(trl_version: str) -> pathlib.Path:
    """The Python of an environment with ``trl_version`` on top of the pinned stack (created once)."""
    if installed_version("trl") == trl_version:
        return pathlib.Path(sys.executable)
    env = ENVS / f"trl-{trl_version}"
    python = env / "bin" / "python"
    if (env / ".ready").exists():
        return python
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(env)], check=True)
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    # the pinned stack, after the environment's own packages: its own trl (and anything it needs) wins
    pathlib.Path(site, "handbook_pinned_stack.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([str(python), "-m", "pip", "install", "-q", f"trl=={trl_version}"], check=True)
    (env / ".ready").touch()
    return python


def _versions_of(python: pathlib.Path) -> dict[str, str]:
    code = (
        "import json; from importlib.metadata import version as v; "
        "print(json.dumps({d: v(d) for d in ('trl', 'transformers', 'torch', 'accelerate', 'datasets')}))"
    )
    out = subprocess.run([str(python), "-c", code], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


SEED = re.compile(r"seed\d+|contract")


def _parse(junit: pathlib.Path) -> dict[str, dict]:
    """page -> {"seeds": {seed: outcome}, "reasons": [...]} from pytest's JUnit XML."""
    rows: dict[str, dict] = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        page, seed = case.get("file", ""), case.get("name", "")
        if not (page.startswith("docs/") and page.endswith(".md") and SEED.fullmatch(seed)):
            continue  # a hardware entry point (check_gpu, ...) or another test
        m = {"page": page, "seed": seed}
        row = rows.setdefault(m["page"], {"seeds": {}, "reasons": []})
        outcome, reason = "passed", ""
        for child in case:
            if child.tag in ("failure", "error"):
                outcome, reason = "failed", (child.get("message") or "").strip()
            elif child.tag == "skipped":
                outcome, reason = "skipped", (child.get("message") or "").strip()
        row["seeds"][m["seed"]] = outcome
        if reason:
            reason = reason.removeprefix("Skipped: ").removeprefix(m["page"] + ": ")
            if reason not in row["reasons"]:
                row["reasons"].append(reason[:600])
    return rows


def run_pages(
    python: pathlib.Path, name: str, workers: int, only: list[str] | None = None, **env: str
) -> dict[str, dict]:
    """Run the pages' ``check`` for each seed (``pytest docs``, handbook/pytest_pages.py) with ``python``."""
    junit = ENVS / f"junit-{name}.xml"
    junit.parent.mkdir(parents=True, exist_ok=True)
    junit.unlink(missing_ok=True)
    cmd = [str(python), "-m", "pytest", *(only or ["docs"]), "-q", "-p", "no:cacheprovider"]
    cmd += ["-m", "not gpu and not vllm and not multiprocess", f"--junitxml={junit}", "-o", "junit_family=xunit1"]
    if workers > 1:
        cmd += ["-n", str(workers)]
    proc = subprocess.run(cmd, cwd=pages.ROOT, capture_output=True, text=True, env={**os.environ, **env})
    if not junit.exists():
        raise SystemExit(f"{name}: pytest produced no report:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return _parse(junit)


def run_version(trl_version: str, workers: int, only: list[str] | None = None) -> dict:
    python = environment(trl_version)
    started = time.perf_counter()
    # every page on every version: whether a version is inside a page's range is judged afterwards
    rows = run_pages(python, f"trl-{trl_version}", workers, only, **{contract.IGNORE_RANGES_ENV: "1"})
    seconds = round(time.perf_counter() - started, 1)
    counts = {
        k: sum(v == k for r in rows.values() for v in r["seeds"].values()) for k in ("passed", "failed", "skipped")
    }
    return {"stack": _versions_of(python), "seconds": seconds, **counts, "rows": rows}


def outcome(seeds: dict[str, str]) -> str:
    values = set(seeds.values())
    return "failed" if "failed" in values else "skipped" if values == {"skipped"} else "passed"


def main(versions: list[str] | None, workers: int, only: list[str] | None = None) -> int:
    """Run the pages (all, or ``only``: their rows are replaced, the others kept) on each TRL version."""
    from packaging.specifiers import SpecifierSet

    pin = pinned()
    if not versions:
        versions = list(dict.fromkeys([*BASELINE, pin, *(v for v in [newest()] if v)]))
    data = json.loads(RESULTS.read_text(encoding="utf-8")) if RESULTS.exists() else {"versions": {}, "pages": {}}
    pitfalls = {p.rel: p for p in pages.all_pages() if p.lang == "en" and p.kind == "pitfall"}
    hashes = {rel: page_hash(p.path) for rel, p in pitfalls.items()}
    if only:
        only = [str(pathlib.Path(p).resolve().relative_to(pages.ROOT)) for p in only]
        unknown = [p for p in only if p not in pitfalls]
        if unknown:
            raise SystemExit(f"not pitfall pages: {unknown}")
    for v in versions:
        what = "the named pages'" if only else "every page's"
        print(f"trl {v}: running {what} code ...", flush=True)
        res = run_version(v, workers, only)
        rows = res.pop("rows")
        if not only:
            data["versions"][v] = res
        for rel in only or pitfalls:
            row = rows.get(rel, {"seeds": {}, "reasons": ["not collected"]})
            cell = {"outcome": outcome(row["seeds"]) if row["seeds"] else "failed", "seeds": row["seeds"]}
            if row["reasons"]:
                cell["reason"] = " | ".join(row["reasons"])
            cell["in_range"] = SpecifierSet(pitfalls[rel].meta.get("trl", "")).contains(v, prereleases=True)
            cell["hash"] = hashes[rel]
            data["pages"].setdefault(rel, {})[v] = cell
        print(
            f"trl {v}: {res['passed']} passed, {res['failed']} failed, {res['skipped']} skipped in {res['seconds']} s"
        )
    if only:  # the version totals count the merged cells
        for v in versions:
            seeds = [o for cells in data["pages"].values() if v in cells for o in cells[v]["seeds"].values()]
            data["versions"].setdefault(v, {}).update({k: seeds.count(k) for k in ("passed", "failed", "skipped")})
    data["pinned"] = pin
    data["versions"] = dict(sorted(data["versions"].items(), key=lambda kv: _key(kv[0])))
    data["pages"] = {rel: data["pages"][rel] for rel in sorted(pitfalls) if rel in data["pages"]}
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(data, indent=1, ensure_ascii=False, sort_keys=False) + "\n", encoding="utf-8")
    bad = _report(data)
    print(f"wrote {RESULTS.relative_to(pages.ROOT)}")
    return 1 if bad else 0


def _report(data: dict) -> list[str]:
    """Print the in-range failures (returned) and the pages that hold outside their declared range."""
    bad = in_range_failures(data)
    for line in bad:
        print("IN-RANGE FAILURE:", line)
    for rel, cells in data["pages"].items():
        wider = [v for v, c in cells.items() if c["outcome"] == "passed" and not c.get("in_range")]
        if wider:
            print(f"note: {rel} also holds on trl {', '.join(wider)}, outside its range")
    return bad


def _key(v: str):
    from packaging.version import Version

    return Version(v)


def in_range_failures(data: dict) -> list[str]:
    """Cells that failed on a version inside the page's ``trl:`` range."""
    from packaging.specifiers import SpecifierSet

    out = []
    for rel, cells in data["pages"].items():
        path = pages.ROOT / rel
        if not path.exists():
            continue
        spec = SpecifierSet(pages.load(path).meta.get("trl", ""))
        for v, cell in cells.items():
            if cell["outcome"] == "failed" and spec.contains(v, prereleases=True):
                out.append(f"{rel} on trl {v}: {cell.get('reason', '')[:300]}")
    return out


def mutate(spec: str, workers: int) -> int:
    """Run every page with one TRL default changed (``GRPOConfig.beta=0.04``) and list the pages that fail.

    The mutation check behind the version matrix: a change of one default should fail exactly the pages whose
    claims depend on it, each by name.
    """
    rows = run_pages(pathlib.Path(sys.executable), "mutation", workers, HANDBOOK_MUTATE=spec)
    failed = sorted(rel for rel, row in rows.items() if outcome(row["seeds"]) == "failed")
    print(f"{spec}: {len(failed)} of {len(rows)} pages fail")
    for rel in failed:
        print(f"  {rel}: {rows[rel]['reasons'][0][:200] if rows[rel]['reasons'] else ''}")
    return 0
