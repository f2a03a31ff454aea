"""The sample of real threads (compat/threads.yaml): what users report, and how much of it the pages answer.

Each entry is one public thread where a user hit a problem training with TRL or a TRL-based stack, with the
user's words, the answer the thread reached and a verdict against the pages: ``covered`` (a page's cause and
fix answer it), ``partly`` (a related page: another cause, another release, half the answer) or ``no``.
An entry with ``found_by: page`` was found by a page's author while writing that page (it answers that page by
construction): the report gives the coverage of the sample as collected apart.
``compat/threads-blind.yaml`` has the same fields and is kept apart: it is judged once, at the end of a round of
page writing, and its figures are reported separately.
"""

from __future__ import annotations

import collections
import pathlib
import re

import yaml

from handbook.content import pages

SAMPLE = pages.ROOT / "compat" / "threads.yaml"
BLINDS = sorted((pages.ROOT / "compat").glob("threads-blind*.yaml"))
"""Every held-out part: threads-blind.yaml (collected 2026-12-06) and the dated ones collected later, each judged
once (the score is in its header)."""

FIELDS = ("url", "project", "year", "trainer", "trl_version", "family", "kind", "words", "error", "answer")
FIELDS += ("verdict", "pages", "cited")
FAMILIES = (
    "vllm",
    "peft-adapter",
    "deepspeed-fsdp",
    "vlm",
    "dataset-format",
    "multi-turn-tools",
    "metric-logging",
    "metric-behaviour",
    "nan-divergence",
    "hang-slow",
    "version-change",
    "oom",
    "config-error",
    "other-error",
)
KINDS = ("error", "hang-slow", "metric-behaviour", "version-change", "oom")
VERDICTS = ("covered", "partly", "no")
URL = re.compile(r"^https://github\.com/([\w.-]+/[\w.-]+)/(?:issues|pull|discussions)/(\d+)$")
SEARCHED = ("docs", "snippets", "tests", "doctor")
"""Where a thread counts as cited (the search evaluation lives in tests/, the doctor's corpus in doctor/)."""


def load(path: pathlib.Path = SAMPLE) -> list[dict]:
    return yaml.safe_load(path.read_text(encoding="utf-8")) or []


def _lines(path: pathlib.Path) -> dict[str, int]:
    """url -> line of its entry, for error messages."""
    out = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.startswith("- url: "):
            out[line[len("- url: ") :].strip()] = n
    return out


def cited_refs() -> str:
    """The text of every file a thread can be cited in (pages, snippets, tests, the doctor's corpus)."""
    parts = []
    for top in SEARCHED:
        for p in (pages.ROOT / top).rglob("*"):
            if p.is_file() and p.suffix in (".md", ".py", ".yaml", ".yml", ".json", ".txt", ".jsonl", ".js"):
                parts.append(p.read_text(encoding="utf-8", errors="ignore"))
    return "\n".join(parts)


def is_cited(url: str, text: str) -> bool:
    m = URL.match(url)
    short = f"{m.group(1)}#{m.group(2)}" if m else None
    return url in text or bool(short and re.search(re.escape(short) + r"(?!\d)", text))


def problems(path: pathlib.Path, entries: list[dict], known_pages: set[str], cited_text: str | None) -> list[str]:
    """``path:line: field: message`` for every malformed entry (``cited_text``: None skips the cited check)."""
    where = _lines(path)
    rel = path.relative_to(pages.ROOT)
    out = []
    for i, e in enumerate(entries):
        url = e.get("url", f"entry {i + 1}")
        at = f"{rel}:{where.get(url, '?')}"
        missing = [f for f in FIELDS if f not in e]
        if missing:
            out.append(f"{at}: fields: missing {missing}")
            continue
        checks = (
            ("url", bool(URL.match(e["url"])), "not a GitHub issue, pull request or discussion url"),
            ("family", e["family"] in FAMILIES, f"one of {FAMILIES}"),
            ("kind", e["kind"] in KINDS, f"one of {KINDS}"),
            ("verdict", e["verdict"] in VERDICTS, f"one of {VERDICTS}"),
            ("words", bool(str(e["words"] or "").strip()), "the user's words are empty"),
        )
        out += [f"{at}: {field}: {e[field]!r}: {msg}" for field, ok, msg in checks if not ok]
        unknown = [p for p in e["pages"] or [] if p not in known_pages]
        if unknown:
            out.append(f"{at}: pages: {unknown} are not pitfall pages")
        if (e["verdict"] == "no") != (not e["pages"]):
            out.append(f"{at}: pages: a '{e['verdict']}' verdict needs {'no' if e['verdict'] == 'no' else 'its'} pages")
        if cited_text is not None and bool(e["cited"]) != is_cited(e["url"], cited_text):
            out.append(
                f"{at}: cited: {e['cited']!r}, but the repository {'does' if not e['cited'] else 'does not'} cite it"
            )
    return out


def duplicate_urls(*lists: list[dict]) -> list[str]:
    seen = collections.Counter(e.get("url") for entries in lists for e in entries)
    return sorted(u for u, n in seen.items() if n > 1)


def coverage(entries: list[dict], key: str = "family") -> dict[str, collections.Counter]:
    """key value -> Counter of verdicts, plus ``all``."""
    out: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for e in entries:
        out[e[key]][e["verdict"]] += 1
        out["all"][e["verdict"]] += 1
    return dict(out)


def _row(label: str, c: collections.Counter) -> str:
    n = sum(c.values())
    return (
        f"  {label:<17} {n:>4}  covered {c['covered']:>3} ({c['covered'] / n:6.1%})  partly {c['partly']:>3}  "
        f"no {c['no']:>3} ({c['no'] / n:6.1%})"
    )


def report(entries: list[dict], key: str = "family") -> str:
    """The coverage table ``make test`` prints: per family, covered / partly / no and the covered share; and the
    sample as collected apart (threads a page's author found while writing it answer that page by design)."""
    table = coverage(entries, key)
    order = sorted((k for k in table if k != "all"), key=lambda k: -sum(table[k].values())) + ["all"]
    lines = [f"thread sample ({len(entries)} threads, {SAMPLE.name}): coverage per {key}"]
    collected = [e for e in entries if e.get("found_by") != "page"]
    if len(collected) < len(entries):
        found = len(entries) - len(collected)
        lines.append(_row("as collected", coverage(collected, key)["all"]) + f"  (without the {found} found_by: page)")
    return "\n".join(lines + [_row(k, table[k]) for k in order])
