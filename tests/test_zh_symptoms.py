"""Chinese symptom lines taken from Chinese users' threads and posts (issue: Chinese search).

tests/zh_symptom_sources.yaml records, for every such line on a Chinese page, the page, the line
exactly as it stands in the page's `symptoms:` and the thread or post it was taken from. The lines
are users' own words (a title or a sentence, trimmed), so translated lines stay rare.
"""

import collections
import pathlib

import yaml

from handbook.content import pages

SOURCES = pathlib.Path(__file__).with_name("zh_symptom_sources.yaml")
FIELDS = {"page", "symptom", "source", "translated"}
MAX_TRANSLATED_SHARE = 0.10


def _records():
    records = yaml.safe_load(SOURCES.read_text(encoding="utf-8"))
    assert isinstance(records, list) and records, "zh_symptom_sources.yaml must be a non-empty list"
    return records


def test_records_are_well_formed():
    for i, rec in enumerate(_records()):
        assert isinstance(rec, dict) and set(rec) == FIELDS, f"record {i}: fields {rec!r}"
        assert isinstance(rec["page"], str) and rec["page"], f"record {i}: page"
        assert isinstance(rec["symptom"], str) and rec["symptom"].strip() == rec["symptom"], f"record {i}: symptom"
        assert 0 < len(rec["symptom"]) <= 60, f"record {i}: symptom longer than a search box ({len(rec['symptom'])})"
        # lunr's TokenSet reads '*' in an indexed term as a wildcard: one such Chinese token made every
        # zh query throw "Cannot read properties of undefined (reading '_index')" (seen with '8*80G')
        assert "*" not in rec["symptom"], f"record {i}: '*' in a symptom breaks the Chinese search index"
        assert isinstance(rec["source"], str) and rec["source"].startswith("https://"), f"record {i}: source"
        assert " " not in rec["source"], f"record {i}: source has a space"
        assert isinstance(rec["translated"], bool), f"record {i}: translated must be true or false"


def test_each_recorded_line_is_in_its_chinese_page():
    symptoms_of = {}
    for rec in _records():
        path = pages.DOCS / f"{rec['page']}.zh.md"
        assert path.is_file(), f"{rec['page']}: no Chinese page {path.relative_to(pages.ROOT)}"
        if path not in symptoms_of:
            symptoms_of[path] = pages.load(path).meta.get("symptoms") or []
        assert rec["symptom"] in symptoms_of[path], (
            f"{rec['page']}: {rec['symptom']!r} is not in the symptoms of {path.relative_to(pages.ROOT)}"
        )


def test_no_duplicate_lines():
    seen = collections.Counter((rec["page"], rec["symptom"]) for rec in _records())
    dupes = [key for key, n in seen.items() if n > 1]
    assert not dupes, f"recorded twice: {dupes}"


def test_translated_lines_stay_rare():
    records = _records()
    translated = sum(rec["translated"] for rec in records)
    assert translated <= MAX_TRANSLATED_SHARE * len(records), (
        f"{translated} of {len(records)} lines are translated (at most {MAX_TRANSLATED_SHARE:.0%})"
    )


def test_lines_are_chinese_users_words():
    # a line taken from a Chinese thread carries Chinese characters
    for rec in _records():
        if not rec["translated"]:
            assert any("\u4e00" <= ch <= "\u9fff" for ch in rec["symptom"]), f"{rec['page']}: {rec['symptom']!r}"
