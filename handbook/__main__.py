"""Contributor CLI: ``python -m handbook new <chapter> <slug>`` and ``python -m handbook check``."""

from __future__ import annotations

import argparse
import sys

from handbook import pages


def new(chapter: str, slug: str) -> int:
    if chapter not in pages.CHAPTERS:
        print(f"error: unknown chapter {chapter!r}; one of {', '.join(pages.CHAPTERS)}", file=sys.stderr)
        return 2
    if not pages.SLUG.match(slug):
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
    print("Now fill in every TODO, then run: python -m handbook check && pytest -k", slug)
    return 0


def check() -> int:
    errors = pages.check_all()
    for err in errors:
        print(err)
    n = len(list(pages.DOCS.rglob("*.md")))
    print(f"{n} pages checked, {len(errors)} problem(s)")
    return 1 if errors else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m handbook", description=__doc__)
    sub = parser.add_subparsers(dest="cmd", required=True)
    p_new = sub.add_parser("new", help="scaffold a bilingual page pair and its snippet")
    p_new.add_argument("chapter", choices=list(pages.CHAPTERS))
    p_new.add_argument("slug")
    sub.add_parser("check", help="validate every page, twin parity and snippet links")
    args = parser.parse_args(argv)
    return new(args.chapter, args.slug) if args.cmd == "new" else check()


if __name__ == "__main__":
    sys.exit(main())
