"""A NaN step disappears from GRPO's logs: NaN rewards are dropped from the window
average, NaN losses are replaced.

Page: docs/online-rl/grpo-nan-step-hidden-in-logs.md
中文: docs/online-rl/grpo-nan-step-hidden-in-logs.zh.md
"""

# --8<-- [start:fix]
import torch
from trl import GRPOConfig

# While debugging: one log line per step, and let a NaN loss reach the logs instead
# of a running-average stand-in.
grpo_config = GRPOConfig(
    logging_steps=1,
    logging_nan_inf_filter=False,
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import math
import os

import trl
from datasets import Dataset
from packaging.version import Version
from transformers import set_seed
from trl import GRPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
TRL = Version(trl.__version__)
# How log_history shows a metric with no value: None since TRL 1.0 (NaN is dropped
# before averaging), NaN before.
NO_VALUE = "None" if TRL >= Version("1.0") else "nan"
# The reward of a step nothing could score: NaN, logged as None, since TRL 1.6;
# before that nansum made it 0.0.
ALL_NONE_REWARD = "None" if TRL >= Version("1.6") else "0.0"


def sometimes_unscorable(completions, trainer_state, **kwargs):
    """Step 1: no completion can be scored (e.g. the verifier timed
    out), so every reward is None."""
    if trainer_state.global_step == 0:
        return [None] * len(completions)
    return [float(len(completion[0]["content"])) for completion in completions]


class NaNLossAtStep2(GRPOTrainer):
    """Poisons the loss of step 2 with NaN (e.g. an fp16 overflow), as the
    tests for huggingface/trl#6702 did."""

    def compute_loss(
        self, model, inputs, return_outputs=False, num_items_in_batch=None
    ):
        loss = super().compute_loss(model, inputs, return_outputs, num_items_in_batch)
        return loss * math.nan if self.state.global_step == 1 else loss


def train(seed, **logging):
    """Two GRPO steps (step 1: all rewards None; step 2: NaN loss); return the
    log lines and NaN-weights flag."""
    set_seed(seed)
    prompts = Dataset.from_list(
        [{"prompt": [{"role": "user", "content": f"Count to {i}."}]} for i in range(8)]
    )
    args = dataclasses.replace(  # the Fix's config, sized for two CPU steps
        grpo_config,
        num_generations=4,
        per_device_train_batch_size=4,
        # GRPOConfig derived it from the old batch size: let it derive it again
        generation_batch_size=None,
        max_completion_length=8,
        max_steps=2,
        save_strategy="no",
        seed=seed,
        **logging,
    )
    trainer = NaNLossAtStep2(
        model=MODEL, reward_funcs=sometimes_unscorable, args=args, train_dataset=prompts
    )
    trainer.train()
    rows = [row for row in trainer.state.log_history if "reward" in row]
    weights_nan = any(p.isnan().any().item() for p in trainer.model.parameters())
    return rows, weights_nan


def check(seed: int = 0) -> str:
    defaults = GRPOConfig(bf16=torch.cuda.is_available())
    assert defaults.logging_steps == 10, (
        "claim: GRPOConfig logs every 10 steps by default"
    )
    assert defaults.logging_nan_inf_filter is True, (
        "claim: logging_nan_inf_filter is on by default"
    )

    # One log line for both steps, NaN filter on (its default).
    rows, weights_nan = train(seed, logging_steps=2, logging_nan_inf_filter=True)
    assert weights_nan, "claim: the NaN step corrupts the weights"
    assert len(rows) == 1, (
        f"claim: logging_steps=2 gives one line for the two steps, got {len(rows)}"
    )
    (row,) = rows
    assert row["reward"] is not None and math.isfinite(row["reward"]), (
        f"claim: the window's reward is finite, the all-None step does not show: {row}"
    )
    assert math.isfinite(row["loss"]), (
        f"claim: the NaN loss is logged as a finite stand-in: {row['loss']}"
    )
    assert math.isnan(row["grad_norm"]), (
        "claim: grad_norm of the window's last step is the only visible trace"
    )

    # the Fix: logging_steps=1, logging_nan_inf_filter=False
    fixed_rows, fixed_weights_nan = train(seed)
    assert fixed_weights_nan, (
        "claim: the fix only logs; the weights are still corrupted"
    )
    step1, step2 = fixed_rows
    column = str(step1["rewards/sometimes_unscorable/mean"])
    assert column == NO_VALUE, (
        "claim: with logging_steps=1 the unscorable step logs its "
        f"column as {NO_VALUE}: {column}"
    )
    assert str(step1["reward"]) == ALL_NONE_REWARD, (
        f"claim: on trl {TRL} the unscorable step logs reward "
        f"{ALL_NONE_REWARD}: {step1['reward']}"
    )
    assert math.isnan(step2["loss"]), (
        "claim: with logging_nan_inf_filter=False the NaN "
        f"loss is logged: {step2['loss']}"
    )
    return (
        f"logging_steps=2: reward {row['reward']:.3g}, loss {row['loss']}, grad_norm "
        f"{row['grad_norm']}; fix: step 1 reward {step1['reward']} (column {column}), "
        f"step 2 loss {step2['loss']}; weights NaN in both runs"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed (two training runs per seed)

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
