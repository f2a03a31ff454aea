"""The log doctor on real logs users pasted into public threads (``doctor/tests/corpus/``, each with its source).

``make test`` prints, per source project: right (a page the log is labelled with is among the findings, or no
problem on a healthy log no page explains), wrong (findings, none of them that page), silent (no finding), and false
alarms (a problem named on a log the thread calls healthy). Every log is labelled: with the page(s) the thread's
answer points to, or, where the thread has no answer, the page(s) its ``note`` reasons for; ``pages: []`` only on a
healthy log (``problem: false``).
"""

from __future__ import annotations

import collections
import pathlib

import pytest
import yaml
from rlhf_doctor import cli
from rlhf_doctor import rules as R

from handbook import doctor_rules, pages

CORPUS = pages.ROOT / "doctor" / "tests" / "corpus"
ENTRIES = yaml.safe_load((CORPUS / "index.yaml").read_text(encoding="utf-8"))
FIELDS = {"file", "source", "project", "trainer", "format", "pages", "problem", "answer"}
RIGHT_SHARE = 0.85
"""The doctor must name a labelled page for at least this share of the corpus (issue 23)."""
KNOWN = {f"{p.meta['chapter']}/{p.meta['id']}" for p in pages.pitfall_pages()}


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e["file"])
def test_corpus_entry_is_well_formed(entry):
    assert FIELDS <= set(entry), f"{entry.get('file')}: missing {sorted(FIELDS - set(entry))}"
    assert entry["source"].startswith("https://"), entry["source"]
    assert (CORPUS / entry["file"]).is_file(), entry["file"]
    assert set(entry["pages"]) <= KNOWN, f"{entry['file']}: unknown pages {set(entry['pages']) - KNOWN}"
    assert entry["pages"] or not entry["problem"], f"{entry['file']}: a problem log needs the page(s) it points to"
    cli.read_log(CORPUS / entry["file"])  # every pasted format is readable (raises LogError otherwise)


def _score(entry, findings) -> str:
    named = [f"{f.page['chapter']}/{f.page['id']}" for f in findings]
    problems = [f for f in findings if f.kind == "problem"]
    if not entry["problem"] and not entry["pages"]:
        return "false alarm" if problems else "right"
    if not named:
        return "silent"
    if not entry["problem"] and problems:
        return "false alarm"
    return "right" if set(named) & set(entry["pages"]) else "wrong"


def test_corpus_figures(record_property):
    rules = doctor_rules.export()["pages"]
    table: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for entry in ENTRIES:
        findings = R.diagnose(cli.read_log(CORPUS / entry["file"]), rules)
        outcome = _score(entry, findings)
        table[entry["project"]][outcome] += 1
        table["all"][outcome] += 1
    kinds = ("right", "wrong", "silent", "false alarm")
    lines = [f"{project:14} " + "  ".join(f"{k} {c[k]}" for k in kinds) for project, c in sorted(table.items())]
    record_property("figures", f"log doctor on {len(ENTRIES)} real logs from public threads:\n" + "\n".join(lines))
    total = table["all"]
    assert total["false alarm"] == 0, "the doctor named a problem on a log its thread calls healthy"
    assert total["right"] >= RIGHT_SHARE * len(ENTRIES), (
        f"the doctor names a labelled page for {total['right']}/{len(ENTRIES)} real logs, under {RIGHT_SHARE:.0%}: "
        + "\n".join(lines)
    )


def test_corpus_is_real_and_sourced():
    assert len(ENTRIES) >= 25 and len({e["project"] for e in ENTRIES}) >= 4
    assert sum(not e["problem"] for e in ENTRIES) >= 6, "healthy logs are needed to count false alarms"
    assert all(pathlib.Path(e["file"]).name == e["file"] for e in ENTRIES)


TUNING = pages.ROOT / "doctor" / "tests" / "tuning-new"
TUNING_ENTRIES = yaml.safe_load((TUNING / "index.yaml").read_text(encoding="utf-8"))
TUNING_RIGHT = 7
"""Right on 7 of the 14 logs collected for the doctor's next rules (2026-12-06; 5 before the rules were changed on
them): the floor until they join the corpus at the corpus's share."""


@pytest.mark.parametrize("entry", TUNING_ENTRIES, ids=lambda e: e["file"])
def test_tuning_entry_is_well_formed(entry):
    assert FIELDS <= set(entry), f"{entry.get('file')}: missing {sorted(FIELDS - set(entry))}"
    assert (TUNING / entry["file"]).is_file(), entry["file"]
    assert set(entry["pages"]) <= KNOWN, f"{entry['file']}: unknown pages {set(entry['pages']) - KNOWN}"
    cli.read_log(TUNING / entry["file"])


def test_tuning_logs_figures(record_property):
    """The logs collected for the next round of rules (doctor/tests/tuning-new): scored like the corpus, reported
    apart; no false alarm, and no fewer right than when the rules were last changed on them."""
    rules = doctor_rules.export()["pages"]
    outcomes = collections.Counter(
        _score(e, R.diagnose(cli.read_log(TUNING / e["file"]), rules)) for e in TUNING_ENTRIES
    )
    kinds = ("right", "wrong", "silent", "false alarm")
    record_property(
        "figures",
        f"log doctor on the {len(TUNING_ENTRIES)} tuning-new logs: " + "  ".join(f"{k} {outcomes[k]}" for k in kinds),
    )
    assert outcomes["false alarm"] == 0, outcomes
    assert outcomes["right"] >= TUNING_RIGHT, outcomes
