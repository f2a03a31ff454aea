"""GRPO's KL coefficient is `beta`: a weak beta lets `kl` keep
climbing, a strong one holds it down.

Page: docs/online-rl/grpo-kl-keeps-rising-beta.md
中文: docs/online-rl/grpo-kl-keeps-rising-beta.zh.md
"""

# --8<-- [start:fix]
import torch
from trl import GRPOConfig

grpo_config = GRPOConfig(
    # the KL coefficient (there is no `kl_coef`); the default
    # 0.0 means no KL penalty at all
    beta=0.2,
    # `kl` and `reward` both flat instead? the policy is not moving: look here first
    learning_rate=1e-6,
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os
import string

from datasets import Dataset
from transformers import set_seed
from trl import GRPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
# 1 on a real model; the handbook's 2-layer test model
# needs ~300x the rate to move in a few steps
LR_SCALE = float(os.environ.get("HANDBOOK_LR_SCALE", "1"))

QUESTIONS = ["Say hi.", "Count to three."]
# A short system prompt keeps the prompts short (some chat
# templates add a long default one).
PROMPTS = Dataset.from_list(
    [
        {
            "prompt": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": q},
            ]
        }
        for q in QUESTIONS
    ]
)


def symbol_share(completions, **kwargs):
    """A dense toy reward: the share of characters that are
    capitals, digits or punctuation."""
    texts = [completion[0]["content"] for completion in completions]
    return [
        sum(c.isupper() or c.isdigit() or c in string.punctuation for c in t)
        / max(len(t), 1)
        for t in texts
    ]


def train(seed, max_steps=5, learning_rate=8e-5, **overrides):
    """A short GRPO run with grpo_config and `overrides`; return `kl` per step.

    The default learning rate is 80x the Fix's, so that five steps drift as far as a
    long run does."""
    set_seed(seed)
    args = dataclasses.replace(
        grpo_config,
        learning_rate=learning_rate * LR_SCALE,
        # the default linear decay would reach 0 at the last of five steps
        lr_scheduler_type="constant",
        num_generations=4,
        per_device_train_batch_size=8,  # 2 prompts x 4 completions per step
        max_completion_length=8,
        max_steps=max_steps,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        # recomputed from the batch size: GRPOConfig rejects both being set
        generation_batch_size=None,
        steps_per_generation=None,
        **overrides,
    )
    trainer = GRPOTrainer(
        model=MODEL, reward_funcs=symbol_share, args=args, train_dataset=PROMPTS
    )
    trainer.train()
    return [row["kl"] for row in trainer.state.log_history if "kl" in row]


def check(seed: int = 0) -> str:
    names = {f.name for f in dataclasses.fields(GRPOConfig)}
    assert "beta" in names and "kl_coef" not in names, (
        "claim: GRPOConfig's KL knob is `beta`, not `kl_coef`"
    )

    weak = train(seed, beta=0.001)
    assert abs(weak[0]) < 1e-3, (
        f"claim: the first step is on the reference weights, so kl starts at 0: {weak}"
    )
    assert weak[-1] > 3 * weak[1], f"claim: with a weak beta kl keeps rising: {weak}"

    strong = train(seed)  # the Fix as it is
    assert strong[-1] < 0.5 * weak[-1], (
        f"claim: a larger beta holds kl down: {strong} vs {weak}"
    )

    # The weak beta at the Fix's learning rate, for the one
    # update that kl at step 2 measures.
    slow = train(seed, max_steps=2, learning_rate=grpo_config.learning_rate, beta=0.001)
    assert slow[1] < 0.1 * weak[1], (
        f"claim: a low learning rate keeps kl near 0: {slow} vs {weak}"
    )
    return (
        f"beta=0.001: kl {weak[1]:.3f} -> {weak[-1]:.3f}; "
        f"beta={grpo_config.beta}: final kl {strong[-1]:.3f}; "
        f"lr {grpo_config.learning_rate:g}: kl after one update {slow[1]:.5f} "
        f"(vs {weak[1]:.3f})"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
