"""GRPO's PPO-style clip (epsilon=0.2) only bites when training is
off-policy; clip_ratio/* is 0 otherwise.

Page: docs/online-rl/grpo-clip-epsilon-on-policy-noop.md
中文: docs/online-rl/grpo-clip-epsilon-on-policy-noop.zh.md
"""

# --8<-- [start:fix]
import torch
from trl import GRPOConfig

# On-policy (the default num_iterations=1) there is nothing to fix: the clip
# cannot act. Reuse each generation for several updates, and the clip range is
# what keeps those updates safe:
grpo_config = GRPOConfig(
    # four updates per generation batch: the later ones are off-policy
    num_iterations=4,
    epsilon=0.2,
    epsilon_high=0.28,  # clip-higher: a wider upper bound than the lower one
    learning_rate=1e-6,
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import math
import os
import string

from datasets import Dataset
from transformers import set_seed
from trl import GRPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
LR_SCALE = float(os.environ.get("HANDBOOK_LR_SCALE", "1"))
CLIP_KEYS = ("clip_ratio/low_mean", "clip_ratio/high_mean", "clip_ratio/region_mean")


def symbol_share(completions, **kwargs):
    """A dense toy reward: the share of characters that are
    capitals, digits or punctuation."""
    texts = [completion[0]["content"] for completion in completions]
    return [
        sum(c.isupper() or c.isdigit() or c in string.punctuation for c in t)
        / max(len(t), 1)
        for t in texts
    ]


def train(seed, **overrides):
    """Three GRPO steps; return {metric: [value per step]}."""
    set_seed(seed)
    questions = [
        "Say hi.",
        "Count to three.",
        "Name a colour.",
        "Answer yes or no.",
    ] * 2
    prompts = Dataset.from_list(
        [{"prompt": [{"role": "user", "content": q}]} for q in questions]
    )
    args = dataclasses.replace(
        grpo_config,
        num_generations=8,
        per_device_train_batch_size=8,
        # GRPOConfig derived it from the Fix's batch size: derive it again
        generation_batch_size=None,
        max_completion_length=8,
        max_steps=3,
        # above the Fix's 1e-6 so that three steps move the model
        learning_rate=1e-4 * LR_SCALE,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        **overrides,
    )
    trainer = GRPOTrainer(
        model=MODEL, reward_funcs=symbol_share, args=args, train_dataset=prompts
    )
    trainer.train()
    keys = CLIP_KEYS + ("loss", "grad_norm")
    return {k: [row[k] for row in trainer.state.log_history if k in row] for k in keys}


def check(seed: int = 0) -> str:
    defaults = (
        GRPOConfig.epsilon,
        GRPOConfig.epsilon_high,
        GRPOConfig.delta,
        GRPOConfig.num_iterations,
    )
    assert defaults == (0.2, None, None, 1), (
        f"claim: GRPO clipping defaults are (0.2, None, None, 1), got {defaults}"
    )

    # the defaults
    on_policy = train(seed, num_iterations=1, epsilon=0.2, epsilon_high=None)
    assert all(v == 0.0 for k in CLIP_KEYS for v in on_policy[k]), (
        f"claim: on-policy never clips, got {on_policy}"
    )
    assert max(on_policy["grad_norm"]) > 0, (
        "claim: the on-policy run does update the policy"
    )
    tight = train(seed, num_iterations=1, epsilon=0.01, epsilon_high=0.01)
    same = [
        math.isclose(a, b, rel_tol=1e-4)
        for k in ("loss", "grad_norm")
        for a, b in zip(tight[k], on_policy[k])
    ]
    assert all(same), (
        f"claim: on-policy, a tighter clip changes nothing: {tight} vs {on_policy}"
    )

    off_policy = train(seed)  # the Fix's num_iterations=4
    assert max(off_policy["clip_ratio/region_mean"]) > 0.05, (
        f"claim: reused generations get clipped: {off_policy}"
    )
    return (
        "num_iterations=1: clip_ratio/region_mean "
        f"{on_policy['clip_ratio/region_mean']}, epsilon 0.01 gives the same losses; "
        "num_iterations=4: "
        f"{[round(v, 3) for v in off_policy['clip_ratio/region_mean']]}"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
