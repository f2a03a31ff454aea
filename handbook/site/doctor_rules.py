"""The log doctor's rules, from the pages' front matter (``doctor:``), and their check on the run record.

``python -m handbook doctor-rules`` writes ``doctor/rlhf_doctor/rules.json`` (the standalone ``rlhf-doctor``
package reads only that file). ``fire_silent()`` runs every rule on every recorded symptom and fix run: a page's
rule must fire on its own symptom run and stay silent on its own fix run; over all fix runs of all pages the
firings are false alarms, over all symptom runs the silences are misses (tests/test_doctor.py prints both).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from rlhf_doctor import cli  # noqa: F401  (hooks/page_meta.py renders its report)
from rlhf_doctor import rules as R

from handbook.content import pages

SITE = "https://rlhf-pitfalls.github.io/rlhf-pitfalls-handbook/"
RULES_JSON = pages.ROOT / "doctor" / "rlhf_doctor" / "rules.json"


def export() -> dict:
    """rules.json: every page with a ``doctor:`` rule, its titles and links in both languages."""
    out = []
    for p in sorted(pages.all_pages(), key=lambda p: p.rel):
        if p.lang != "en" or p.kind != "pitfall" or p.errors or not p.meta.get("doctor"):
            continue
        zh = pages.load(pages.twin_of(p.path))
        loc = f"{p.meta['chapter']}/{p.meta['id']}/"
        out.append(
            {
                "id": p.meta["id"],
                "chapter": p.meta["chapter"],
                "title": {"en": p.meta["title"], "zh": zh.meta.get("title", p.meta["title"])},
                "url": {"en": SITE + loc, "zh": SITE + "zh/" + loc},
                "rule": p.meta["doctor"],
            }
        )
    return {"version": 1, "site": SITE, "pages": out}


def write_rules() -> int:
    text = json.dumps(export(), ensure_ascii=False, indent=1) + "\n"
    RULES_JSON.write_text(text, encoding="utf-8")
    print(f"{len(export()['pages'])} rule(s) written to {RULES_JSON.relative_to(pages.ROOT)}")
    return 0


@dataclass
class FireSilent:
    fired: list[str] = field(default_factory=list)  # page: own symptom run, rule fired (per seed)
    missed: list[str] = field(default_factory=list)  # page: own symptom run, rule silent
    silent: list[str] = field(default_factory=list)  # page: own fix run, rule silent
    own_false: list[str] = field(default_factory=list)  # page: own fix run, rule fired
    symptom_runs: int = 0
    fix_runs: int = 0
    false_alarms: list[str] = field(default_factory=list)  # (problem rule, fix run of page) pairs that fired
    all_misses: list[str] = field(default_factory=list)  # symptom runs no rule matched at all


def _logs(rec: dict, run: int, seed: str) -> list[dict]:
    seeds = rec["seeds"].get(seed, [])
    return seeds[run - 1]["logs"] if 1 <= run <= len(seeds) else []


def fire_silent() -> FireSilent:
    from handbook.lanes import real_runs

    rules = export()["pages"]
    m = FireSilent()
    for p in pages.all_pages():
        if p.lang != "en" or p.kind != "pitfall" or p.errors or not p.meta.get("chart"):
            continue
        rec = real_runs.shown(p.meta)  # the real model's runs where they passed, as the charts show
        if rec is None:
            continue
        own = [r for r in rules if r["id"] == p.meta["id"]]
        chart_runs = p.meta["chart"]["runs"]
        for seed in sorted(rec["seeds"]):
            if "symptom" in chart_runs and (log := _logs(rec, chart_runs["symptom"], seed)):
                m.symptom_runs += 1
                found = {f.page["id"] for f in R.diagnose(log, rules)}
                if own:
                    (m.fired if p.meta["id"] in found else m.missed).append(f"{p.meta['id']} seed {seed}")
                if not found:
                    m.all_misses.append(f"{p.meta['id']} seed {seed}")
            if "fix" in chart_runs and (log := _logs(rec, chart_runs["fix"], seed)):
                m.fix_runs += 1
                found = {f.page["id"] for f in R.diagnose(log, rules)}
                if own:
                    (m.own_false if p.meta["id"] in found else m.silent).append(f"{p.meta['id']} seed {seed}")
                problems = {f.page["id"] for f in R.diagnose(log, rules) if f.kind == "problem"}
                m.false_alarms += [f"{rid} on the fix run of {p.meta['id']} seed {seed}" for rid in sorted(problems)]
    return m
