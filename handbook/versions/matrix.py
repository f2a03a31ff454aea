"""The version matrix: run every page's code on many stacks and record page × column × seed.

``python -m handbook matrix`` (``make matrix``) runs the pages (``pytest docs``) once per column of
``compat/matrix-columns.json`` (handbook/versions/matrix_plan.py: every TRL minor release on the pinned stack, each on
the stack of its release day, the newest TRL on its lowest and on the newest transformers), each in its own
cached virtual environment under ``.cache/matrix/``. Such an environment holds what the column installs and
whatever that needs; for everything else it sees the pinned test environment (a ``.pth`` file). The results go
to ``compat/trl-matrix.json`` (committed): per column the full stack, counts and wall time; per page and column
the outcome of each seed, the skip or failure reason and the hash of the page's code that ran. Whether a column
is inside a page's ``trl:``/``transformers:`` ranges is not recorded: it is judged from the page's front matter
as it is now (``contract.out_of_range`` on the column's stack), since a range changes after the matrix ran.
``tests/test_matrix.py`` fails when a page's code changed since its row was recorded, or when a column inside a
page's ranges failed.
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

from handbook.content import contract, pages
from handbook.versions import matrix_plan
from handbook.versions.matrix_plan import Column

RESULTS = pages.ROOT / "compat" / "trl-matrix.json"
ENVS = pages.ROOT / ".cache" / "matrix"


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


def environment(column: Column) -> pathlib.Path:
    """The Python of an environment with the column's packages on top of the pinned stack (created once)."""
    if column.kind == "pinned" and installed_version("trl") == column.trl:
        return pathlib.Path(sys.executable)
    env = ENVS / column.slug
    python = env / "bin" / "python"
    ready = env / ".ready"
    if ready.exists() and ready.read_text() == " ".join(column.install):
        return python
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(env)], check=True)
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    # the pinned stack, after the environment's own packages: what the column installs (and needs) wins
    pathlib.Path(site, "handbook_pinned_stack.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([str(python), "-m", "pip", "install", "-q", *column.install], check=True)
    ready.write_text(" ".join(column.install))
    return python


STACK = ("trl", "transformers", "torch", "accelerate", "peft", "datasets", "huggingface_hub", "tokenizers")


def _versions_of(python: pathlib.Path) -> dict[str, str]:
    code = (
        f"import json; from importlib.metadata import version as v; print(json.dumps({{d: v(d) for d in {STACK!r}}}))"
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
    python: pathlib.Path, name: str, workers: int, only: list[str] | None = None, seeds: str = "all", **env: str
) -> dict[str, dict]:
    """Run the pages' ``check`` for each seed (``pytest docs``, handbook/lanes/pytest_pages.py) with ``python``."""
    junit = ENVS / f"junit-{name}.xml"
    junit.parent.mkdir(parents=True, exist_ok=True)
    junit.unlink(missing_ok=True)
    cmd = [str(python), "-m", "pytest", *(only or ["docs"]), "-q", "-p", "no:cacheprovider"]
    cmd += ["-m", "not gpu and not vllm and not multiprocess", f"--junitxml={junit}", "-o", "junit_family=xunit1"]
    if seeds != "all":  # e.g. seed0: one seed of each page (and its contract check)
        cmd += ["-k", f"{seeds} or contract"]
    if workers > 1:
        cmd += ["-n", str(workers)]
    proc = subprocess.run(cmd, cwd=pages.ROOT, capture_output=True, text=True, env={**os.environ, **env})
    if not junit.exists():
        raise SystemExit(f"{name}: pytest produced no report:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return _parse(junit)


def run_column(column: Column, workers: int, only: list[str] | None = None) -> dict:
    python = environment(column)
    started = time.perf_counter()
    # every page on every column: whether a column is inside a page's ranges is judged afterwards
    env = {contract.IGNORE_RANGES_ENV: "1"}
    rows = run_pages(python, column.slug, workers, only, column.seeds, **env)
    seconds = round(time.perf_counter() - started, 1)
    counts = {
        k: sum(v == k for r in rows.values() for v in r["seeds"].values()) for k in ("passed", "failed", "skipped")
    }
    info = {"kind": column.kind, "trl": column.trl, "seeds": column.seeds, "date": column.date}
    return {**info, "stack": _versions_of(python), "seconds": seconds, **counts, "rows": rows}


def outcome(seeds: dict[str, str]) -> str:
    values = set(seeds.values())
    return "failed" if "failed" in values else "skipped" if values == {"skipped"} else "passed"


def select(names: list[str] | None, trl: list[str] | None) -> list[Column]:
    """The planned columns named (or every planned column); ``--trl X`` adds a pinned-stack column for X."""
    cols = matrix_plan.load()
    by_name = {c.name: c for c in cols}
    unknown = [n for n in names or [] if n not in by_name]
    if unknown:
        raise SystemExit(f"not in {matrix_plan.PLAN.relative_to(pages.ROOT)}: {unknown}; planned: {list(by_name)}")
    chosen = [by_name[n] for n in names or []]
    chosen += [by_name.get(v) or Column(v, "pinned", v, [f"trl=={v}"]) for v in trl or []]
    return chosen or cols


def main(names: list[str] | None, trl: list[str] | None, workers: int, only: list[str] | None = None) -> int:
    """Run the pages (all, or ``only``: their rows are replaced, the others kept) on each column."""
    columns = select(names, trl)
    data = json.loads(RESULTS.read_text(encoding="utf-8")) if RESULTS.exists() else {"versions": {}, "pages": {}}
    pitfalls = {p.rel: p for p in pages.all_pages() if p.lang == "en" and p.kind == "pitfall"}
    hashes = {rel: page_hash(p.path) for rel, p in pitfalls.items()}
    if only:
        only = [str(pathlib.Path(p).resolve().relative_to(pages.ROOT)) for p in only]
        unknown = [p for p in only if p not in pitfalls]
        if unknown:
            raise SystemExit(f"not pitfall pages: {unknown}")
    for col in columns:
        what = "the named pages'" if only else "every page's"
        print(f"{col.name}: running {what} code ({' '.join(col.install)}) ...", flush=True)
        res = run_column(col, workers, only)
        rows = res.pop("rows")
        if not only or col.name not in data["versions"]:
            data["versions"][col.name] = res
        else:  # the column's description and stack as they are now (older files lack kind and the full stack)
            data["versions"][col.name].update({k: res[k] for k in ("kind", "trl", "seeds", "date", "stack")})
        for rel in only or pitfalls:
            row = rows.get(rel, {"seeds": {}, "reasons": ["not collected"]})
            cell = {"outcome": outcome(row["seeds"]) if row["seeds"] else "failed", "seeds": row["seeds"]}
            if row["reasons"]:
                cell["reason"] = " | ".join(row["reasons"])
            cell["hash"] = hashes[rel]
            data["pages"].setdefault(rel, {})[col.name] = cell
        print(
            f"{col.name}: {res['passed']} passed, {res['failed']} failed, {res['skipped']} skipped"
            f" in {res['seconds']} s",
            flush=True,
        )
        _write(data, pitfalls)  # after every column: a long run that stops keeps what it measured
    if only:  # the column totals count the merged cells
        for col in columns:
            seeds = [
                o for cells in data["pages"].values() if col.name in cells for o in cells[col.name]["seeds"].values()
            ]
            data["versions"][col.name].update({k: seeds.count(k) for k in ("passed", "failed", "skipped")})
    _write(data, pitfalls)
    bad = _report(data)
    print(f"wrote {RESULTS.relative_to(pages.ROOT)}")
    return 1 if bad else 0


def _write(data: dict, pitfalls: dict) -> None:
    order = [c.name for c in matrix_plan.load()]
    rank = {n: i for i, n in enumerate(order)}
    data["pinned"] = pinned()
    data["versions"] = dict(sorted(data["versions"].items(), key=lambda kv: (rank.get(kv[0], len(rank)), kv[0])))
    data["pages"] = {
        rel: dict(sorted(data["pages"][rel].items(), key=lambda kv: (rank.get(kv[0], len(rank)), kv[0])))
        for rel in sorted(pitfalls)
        if rel in data["pages"]
    }
    for cells in data["pages"].values():  # files written before ranges were judged from the pages stored them
        for cell in cells.values():
            cell.pop("in_range", None)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def _report(data: dict) -> list[str]:
    """Print the in-range failures (returned) and the pages that hold outside their declared range."""
    bad = in_range_failures(data)
    for line in bad:
        print("IN-RANGE FAILURE:", line)
    for rel, cells in data["pages"].items():
        meta = pages.load(pages.ROOT / rel).meta
        wider = [
            v
            for v, c in cells.items()
            if c["outcome"] == "passed" and contract.out_of_range(meta, data["versions"][v]["stack"]) is not None
        ]
        if wider:
            print(f"note: {rel} also holds on trl {', '.join(wider)}, outside its range")
    return bad


def in_range_failures(data: dict) -> list[str]:
    """Cells that failed on a column whose stack is inside the page's ``trl:``/``transformers:`` ranges."""
    out = []
    for rel, cells in data["pages"].items():
        path = pages.ROOT / rel
        if not path.exists():
            continue
        meta = pages.load(path).meta
        for name, cell in cells.items():
            stack = data["versions"].get(name, {}).get("stack", {"trl": name})
            if cell["outcome"] == "failed" and contract.out_of_range(meta, stack) is None:
                out.append(f"{rel} on {name}: {cell.get('reason', '')[:300]}")
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
