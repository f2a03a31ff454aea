"""The search evaluation's dated blind sets (``tests/search_blind_<date>.yaml``): each collected from real threads
before the ranking work it judges, scored once on the built site (the result is in the file's header), then spent.
They are kept as data, well-formed: a language, a source link, expected pages that exist, no query twice across
the sets (tests/search_queries.yaml included)."""

from __future__ import annotations

import pathlib

import pytest
import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
BLIND = sorted((ROOT / "tests").glob("search_blind_*.yaml"))


def _entries(path: pathlib.Path) -> list[dict]:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", BLIND, ids=lambda p: p.name)
def test_blind_set_is_well_formed_and_scored(path):
    header = path.read_text(encoding="utf-8").split("\n- ", 1)[0]
    assert "Scored once" in header, f"{path.name}: header: the score of its one run (or say why it is not scored)"
    for n, e in enumerate(_entries(path), 1):
        where = f"{path.name}: entry {n} ({e.get('query', '')!r})"
        assert e.get("lang") in ("en", "zh"), f"{where}: lang: en or zh"
        assert str(e.get("source", "")).startswith("https://"), f"{where}: source: a link to the thread"
        assert e.get("set", "").startswith("blind-"), f"{where}: set: blind-<date>"
        assert e.get("expected"), f"{where}: expected: the page(s) that answer it"
        for page in e["expected"]:
            assert (ROOT / "docs" / f"{page}.md").exists(), f"{where}: expected: no page docs/{page}.md"


def test_no_query_is_in_two_sets():
    seen: dict[tuple[str, str], str] = {}
    for path in [ROOT / "tests" / "search_queries.yaml", *BLIND]:
        for e in _entries(path):
            key = (e["lang"], e["query"].strip())
            assert key not in seen, f"{path.name}: {e['query']!r} is also in {seen[key]}"
            seen[key] = path.name
