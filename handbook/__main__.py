"""Contributor CLI.

- ``python -m handbook new <chapter> <slug>``: scaffold a page pair and its snippet from the templates.
- ``python -m handbook check``: validate every page, its twin and its snippet against the contract.
- ``python -m handbook code <page.md>``: print the code the page shows, as a reader would paste it.
- ``python -m handbook run <page.md> [--seed N]``: paste-run the page's code (as the test suite does).
- ``python -m handbook record [PAGE ...]``: the run records charts and quoted numbers come from.
- ``python -m handbook doctor-rules``: the log doctor's rules.json, from the pages' ``doctor:`` front matter.
- ``python -m handbook matrix [--column NAME] [--trl X.Y.Z]``: the version matrix (``make matrix``).
- ``python -m handbook matrix-plan``: the matrix's columns, from the package index's release dates.
- ``python -m handbook mutate 'GRPOConfig.beta=0.04'``: the mutation check: which pages fail when one TRL
  default changes.
- ``python -m handbook real``: provision (once) the real model, SmolLM2-135M-Instruct, and print its path.
- ``python -m handbook real-record [PAGE ...] [--stale]``: run pages on the real model, write compat/real/
  (``make real``).
- ``python -m handbook tiny``: build (once) the tiny test model and print its path, e.g. for
  ``HANDBOOK_MODEL=$(python -m handbook tiny) python page.py``.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

from handbook.content import pages
from handbook.site import site_checks


def new(chapter: str, slug: str) -> int:
    if chapter not in pages.CHAPTERS:
        print(f"error: unknown chapter {chapter!r}; one of {', '.join(pages.CHAPTERS)}", file=sys.stderr)
        return 2
    if not pages.SLUG.fullmatch(slug):
        print(f"error: slug {slug!r} must be kebab-case (a-z, 0-9, '-')", file=sys.stderr)
        return 2
    templates = pages.ROOT / "handbook" / "templates"
    targets = {
        pages.DOCS / chapter / f"{slug}.md": "page.md",
        pages.DOCS / chapter / f"{slug}.zh.md": "page.zh.md",
        pages.SNIPPETS / chapter / f"{slug}.py": "snippet.py",
    }
    for target in targets:
        if target.exists():
            print(f"error: {target.relative_to(pages.ROOT)} already exists", file=sys.stderr)
            return 1
    for target, template in targets.items():
        target.parent.mkdir(parents=True, exist_ok=True)
        text = (templates / template).read_text(encoding="utf-8")
        target.write_text(text.format(chapter=chapter, slug=slug), encoding="utf-8")
        print(f"created {target.relative_to(pages.ROOT)}")
    print(f"Now fill in every TODO, then run: python -m handbook check && pytest docs/{chapter}/{slug}.md")
    return 0


def check() -> int:
    errors = site_checks.check_all()
    for err in errors:
        print(err)
    n = len(list(pages.DOCS.rglob("*.md")))
    print(f"{n} pages checked, {len(errors)} problem(s)")
    return 1 if errors else 0


def code(page: str) -> int:
    from handbook.content import contract

    print(contract.page_code(pathlib.Path(page)), end="")
    return 0


def run(page: str, seeds: list[int] | None) -> int:
    import os

    from handbook.content import contract
    from handbook.lanes import harness, real_runs

    path = pathlib.Path(page).resolve()
    snip = contract.parse(pages.ROOT / pages.load(path).meta.get("snippet", ""))
    if snip.errors:
        print("\n".join(snip.errors), file=sys.stderr)
        return 1
    runner = harness.PageRunner()
    failed = 0
    # a model named in HANDBOOK_MODEL (the real one, say) gets the real-model lane's time limit
    timeout = real_runs.TIMEOUT if os.environ.get(contract.MODEL_ENV) else harness.TIMEOUT
    try:
        for seed in seeds or snip.seeds:
            res = runner.run(path, contract.CHECK, seed, timeout=timeout)
            print(f"seed {seed}: {'OK  ' if res.ok else 'FAIL'} [{res.kind}, {res.seconds:.1f} s] {res.message}")
            if not res.ok:
                failed += 1
                print(res.traceback, res.log, sep="\n", file=sys.stderr)
    finally:
        runner.close()
    return 1 if failed else 0


def _print_path(build) -> int:
    """Print the model folder ``build()`` returns, alone on stdout (``HANDBOOK_MODEL=$(python -m handbook tiny)``):
    what building prints goes to stderr, DeepSpeed's "Setting accelerator to CPU" warning too (its logger writes to
    the stdout it finds at import, and transformers imports it while a model is built)."""
    import contextlib

    with contextlib.redirect_stdout(sys.stderr):
        path = build()
    print(path)
    return 0


def _tiny_path(seed: int, vlm: bool) -> str:
    from handbook import tiny, tiny_vlm

    return tiny_vlm.vlm_path(seed) if vlm else tiny.model_path(seed)


def _real_path() -> str:
    from handbook.lanes import real

    return real.model_path()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m handbook", description=__doc__)
    sub = parser.add_subparsers(dest="cmd", required=True)
    p_new = sub.add_parser("new", help="scaffold a bilingual page pair and its snippet")
    p_new.add_argument("chapter", choices=list(pages.CHAPTERS))
    p_new.add_argument("slug")
    sub.add_parser("check", help="validate every page, twin parity and snippet links")
    p_code = sub.add_parser("code", help="print the code a page shows, as a reader would paste it")
    p_code.add_argument("page")
    p_run = sub.add_parser("run", help="paste-run a page's code in a fresh process, like the test suite")
    p_run.add_argument("page")
    p_run.add_argument("--seed", type=int, action="append", help="a seed (repeatable); default: the snippet's SEEDS")
    p_tiny = sub.add_parser("tiny", help="build (once) the tiny test model and print its path")
    p_tiny.add_argument("--seed", type=int, default=0, help="each seed has its own tiny model (the suite uses it)")
    p_tiny.add_argument("--vlm", action="store_true", help="the tiny vision-language model (HANDBOOK_VLM) instead")
    p_mut = sub.add_parser("mutate", help="run every page with a TRL default changed; list the pages that fail")
    p_mut.add_argument("spec", help="Class.field=value[;...], e.g. 'GRPOConfig.beta=0.04'")
    p_mut.add_argument("--workers", type=int, default=2)
    p_matrix = sub.add_parser("matrix", help="run every page on the planned stacks; write compat/trl-matrix.json")
    p_matrix.add_argument("--column", action="append", help="a column of compat/matrix-columns.json (repeatable)")
    p_matrix.add_argument("--trl", action="append", help="a TRL version on the pinned stack (repeatable)")
    p_matrix.add_argument("--workers", type=int, default=2)
    p_matrix.add_argument("--page", action="append", help="re-run only this page (repeatable); others are kept")
    sub.add_parser("matrix-plan", help="list the matrix's columns from the index: write compat/matrix-columns.json")
    p_rec = sub.add_parser("record", help="run pages on the pinned TRL; write their run records (compat/runs/)")
    p_rec.add_argument("page", nargs="*", help="pages (docs/<chapter>/<slug>.md); default: every pitfall page")
    p_rec.add_argument("--workers", type=int, default=2)
    sub.add_parser("real", help="provision (once) the real model, SmolLM2-135M-Instruct, and print its path")
    p_real = sub.add_parser("real-record", help="run pages on the real model; write compat/real/ (make real)")
    p_real.add_argument("page", nargs="*", help="pages (docs/<chapter>/<slug>.md); default: every pitfall page")
    p_real.add_argument("--workers", type=int, default=2)
    p_real.add_argument("--stale", action="store_true", help="only pages whose committed row is missing or stale")
    p_real.add_argument("--model", help="another model (hub id or folder), e.g. in GPU CI; needs --out")
    p_real.add_argument("--out", default="", help="where --model's rows go (not compat/real/)")
    sub.add_parser("doctor-rules", help="write the log doctor's rules.json from the pages' doctor: front matter")
    args = parser.parse_args(argv)
    if args.cmd == "doctor-rules":
        from handbook.site import doctor_rules as doctor

        return doctor.write_rules()
    if args.cmd == "record":
        from handbook.lanes import runs

        return runs.record(args.page, args.workers)
    if args.cmd == "real":
        return _print_path(_real_path)
    if args.cmd == "real-record":
        from handbook.lanes import real_runs

        return real_runs.record(args.page, args.workers, args.stale, args.model, args.out)
    if args.cmd == "mutate":
        from handbook.versions import matrix

        return matrix.mutate(args.spec, args.workers)
    if args.cmd == "matrix":
        from handbook.versions import matrix

        return matrix.main(args.column, args.trl, args.workers, args.page)
    if args.cmd == "matrix-plan":
        from handbook.versions import matrix_plan

        return matrix_plan.write()
    if args.cmd == "tiny":
        return _print_path(lambda: _tiny_path(args.seed, args.vlm))
    if args.cmd == "new":
        return new(args.chapter, args.slug)
    if args.cmd == "code":
        return code(args.page)
    if args.cmd == "run":
        return run(args.page, args.seed)
    return check()


if __name__ == "__main__":
    sys.exit(main())
