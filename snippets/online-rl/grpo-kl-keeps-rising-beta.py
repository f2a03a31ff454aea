"""GRPO's KL coefficient is `beta`: a weak beta lets `kl` keep climbing, a strong one holds it down.

Page: docs/online-rl/grpo-kl-keeps-rising-beta.md (中文: docs/online-rl/grpo-kl-keeps-rising-beta.zh.md)
"""

# --8<-- [start:fix]
# `kl` runs away: raise `beta` (GRPOConfig's KL coefficient; there is no `kl_coef`).
FIX = {"beta": 2.0}  # pass as GRPOConfig(**FIX, ...); 2.0 is sized for the aggressive toy run below
# `kl` and `reward` both flat: the policy is not moving; check the learning rate before touching beta.
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os
import string

import torch
from datasets import Dataset
from transformers import set_seed
from trl import GRPOConfig, GRPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")


def symbol_share(completions, **kwargs):
    """A dense toy reward: the share of characters that are capitals, digits or punctuation."""
    texts = [completion[0]["content"] for completion in completions]
    return [sum(c.isupper() or c.isdigit() or c in string.punctuation for c in t) / max(len(t), 1) for t in texts]


def train(seed, beta, learning_rate=3e-2, max_steps=6):
    """A short GRPO run; the default learning rate is aggressive so the policy drifts within a few steps."""
    set_seed(seed)
    questions = ["Say hi.", "Count to three.", "Name a colour.", "Answer yes or no."] * 2
    prompts = Dataset.from_list([{"prompt": [{"role": "user", "content": q}]} for q in questions])
    args = GRPOConfig(
        beta=beta,
        learning_rate=learning_rate,
        lr_scheduler_type="constant",
        num_generations=4,
        per_device_train_batch_size=32,  # 8 prompts x 4 completions per step
        max_completion_length=8,
        max_steps=max_steps,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    trainer = GRPOTrainer(model=MODEL, reward_funcs=symbol_share, args=args, train_dataset=prompts)
    trainer.train()
    return {k: [row[k] for row in trainer.state.log_history if k in row] for k in ("kl", "entropy")}


def check(seed: int = 0) -> str:
    names = {f.name for f in dataclasses.fields(GRPOConfig)}
    assert "beta" in names and "kl_coef" not in names, "claim: GRPOConfig's KL knob is `beta`, not `kl_coef`"

    weak = train(seed, beta=0.001)
    assert abs(weak["kl"][0]) < 1e-3, "claim: the first step is on the reference weights, so kl starts at 0"
    assert weak["kl"][-1] > 3 * weak["kl"][1], f"claim: with a weak beta kl keeps rising: {weak['kl']}"

    strong = train(seed, **FIX)
    assert strong["kl"][-1] < 0.5 * weak["kl"][-1], (
        f"claim: a larger beta holds kl down: {strong['kl']} vs {weak['kl']}"
    )

    slow = train(seed, beta=0.001, learning_rate=1e-3, max_steps=4)  # the learning rate 30x lower
    assert slow["kl"][-1] < 0.1 * weak["kl"][-1], f"claim: a low learning rate keeps kl near 0: {slow['kl']}"
    drift = {name: run["entropy"][0] - run["entropy"][-1] for name, run in (("weak", weak), ("slow", slow))}
    assert drift["slow"] < 0.25 * drift["weak"], f"claim: a low learning rate barely moves the policy: {drift}"
    return (
        f"beta=0.001: kl {weak['kl'][1]:.3f} -> {weak['kl'][-1]:.3f}; beta=2.0: final kl {strong['kl'][-1]:.3f}; "
        f"lr/30: final kl {slow['kl'][-1]:.4f}"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
