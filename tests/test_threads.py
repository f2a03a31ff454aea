"""The sample of real threads (compat/threads.yaml, handbook/content/threads.py) is well-formed, and its coverage is
printed.

- every entry has its fields, a GitHub thread url, a known family/kind/verdict and existing pages;
- a url appears once across the working sample and the blind part;
- ``cited`` says whether the repository cites the thread (pages, snippets, the search evaluation, the doctor);
- the coverage per family goes to the figures section of the test run. The blind part's verdicts are not printed:
  it is judged once, at the end of a round of page writing.
"""

from __future__ import annotations

import pytest

from handbook.content import pages, threads

KNOWN = {f"{p.meta['chapter']}/{p.meta['id']}" for p in pages.pitfall_pages()}
SAMPLE = threads.load(threads.SAMPLE)


@pytest.fixture(scope="module")
def cited_text():
    return threads.cited_refs()


def test_sample_is_large_and_recent():
    assert len(SAMPLE) >= 120, len(SAMPLE)
    recent = sum(1 for e in SAMPLE if (e.get("year") or 0) >= 2025)
    assert recent >= len(SAMPLE) / 2, f"{recent} of {len(SAMPLE)} threads from 2025-2026"
    assert len({e["project"] for e in SAMPLE}) >= 5 and len({e["trainer"] for e in SAMPLE}) >= 4


@pytest.mark.parametrize("path", [threads.SAMPLE, *threads.BLINDS], ids=lambda p: p.name)
def test_entries_are_well_formed(path, cited_text):
    entries = threads.load(path)
    problems = threads.problems(path, entries, KNOWN, cited_text)
    assert not problems, "\n".join(problems)


def test_a_thread_is_in_one_file_once():
    assert len(threads.BLINDS) >= 2, threads.BLINDS
    assert not threads.duplicate_urls(SAMPLE, *(threads.load(p) for p in threads.BLINDS))


def test_problems_name_file_line_and_field(tmp_path, monkeypatch):
    monkeypatch.setattr(threads.pages, "ROOT", tmp_path)
    path = tmp_path / "threads.yaml"
    path.write_text(
        "- url: https://github.com/huggingface/trl/issues/1\n"
        "  project: trl\n  year: 2025\n  trainer: GRPO\n  trl_version: null\n  family: vllm\n  kind: error\n"
        "  words: x\n  error: null\n  answer: y\n  verdict: covered\n  pages: [nowhere/page]\n  cited: true\n",
        encoding="utf-8",
    )
    found = threads.problems(path, threads.load(path), KNOWN, cited_text="nothing cites it")
    assert found == [
        "threads.yaml:1: pages: ['nowhere/page'] are not pitfall pages",
        "threads.yaml:1: cited: True, but the repository does not cite it",
    ]


def test_coverage_per_family(record_property):
    table = threads.coverage(SAMPLE)
    assert sum(table["all"].values()) == len(SAMPLE)
    record_property("figures", threads.report(SAMPLE))
