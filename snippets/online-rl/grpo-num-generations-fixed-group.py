"""GRPO group size: num_generations is fixed for a run, must divide the batch, and
small groups waste sparse rewards.

Page: docs/online-rl/grpo-num-generations-fixed-group.md
中文: docs/online-rl/grpo-num-generations-fixed-group.zh.md
"""

# --8<-- [start:fix]
import torch
from trl import GRPOConfig

# Same 16 completions per step, as 2 groups of 8 instead of 8 groups of 2; the
# batch is a multiple of the group.
grpo_config = GRPOConfig(
    num_generations=8,
    per_device_train_batch_size=16,
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os

from datasets import Dataset
from transformers import set_seed
from trl import GRPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")


def pass_fail(completions, **kwargs):
    """A stand-in for a sparse verifier: 1 if the answer has an even number of
    characters, else 0 (pass rate ~1/2)."""
    return [
        1.0 if len(completion[0]["content"]) % 2 == 0 else 0.0
        for completion in completions
    ]


def train(seed, num_generations):
    """One GRPO step with the pass/fail reward; return
    frac_reward_zero_std per step and the reward mean."""
    set_seed(seed)
    prompts = Dataset.from_list(
        [{"prompt": [{"role": "user", "content": f"Count to {i}."}]} for i in range(16)]
    )
    args = dataclasses.replace(
        grpo_config,
        # the group size under test; the batch stays 16 completions
        num_generations=num_generations,
        # GRPOConfig derived it from the old batch size: let it derive it again
        generation_batch_size=None,
        max_completion_length=8,  # short answers: a few CPU steps
        max_steps=1,  # one step of 16 completions: 8 groups of 2, or 2 groups of 8
        logging_steps=1,
        save_strategy="no",
        seed=seed,
    )
    trainer = GRPOTrainer(
        model=MODEL, reward_funcs=pass_fail, args=args, train_dataset=prompts
    )
    trainer.train()
    logs = [row for row in trainer.state.log_history if "frac_reward_zero_std" in row]
    return [row["frac_reward_zero_std"] for row in logs], sum(
        row["reward"] for row in logs
    ) / len(logs)


def check(seed: int = 0) -> str:
    bf16 = torch.cuda.is_available()
    assert GRPOConfig(bf16=bf16).num_generations == 8, (
        "claim: the default group size is 8"
    )
    try:  # a batch of 4 with the default group size 8
        GRPOConfig(per_device_train_batch_size=4, bf16=bf16)
        raise AssertionError(
            "claim: a generation batch of 4 with num_generations=8 is rejected"
        )
    except ValueError as e:
        assert "must be divisible by num_generations (8)" in str(e), (
            f"claim: the divisibility error, got {e}"
        )

    small, pass_rate = train(seed, num_generations=2)  # 8 groups of 2 per step
    # 2 groups of 8 per step
    large, _ = train(seed, num_generations=grpo_config.num_generations)
    assert 0.2 < pass_rate < 0.8, (
        "claim needs a reward that is neither always 0 nor "
        f"always 1, got pass rate {pass_rate}"
    )
    assert sum(small) / len(small) > sum(large) / len(large) + 0.2, (
        "claim: groups of 2 far more often have no reward spread than "
        f"groups of 8: {small} vs {large}"
    )
    return (
        f"pass rate {pass_rate:.2f}; frac_reward_zero_std G=2: {small}, G=8: "
        f"{large} (16 completions per step)"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed (two training runs per seed)

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
