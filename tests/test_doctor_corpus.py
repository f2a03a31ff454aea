"""The log doctor on real logs users pasted into public threads (``doctor/tests/corpus/``, each with its source).

``make test`` prints, per source project: right, wrong (findings, none of them a labelled page), silent (no finding
on a log a page explains) and false alarms (a problem named on a log the thread calls healthy). Right means what a
reader would want to see: a page the log is labelled with is among the findings; or nothing is named where the log
needs no page (a healthy log no page explains) or no page explains it (a problem the handbook does not cover: naming
a page there sends the reader to the wrong place). Every log is labelled: with the page(s) the thread's answer points
to, or, where the thread has no answer, the page(s) its ``note`` reasons for.

A held-out part is collected blind, scored once with this scorer (its figures are in the header of the corpus's
index.yaml), then joins the corpus as tuning data, its ``part`` saying when it joined.
"""

from __future__ import annotations

import collections
import pathlib

import pytest
import yaml
from rlhf_doctor import cli
from rlhf_doctor import rules as R

from handbook.content import pages
from handbook.site import doctor_rules

CORPUS = pages.ROOT / "doctor" / "tests" / "corpus"
ENTRIES = yaml.safe_load((CORPUS / "index.yaml").read_text(encoding="utf-8"))
FIELDS = {"file", "source", "project", "trainer", "format", "pages", "problem", "answer", "part"}
PARTS = {
    "corpus",
    "tuning-2026-12-06",
    "blind-2026-12-06",
    "blind-2026-12-07",
    "blind-2026-12-07b",
    "blind-2026-12-07c",
    "blind-2026-12-07d",
    "blind-2026-12-07e",
    "blind-2026-12-07f",
    "blind-2026-12-07g",
    "blind-2026-12-08h",
}
RIGHT = 175
"""Right on 120 of the 148 logs (2026-12-07, 25 rules): the floor. 89 of the first 128 (the history of those is in
the corpus header and in git); the blind part 2026-12-07d joined (right 16 of its 20 readable logs, when scored once
with 3 more unreadable ones): 105 of 148. Then a judge who wrote no page and never ran the doctor added the NaN triage
page (debugging/nan-grad-norm-which-cause) to 20 of the 30 logs holding nan or inf, by the criterion in the corpus
header (a cause the page covers, or a grad_norm/loss nan in LLM fine-tuning whose thread reached no cause): 117; two
logs the reader had got wrong (mmengine's pairs, a dict cut off by the paste) read now: 119; the zero-std page's rule
also fires on reward_std 0 for 2 steps (older TRL logs no frac_reward_zero_std): 120. The blind part 2026-12-07e joined
(right 9 of its 17 readable logs, scored once with 5 more unreadable ones): 129 of 165; the reader then learned
nanoGPT's "iter N: loss ..." lines and one of the five (healthy, silent) joined: 130 of 166. The reader then learned
the other four's formats and they joined: minimind's (healthy, right), DeepSpeed-Chat's reward evaluation lines (silent:
the RM accuracy page's rule needs a margin and ten losses), tinygrad's (healthy, a false alarm: 509 below) and a
Megatron-Bridge summary in bullets (right, the explosion page): 132 of 170. The ln(V) rule then stayed quiet on a loss
that falls (its last third 5% below its first, the page's own "a random model does not stay at ln(V)"): 509 and 521,
two healthy runs from random weights, right: 134 of 170. The blind part 2026-12-07f joined (right 11 of its 16
readable logs, scored once with 2 more unreadable ones): 145 of 186. The reader then learned comma-separated "name
value" / "name: value" lines (CPM's "Epoch 3, global step 750, ..., train lm loss: 11.53", Liger's "Step 11, Loss:
1.15") and the two joined: 618 (healthy, silent, right) and 609 (a loss flat at 11.5, labelled with no page: wrong, the
ln(V) page named): 146 of 188. A second judge (no page written, the doctor never run) applied the NaN criterion of
the corpus header to the nan/inf logs of parts e and f not judged before: the triage page on 611, 613, 614 and 615
(and the fp16 page on 615), 513 unchanged; then the loss-vs-grad-accum page got a rule (a loss above 13, above ln(V)
of any vocabulary, for 2 steps, without nan: 212 and 512 right) and the triage page's rule also fires on eval_loss
nan (520) and on a loss logged as exactly 0.0 for 2 steps outside RL and DPO logs (508, 518, 612 right; 74 and 616,
labelled with no page, wrong): 154 of 188. The blind part 2026-12-07g joined (right 13 of its 20 readable logs,
scored once with 4 more unreadable ones; 715, a healthy Liger example whose loss sits above 13, a false alarm):
167 of 208. The second judge then applied the NaN criterion to the 8 problem logs of part g holding nan, inf or a
loss of exactly 0: the triage page on 704 and 713 (b) and 706 (a), none on the five whose loss is 0 without a nan
(only a named cause counts there): 704 and 706 right, 713 silent (its nan is in a train_epoch_loss the rules do
not watch): 168 of 208. Part g showed the NaN page's loss-of-0 condition firing on logs whose loss is 0 from the
first row (labelled with no page); a new pattern, drops_to (the loss falls to 0 after a logged value that is not 0,
the page's title: "the loss drops to 0"), replaced equals: 616, 705, 712 and 74 right, 59 and 72 wrong, 702 silent
(its paste starts at 0): 170 of 208. The blind part 2026-12-08h joined (right 5 of its 7 readable logs, scored once
with 4 more unreadable ones): 175 of 215. The issue's goal is 90%."""
KNOWN_FALSE_ALARMS = {
    "101-rex-omni-qwen25vl-sft-zero3-params-zero.txt",
    "402-axolotl-sppo-iter2.txt",
    "421-unsloth-studio-pr-demo.txt",
    "502-trl-orpo-galore-lr-display.txt",
    "715-liger-medusa-example-log.txt",
}
"""A healthy warm-up (grad_norm 54, 290, 262, 84, 96 while the learning rate rises from 0) that the explosion rule's
'above 100 for 2' names: the page's own real-model symptom run (209, then 603) cannot be told apart from it by
grad_norm alone. 402: an SPPO run at a LoRA-sized learning rate (1.6e-4, 'above 1e-4' names the gibberish page);
nobody in the thread reports a problem, and nothing in its three rows shows one. 421: an SFT demo whose loss of
14.6-14.9 is above ln(V) of any current vocabulary (the ln(V) rule's 'above 9.5 for 3'); the thread shows it only to
prove the app runs and calls nothing wrong. 502 (blind part e): an ORPO run with GaLore whose logged learning rate
is a constant 0.001 placeholder of its layer-wise optimizer (above the gibberish page's 1e-4).
All labels are the collectors', kept as given. Any other false alarm fails the test."""
KNOWN = {f"{p.meta['chapter']}/{p.meta['id']}" for p in pages.pitfall_pages()}
RULES = doctor_rules.export()["pages"]


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e["file"])
def test_entry_is_well_formed(entry):
    assert FIELDS <= set(entry), f"{entry.get('file')}: missing {sorted(FIELDS - set(entry))}"
    assert entry["source"].startswith("https://"), entry["source"]
    assert entry["part"] in PARTS, f"{entry['file']}: part {entry['part']!r} not one of {sorted(PARTS)}"
    assert (CORPUS / entry["file"]).is_file(), entry["file"]
    assert set(entry["pages"]) <= KNOWN, f"{entry['file']}: unknown pages {set(entry['pages']) - KNOWN}"
    cli.read_log(CORPUS / entry["file"])  # every pasted format is readable (raises LogError otherwise)


