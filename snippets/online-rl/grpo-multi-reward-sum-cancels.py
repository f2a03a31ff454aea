"""Two GRPO reward functions that each vary but whose weighted sum is constant
per group: advantages are all 0.

Page: docs/online-rl/grpo-multi-reward-sum-cancels.md
中文: docs/online-rl/grpo-multi-reward-sum-cancels.zh.md
"""


# --8<-- [start:symptom]
def concise(completions, **kwargs):
    """Shorter is better: minus the answer's length in characters, scaled by 1/32."""
    return [-len(completion[0]["content"]) / 32 for completion in completions]


def thorough(completions, **kwargs):
    """Longer is better: exactly minus `concise`, so with equal
    weights the two always sum to 0."""
    return [len(completion[0]["content"]) / 32 for completion in completions]


# --8<-- [end:symptom]


# --8<-- [start:fix]
import torch
from trl import GRPOConfig

grpo_config = GRPOConfig(
    # say which objective matters more: one weight per function of reward_funcs
    reward_weights=[1.0, 0.5],
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


def train(seed, max_steps=2, **changes):
    """A short GRPO run of the Fix's grpo_config with `changes`, with both
    reward functions; return its logs."""
    set_seed(seed)
    prompts = Dataset.from_list(
        [
            {"prompt": [{"role": "user", "content": f"Describe the number {i}."}]}
            for i in range(4)
        ]
    )
    args = dataclasses.replace(  # the Fix's config, sized for a few CPU steps
        grpo_config,
        num_generations=4,
        per_device_train_batch_size=4,  # one group of 4 per step
        # GRPOConfig derived it from the old batch size: let it derive it again
        generation_batch_size=None,
        max_completion_length=8,
        max_steps=max_steps,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        **changes,
    )
    trainer = GRPOTrainer(
        model=MODEL, reward_funcs=[concise, thorough], args=args, train_dataset=prompts
    )
    trainer.train()
    return [row for row in trainer.state.log_history if "frac_reward_zero_std" in row]


def check(seed: int = 0) -> str:
    defaults = GRPOConfig(bf16=torch.cuda.is_available())
    assert defaults.reward_weights is None, (
        "claim: reward_weights defaults to None (weight 1.0 for every function)"
    )
    assert defaults.multi_objective_aggregation == "sum_then_normalize", (
        "claim: the default sums, then normalises"
    )

    # equal weights: concise + thorough == 0 for every completion
    bad = train(seed, reward_weights=None)
    assert all(
        row["rewards/concise/std"] > 0 and row["rewards/thorough/std"] > 0
        for row in bad
    ), "claim: each reward function varies (its own std column is non-zero)"
    assert [row["reward_std"] for row in bad] == [0.0, 0.0], (
        "claim: the summed reward has no spread (reward_std 0)"
    )
    assert [row["frac_reward_zero_std"] for row in bad] == [1.0, 1.0], (
        "claim: every group counts as zero-std"
    )
    assert max(row["grad_norm"] for row in bad) == 0.0, (
        "claim: cancelling rewards give no gradient"
    )

    good = train(seed)  # reward_weights=[1.0, 0.5]
    assert max(row["frac_reward_zero_std"] for row in good) < 1.0, (
        "claim: reward_weights gives the sum a spread"
    )
    assert min(row["grad_norm"] for row in good) > 0.0, (
        "claim: reward_weights gives a gradient"
    )

    gdpo = train(
        seed,
        max_steps=1,
        reward_weights=None,
        multi_objective_aggregation="normalize_then_sum",
    )
    assert gdpo[0]["frac_reward_zero_std"] == 1.0 and gdpo[0]["grad_norm"] == 0.0, (
        "claim: normalize_then_sum cancels mirrored rewards too"
    )
    return (
        f"equal weights: rewards/*/std {bad[0]['rewards/concise/std']:.3f} each, "
        "reward_std 0, frac_reward_zero_std 1.0, grad_norm 0; weights [1, 0.5]: "
        f"frac_reward_zero_std {[row['frac_reward_zero_std'] for row in good]}, "
        f"grad_norm {good[0]['grad_norm']:.3g}; normalize_then_sum: "
        "frac_reward_zero_std 1.0, grad_norm 0"
    )


# the test suite runs check() once per seed (three training runs per seed)
SEEDS = (0, 1)

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
