"""Evidence integrity: a run counts as evidence only if the model trained sanely, unless its failure is the claim.

A page's check can pass on a run where the model collapsed: a learning rate that is right for the tiny test model
sends SmolLM2 to a loss above the uniform level in one step, and a comparison "both runs log the same numbers"
then compares two dead models. ``problems`` reads what every trainer of a check logged (``page_worker.RUNS``)
and names what is not sane training:

- ``divergence``: a loss or ``grad_norm`` that is NaN or infinite; for likelihood losses (SFT, DPO, reward,
  KTO …; not the policy-gradient surrogates of GRPO/RLOO/PPO, whose value is no progress signal) a loss that
  starts below 110% of the uniform level ln(vocabulary size), rises above it and ends above it (the model became
  worse than a uniform guess and stayed there; one noisy step of a composite loss is not divergence), or that
  averages more than twice its first value over the second half of the run;
- ``no-gradient``: ``grad_norm`` exactly 0 at every logged step after the first (nothing reaches the weights).

A page whose claim *is* such a failure declares it per run in front matter (``claimed_failures: {2: divergence}``,
run 1 = the first trainer the check builds); the other runs of that page, and every run of every other page, must
be sane. ``handbook.lanes.harness`` applies this to every check it runs, so the test suite, the real-model lane and the
version matrix share one gate.
"""

from __future__ import annotations

import json
import math
import pathlib

KINDS = ("divergence", "no-gradient")
"""The failures a page may claim of a run (front matter ``claimed_failures``)."""

POLICY_GRADIENT = ("GRPO", "RLOO", "PPO", "Online", "XPO", "Nash")
"""Trainers whose logged loss is a surrogate (any sign, any size): only its finiteness is checked."""


UNIFORM_MARGIN = 1.1
"""A loss counts as above the uniform level past 110% of ln(V): an untrained model sits at ln(V), the tiny test
model's first steps wobble 1-2% around it."""


def _number(value) -> float | None:
    """A logged value as a float; NaN/inf are logged as strings by the run recorder (``'nan'``, ``'inf'``)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _series(logs: list[dict], key: str) -> list[tuple[int, float]]:
    """(step, value) of one metric over the training rows (the final summary row has no ``loss`` key)."""
    out = []
    for row in logs:
        value = _number(row.get(key))
        if value is not None:
            out.append((int(row.get("step", len(out) + 1)), value))
    return out


def problems(trainer: str, logs: list[dict], vocab_size: int | None) -> dict[str, str]:
    """What is not sane training in one run: {kind: what the log shows}; empty when the run trained sanely."""
    found: dict[str, str] = {}
    loss, grad = _series(logs, "loss"), _series(logs, "grad_norm")
    bad = [
        (name, s, v)
        for name, series in (("loss", loss), ("grad_norm", grad))
        for s, v in series
        if not math.isfinite(v)
    ]
    if bad:
        name, step, value = bad[0]
        found["divergence"] = f"{name} is {value} at step {step}"
    likelihood = not any(tag in trainer for tag in POLICY_GRADIENT)
    finite = [(s, v) for s, v in loss if math.isfinite(v)]
    if likelihood and len(finite) >= 2 and "divergence" not in found:
        (_, first), later = finite[0], finite[1:]
        step, peak = max(later, key=lambda sv: sv[1])
        uniform = math.log(vocab_size) if vocab_size else None
        last = finite[-1][1]
        if uniform is not None and first <= UNIFORM_MARGIN * uniform < min(peak, last):
            found["divergence"] = (
                f"loss {first:.3g} -> {peak:.3g} at step {step}, "
                f"above the uniform level ln({vocab_size}) = {uniform:.2f}"
            )
        else:
            second_half = [v for _, v in finite[len(finite) // 2 :]]
            end = sum(second_half) / len(second_half)
            if first > 0.1 and end > 2 * first:
                found["divergence"] = (
                    f"loss {first:.3g} -> {end:.3g} (mean of the second half), more than twice its start"
                )
    after_first = [v for _, v in grad[1:]]
    if after_first and all(v == 0 for v in after_first):
        steps = ", ".join(str(s) for s, _ in grad[1:])
        found["no-gradient"] = f"grad_norm 0 at every step after the first (steps {steps})"
    return found


def verdict(runs: list[dict], vocab_size: int | None, claimed: dict[int, str] | None = None) -> list[str]:
    """One message per run that is not sane training and whose failure the page does not claim (run 1 = first)."""
    claimed = claimed or {}
    out = []
    for number, run in enumerate(runs, start=1):
        trainer = run.get("trainer", "?")
        for kind, shown in problems(trainer, run.get("logs", []), vocab_size).items():
            if claimed.get(number) != kind:
                out.append(f"run {number} ({trainer}) is not evidence, {kind}: {shown}")
    return out


def unused_claims(runs: list[dict], vocab_size: int | None, claimed: dict[int, str]) -> list[str]:
    """Claimed failures that the runs do not show: a declaration must describe what happens, not excuse it."""
    out = []
    for number, kind in sorted(claimed.items()):
        if number > len(runs):
            out.append(f"run {number} claimed {kind}, but the check built only {len(runs)} trainer(s)")
            continue
        run = runs[number - 1]
        if kind not in problems(run.get("trainer", "?"), run.get("logs", []), vocab_size):
            out.append(f"run {number} ({run.get('trainer', '?')}) is declared {kind}, but its log does not show it")
    return out


def vocab_size(model: str) -> int | None:
    """The vocabulary size of a local model folder (its config.json), else None (the uniform check is skipped)."""
    config = pathlib.Path(model) / "config.json"
    if not config.is_file():
        return None
    data = json.loads(config.read_text(encoding="utf-8"))
    size = data.get("vocab_size") or data.get("text_config", {}).get("vocab_size")
    return int(size) if size else None
