"""GRPO's logged reward swings step to step when each step scores few completions, and again when the learning rate
is too high; more completions per step at a sane learning rate steady it.

Page: docs/dynamics/loss-and-reward-swing.md (中文: docs/dynamics/loss-and-reward-swing.zh.md)
"""

# --8<-- [start:fix]
import statistics


def step_to_step_swing(values):
    """Standard deviation of the change from one logged step to the next: the 'how jumpy is the curve' number."""
    return statistics.pstdev([b - a for a, b in zip(values, values[1:])])


# 16 completions scored per optimizer step (2 prompts x 8) instead of 2 (1 prompt x 2).
FIX = {"num_generations": 8, "per_device_train_batch_size": 16}
# --8<-- [end:fix]


# --8<-- [start:evidence]
import os

import torch
from datasets import Dataset
from transformers import set_seed
from trl import GRPOConfig, GRPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

TOPICS = ["the weather", "a cat", "your day", "music", "the sea", "a book", "coffee", "trains"]
PROMPTS = Dataset.from_list([{"prompt": [{"role": "user", "content": f"Tell me about {t}."}]} for t in TOPICS * 2])


def lowercase_reward(completions, **kwargs):
    """A simple style reward: the share of lowercase letters."""
    return [sum(ch.islower() for ch in c[0]["content"]) / max(len(c[0]["content"]), 1) for c in completions]


def train(seed, learning_rate, **batch):
    """Eight GRPO steps; return the logged reward per step."""
    set_seed(seed)
    args = GRPOConfig(
        max_completion_length=8,
        max_steps=8,
        learning_rate=learning_rate,
        lr_scheduler_type="constant",
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        bf16=torch.cuda.is_available(),
        **batch,
    )
    trainer = GRPOTrainer(model=MODEL, reward_funcs=lowercase_reward, args=args, train_dataset=PROMPTS)
    trainer.train()
    return [row["reward"] for row in trainer.state.log_history if "reward" in row]


def check(seed: int = 0) -> str:
    small = train(seed, 1e-3, num_generations=2, per_device_train_batch_size=2)  # 2 completions per step
    steady = train(seed, 1e-3, **FIX)  # 16 completions per step, same learning rate
    hot = train(seed, 3e-1, **FIX)  # 16 completions per step, learning rate far too high
    swing = {name: step_to_step_swing(r) for name, r in (("small", small), ("steady", steady), ("hot", hot))}
    assert swing["small"] > 1.5 * swing["steady"], f"claim: 2 completions per step swing more than 16: {swing}"
    assert swing["hot"] > 1.5 * swing["steady"], f"claim: a far too high lr swings even with 16 per step: {swing}"
    return (
        f"step-to-step swing of the logged reward: 2 per step {swing['small']:.3f}, "
        f"16 per step {swing['steady']:.3f}, 16 per step at lr 3e-1 {swing['hot']:.3f}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
