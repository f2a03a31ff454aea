"""Evidence integrity (handbook/lanes/evidence.py): a pass counts only on runs where the model trained sanely.

- the gate itself, on logs shaped like the ones the run recorder keeps (NaN as a string, a summary row last);
- every recorded seed that passed, on the real model (compat/real/) and on the tiny model (compat/runs/), trained
  sanely in every run except those the page declares in ``claimed_failures``;
- every declared failure is shown by a recorded run: a declaration describes what happens, it cannot excuse a
  run that trained fine (or one that does not exist).
"""

from __future__ import annotations

import math

import pytest

from handbook.content import pages
from handbook.lanes import evidence, real_runs, runs

PITFALLS = pages.pitfall_pages()
REAL_VOCAB = 49152  # SmolLM2-135M-Instruct (its config.json; the real lane's model)
TINY_VOCAB = 320  # handbook/tiny.py build_tiny_model


def rows(loss, grad=None):
    grad = grad or [1.0] * len(loss)
    out = [{"step": i + 1, "loss": v, "grad_norm": g} for i, (v, g) in enumerate(zip(loss, grad))]
    return out + [{"step": len(loss), "train_loss": 1.0}]  # the trainer's summary row


def test_sane_training_is_evidence():
    assert evidence.problems("SFTTrainer", rows([3.0, 2.5, 2.1, 1.9]), REAL_VOCAB) == {}
    assert evidence.problems("DPOTrainer", rows([0.693, 0.6, 0.4]), REAL_VOCAB) == {}
    # a model that starts above uniform (random weights) and learns is not diverging
    assert evidence.problems("SFTTrainer", rows([12.2, 11.4]), REAL_VOCAB) == {}
    # a composite loss (DPO + sft term) that crosses ln(V) for one step and comes back is not divergence
    assert evidence.problems("DPOTrainer", rows([6.22, 7.13, 6.0, 5.1]), 320) == {}
    # one spike is noise, not a rising loss
    assert evidence.problems("RewardTrainer", rows([0.69, 0.78, 0.65, 1.45, 0.73, 0.66]), REAL_VOCAB) == {}


def test_divergence_is_named_with_what_the_log_shows():
    # SmolLM2's SFT start at lr 1e-2 on the forgetting page: 3.0 -> 24, above ln(49152) = 10.8
    found = evidence.problems("SFTTrainer", rows([3.01, 7.4, 24.2, 26.9]), REAL_VOCAB)
    assert found["divergence"].startswith("loss 3.01 -> 26.9 at step 4, above the uniform level ln(49152) = 10.80")
    found = evidence.problems("DPOTrainer", rows([0.69, 1.2, 2.5, 3.0]), REAL_VOCAB)
    assert "more than twice its start" in found["divergence"]
    found = evidence.problems("SFTTrainer", rows([2.0, "nan"]), REAL_VOCAB)
    assert found == {"divergence": "loss is nan at step 2"}
    found = evidence.problems("GRPOTrainer", rows([0.0, 0.1], grad=[1.0, math.inf]), REAL_VOCAB)
    assert found == {"divergence": "grad_norm is inf at step 2"}


def test_policy_gradient_losses_are_not_judged_by_their_size():
    assert evidence.problems("GRPOTrainer", rows([0.0, 0.3, 22.5]), REAL_VOCAB) == {}
    assert evidence.problems("RLOOTrainer", rows([-0.2, 0.5, 1.7]), REAL_VOCAB) == {}


def test_no_gradient_after_the_first_step():
    # the clip-epsilon page at lr 3e-2 on SmolLM2: grad_norm 9.64, then 0 and 0
    found = evidence.problems("GRPOTrainer", rows([0.0, 0.0, 0.0], grad=[9.64, 0.0, 0.0]), REAL_VOCAB)
    assert found == {"no-gradient": "grad_norm 0 at every step after the first (steps 2, 3)"}
    assert evidence.problems("GRPOTrainer", rows([0.0, 0.0], grad=[9.64, 0.1]), REAL_VOCAB) == {}


def test_a_claimed_failure_is_exempt_only_for_its_run_and_kind():
    dead = {"trainer": "SFTTrainer", "logs": rows([0.32] * 4, grad=[0.0] * 4)}
    live = {"trainer": "SFTTrainer", "logs": rows([0.32, 0.1, 0.01, 0.001])}
    assert evidence.verdict([live, dead], REAL_VOCAB, {2: "no-gradient"}) == []
    assert evidence.verdict([live, dead], REAL_VOCAB, {2: "divergence"}) == [
        "run 2 (SFTTrainer) is not evidence, no-gradient: grad_norm 0 at every step after the first (steps 2, 3, 4)"
    ]
    assert evidence.verdict([dead, live], REAL_VOCAB, {2: "no-gradient"})[0].startswith("run 1 (SFTTrainer)")
    assert evidence.unused_claims([live, dead], REAL_VOCAB, {1: "no-gradient", 3: "divergence"}) == [
        "run 1 (SFTTrainer) is declared no-gradient, but its log does not show it",
        "run 3 claimed divergence, but the check built only 2 trainer(s)",
    ]


def _seed_runs(rec: dict | None) -> dict[str, list]:
    """seed -> runs of a record that passed there (real rows keep {kind, runs}; tiny records keep the runs)."""
    out = {}
    for seed, row in ((rec or {}).get("seeds") or {}).items():
        if isinstance(row, dict):
            if row.get("outcome") == "passed":
                out[seed] = row.get("runs", [])
        else:
            out[seed] = row
    return out


def _records(page):
    return (("real model", REAL_VOCAB, real_runs.load(page.meta)), ("tiny model", TINY_VOCAB, runs.load(page.meta)))


@pytest.mark.parametrize("page", PITFALLS, ids=lambda p: p.rel)
def test_recorded_passes_trained_sanely(page):
    claimed = page.meta.get("claimed_failures") or {}
    bad = []
    for model, vocab, rec in _records(page):
        for seed, seed_runs in _seed_runs(rec).items():
            bad += [f"{model}, seed {seed}: {m}" for m in evidence.verdict(seed_runs, vocab, claimed)]
    assert not bad, f"{page.rel}: a recorded pass is not evidence:\n" + "\n".join(bad)


@pytest.mark.parametrize("page", [p for p in PITFALLS if p.meta.get("claimed_failures")], ids=lambda p: p.rel)
def test_every_claimed_failure_is_shown_by_a_recorded_run(page):
    claimed = page.meta["claimed_failures"]
    for number, kind in claimed.items():
        shown = [
            (model, seed)
            for model, vocab, rec in _records(page)
            for seed, seed_runs in _seed_runs(rec).items()
            if not evidence.unused_claims(seed_runs, vocab, {number: kind})
        ]
        assert shown, f"{page.rel}: claimed_failures says run {number} shows {kind}, but no recorded run does"
