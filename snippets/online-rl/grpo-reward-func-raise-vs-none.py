"""A GRPO reward function that raises stops training; returning None is the
documented way to skip a sample.

Page: docs/online-rl/grpo-reward-func-raise-vs-none.md
中文: docs/online-rl/grpo-reward-func-raise-vs-none.zh.md
"""


# --8<-- [start:symptom]
def parse_answer(completions, **kwargs):
    """A reward that crashes on output it cannot parse, as a naive int() parser does."""
    return [float(int(completion[0]["content"].strip())) for completion in completions]


# --8<-- [end:symptom]


# --8<-- [start:fix]
def parse_answer_or_none(completions, **kwargs):
    """Catch the failure yourself and return None to abstain for that completion."""
    rewards = []
    for completion in completions:
        try:
            rewards.append(float(int(completion[0]["content"].strip())))
        except ValueError:
            rewards.append(None)
    return rewards


# --8<-- [end:fix]


# --8<-- [start:evidence]
import math
import os

import torch
import trl
from datasets import Dataset
from packaging.version import Version
from transformers import set_seed
from trl import GRPOConfig, GRPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
TRL = Version(trl.__version__)
# How log_history shows a metric with no value: None since TRL 1.0 (NaN is dropped
# before averaging), NaN before.
NO_VALUE = "None" if TRL >= Version("1.0") else "nan"
# A completion no function scored: NaN reward (unscorable) since TRL 1.6,
# before that nansum made it 0.0.
ALL_NONE_REWARD = "None" if TRL >= Version("1.6") else "0.0"


def length_reward(completions, **kwargs):
    return [float(len(completion[0]["content"])) for completion in completions]


def make_trainer(reward_funcs, seed, max_steps=2):
    set_seed(seed)
    # A prompt no model answers with a bare integer, so the parser never succeeds.
    prompts = Dataset.from_list(
        [{"prompt": [{"role": "user", "content": "Describe the sea in one sentence."}]}]
        * 8
    )
    args = GRPOConfig(
        num_generations=4,
        per_device_train_batch_size=4,
        max_completion_length=8,
        max_steps=max_steps,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    return GRPOTrainer(
        model=MODEL, reward_funcs=reward_funcs, args=args, train_dataset=prompts
    )


def check(seed: int = 0) -> str:
    trainer = make_trainer([length_reward, parse_answer], seed)
    try:
        trainer.train()
        raise AssertionError("claim: an exception in a reward function stops training")
    # the reward function's own exception, raised out of trainer.train()
    except ValueError as e:
        assert "invalid literal for int()" in str(e), (
            f"claim: the parser's own ValueError propagates, got {e}"
        )
    assert trainer.state.global_step == 0, (
        f"claim: training stops at the first step, got {trainer.state.global_step}"
    )

    trainer = make_trainer([length_reward, parse_answer_or_none], seed)
    trainer.train()
    logs = [row for row in trainer.state.log_history if "reward" in row]
    assert trainer.state.global_step == 2, "claim: returning None lets training run"
    parsed = [str(row["rewards/parse_answer_or_none/mean"]) for row in logs]
    assert parsed == [NO_VALUE] * 2, (
        f"claim: an all-None column is logged as {NO_VALUE} on trl {TRL}, got {parsed}"
    )
    assert all(math.isfinite(row["reward"]) for row in logs), (
        "claim: the total reward skips the None column"
    )
    assert [row["reward"] for row in logs] == [
        row["rewards/length_reward/mean"] for row in logs
    ], "claim: the total reward is the non-None reward alone (nansum)"

    # every function returns None
    trainer = make_trainer([parse_answer_or_none], seed, max_steps=1)
    trainer.train()
    (row,) = [row for row in trainer.state.log_history if "reward" in row]
    assert str(row["reward"]) == ALL_NONE_REWARD, (
        f"claim: with every reward None, trl {TRL} logs reward "
        f"{ALL_NONE_REWARD}, got {row['reward']}"
    )
    assert row["grad_norm"] == 0.0, (
        f"claim: a step nothing could score gives no gradient: {row['grad_norm']}"
    )
    return (
        f"trl {TRL}: raise: ValueError out of trainer.train() at step 0; None: 2 "
        f"steps, parser column {parsed}, reward {[row['reward'] for row in logs]} = "
        f"length_reward alone; all None: reward {row['reward']}, grad_norm 0"
    )


# the test suite runs check() once per seed (three training runs per seed)
SEEDS = (0, 1)

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
