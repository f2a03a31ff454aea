"""A GRPO group whose rewards are all identical: advantages are exactly 0
(not NaN), so it teaches nothing.

Page: docs/online-rl/grpo-zero-std-group.md
中文: docs/online-rl/grpo-zero-std-group.zh.md
"""


# --8<-- [start:fix]
def graded_reward(completions, **kwargs):
    """Partial credit instead of pass/fail: the share of a
    32-character budget the answer uses."""
    return [min(len(completion[0]["content"]), 32) / 32 for completion in completions]


# --8<-- [end:fix]


# --8<-- [start:evidence]
import math
import os

import torch
from datasets import Dataset
from transformers import set_seed
from trl import GRPOConfig, GRPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")


def always_correct(completions, **kwargs):
    """A check every completion passes (a prompt that is too easy):
    one reward for the whole group."""
    return [1.0 for _ in completions]


class RecordingGRPOTrainer(GRPOTrainer):
    """GRPOTrainer that also keeps every advantage it
    computes; it changes nothing else."""

    def _generate_and_score_completions(self, inputs):
        out = super()._generate_and_score_completions(inputs)
        self.advantages.extend(out["advantages"].flatten().tolist())
        return out


def train(reward_func, seed):
    """Two GRPO steps; return the per-step logs and every advantage."""
    set_seed(seed)
    prompts = Dataset.from_list(
        [{"prompt": [{"role": "user", "content": f"Count to {i}."}]} for i in range(8)]
    )
    args = GRPOConfig(
        num_generations=4,
        per_device_train_batch_size=4,
        max_completion_length=8,
        max_steps=2,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    trainer = RecordingGRPOTrainer(
        model=MODEL, reward_funcs=reward_func, args=args, train_dataset=prompts
    )
    trainer.advantages = []
    trainer.train()
    logs = [row for row in trainer.state.log_history if "frac_reward_zero_std" in row]
    return logs, trainer.advantages


def check(seed: int = 0) -> str:
    logs, advantages = train(always_correct, seed)
    assert all(math.isfinite(a) for a in advantages), (
        "claim: zero-variance advantages are finite, not NaN"
    )
    assert all(a == 0.0 for a in advantages), (
        f"claim: zero-variance advantages are exactly 0, got {advantages[:4]}"
    )
    assert [row["frac_reward_zero_std"] for row in logs] == [1.0, 1.0], (
        "claim: frac_reward_zero_std logs 1.0"
    )
    assert [row["reward_std"] for row in logs] == [0.0, 0.0], "claim: reward_std logs 0"
    assert max(row["grad_norm"] for row in logs) == 0.0, (
        "claim: an all-zero-advantage batch has zero gradient"
    )

    fixed_logs, fixed_advantages = train(graded_reward, seed)
    assert min(row["frac_reward_zero_std"] for row in fixed_logs) < 1.0, (
        "claim: a graded reward separates samples"
    )
    assert any(a != 0.0 for a in fixed_advantages), (
        "claim: a graded reward gives non-zero advantages"
    )
    assert max(row["grad_norm"] for row in fixed_logs) > 0.0, (
        "claim: a graded reward gives a gradient"
    )
    return (
        f"identical rewards: {len(advantages)} advantages, all 0.0, grad_norm 0; "
        "graded reward: frac_reward_zero_std "
        f"{[row['frac_reward_zero_std'] for row in fixed_logs]}, grad_norm "
        f"{max(row['grad_norm'] for row in fixed_logs):.3g}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