def score(entry, findings) -> str:
    """right, wrong, silent or false alarm (the module's docstring says when)."""
    named = {f"{f.page['chapter']}/{f.page['id']}" for f in findings}
    problems = [f for f in findings if f.kind == "problem"]
    if not entry["problem"] and problems and not named & set(entry["pages"]):
        return "false alarm"
    if not entry["pages"]:  # a healthy log may get notes on expected patterns; a problem no page explains, nothing
        wrongly_named = named if entry["problem"] else problems
        return "wrong" if wrongly_named else "right"
    if not named:
        return "silent"
    return "right" if named & set(entry["pages"]) else "wrong"


KINDS = ("right", "wrong", "silent", "false alarm")


def outcomes(folder, entries) -> list[tuple[dict, str]]:
    """Each entry with its outcome: the doctor runs once per log."""
    return [(e, score(e, R.diagnose(cli.read_log(folder / e["file"]), RULES))) for e in entries]


def table(scored: list[tuple[dict, str]]) -> dict[str, collections.Counter]:
    """Outcome counts per source project, and ``all``; ``page named`` counts the problem logs a page explains
    where the doctor names that page (``page logs``: how many such logs)."""
    out: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for entry, outcome in scored:
        for key in (entry["project"], "all"):
            out[key][outcome] += 1
        if entry["problem"] and entry["pages"]:
            out["all"]["page logs"] += 1
            out["all"]["page named"] += outcome == "right"
    return out


def line(label: str, c: collections.Counter) -> str:
    return f"{label:14} " + "  ".join(f"{k} {c[k]}" for k in KINDS)


def test_corpus_figures(record_property):
    scored = outcomes(CORPUS, ENTRIES)
    out = table(scored)
    lines = [line(project, c) for project, c in sorted(out.items())]
    total = out["all"]
    lines.append(f"right page named on {total['page named']} of the {total['page logs']} problem logs a page explains")
    record_property("figures", f"log doctor on {len(ENTRIES)} real logs from public threads:\n" + "\n".join(lines))
    alarms = {e["file"] for e, outcome in scored if outcome == "false alarm"}
    assert alarms <= KNOWN_FALSE_ALARMS, f"the doctor named a problem on logs their threads call healthy: {alarms}"
    assert total["right"] >= RIGHT, f"the doctor is right on {total['right']}/{len(ENTRIES)} real logs:\n" + "\n".join(
        lines
    )


def test_corpus_is_real_and_sourced():
    assert len(ENTRIES) >= 60 and len({e["project"] for e in ENTRIES}) >= 10
    assert sum(not e["problem"] for e in ENTRIES) >= 20, "healthy logs are needed to count false alarms"
    assert all(pathlib.Path(e["file"]).name == e["file"] for e in ENTRIES)
