"""GRPO's logged reward swings step to step when each step scores few completions; more
completions per step steady it, whatever the model.

Page: docs/dynamics/loss-and-reward-swing.md
中文: docs/dynamics/loss-and-reward-swing.zh.md
"""

# --8<-- [start:fix]
import statistics

import torch
from trl import GRPOConfig

grpo_config = GRPOConfig(
    num_generations=8,
    # 16 completions scored per step (2 prompts x 8) instead of 2
    per_device_train_batch_size=16,
    # GRPOConfig's default; lower it if the swings come with falling entropy
    learning_rate=1e-6,
    bf16=torch.cuda.is_available(),
)


def step_to_step_swing(values):
    """Standard deviation of the change from one logged step to the next: the
    'how jumpy is the curve' number."""
    return statistics.pstdev([b - a for a, b in zip(values, values[1:])])


# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os

from datasets import Dataset
from transformers import set_seed
from trl import GRPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

TOPICS = [
    "the weather",
    "a cat",
    "your day",
    "music",
    "the sea",
    "a book",
    "coffee",
    "trains",
]
# plain-text prompts: no chat template around them, so every sequence stays
# short and a CPU step stays cheap
PROMPTS = Dataset.from_list([{"prompt": f"Tell me about {t}."} for t in TOPICS * 2])


def lowercase_reward(completions, **kwargs):
    """A simple style reward: the share of lowercase letters."""
    return [
        sum(ch.islower() for ch in text) / max(len(text), 1) for text in completions
    ]


def train(seed, **overrides):
    """Eight GRPO steps at grpo_config's learning rate;
    return the logged reward per step."""
    set_seed(seed)
    args = dataclasses.replace(
        grpo_config,
        max_completion_length=8,  # short completions keep a CPU check fast
        max_steps=8,
        lr_scheduler_type="constant",
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        # recomputed from the batch size: GRPOConfig rejects both being set
        generation_batch_size=None,
        steps_per_generation=None,
        **overrides,
    )
    trainer = GRPOTrainer(
        model=MODEL, reward_funcs=lowercase_reward, args=args, train_dataset=PROMPTS
    )
    trainer.train()
    return [row["reward"] for row in trainer.state.log_history if "reward" in row]


def check(seed: int = 0) -> str:
    # 2 completions per step
    small = train(seed, num_generations=2, per_device_train_batch_size=2)
    # grpo_config as it is: 16 completions per step, same learning rate
    steady = train(seed)
    swing_small, swing_steady = step_to_step_swing(small), step_to_step_swing(steady)
    assert swing_small > 1.5 * swing_steady, (
        "claim: with 2 completions per step the logged reward swings more than with "
        f"16: {swing_small:.3f} vs {swing_steady:.3f}"
    )
    return (
        f"step-to-step swing of the logged reward at lr {grpo_config.learning_rate}: 2 "
        f"per step {swing_small:.3f}, 16 per step {swing_steady:.3f}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
