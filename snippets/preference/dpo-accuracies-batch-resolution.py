"""DPO's logged rewards/accuracies is the mean over the pairs of one logging window:
with 2 pairs per log it can only be 0, 0.5 or 1. A longer window averages the same
per-pair scores; a held-out eval set measures the model on all its pairs at once.

Page: docs/preference/dpo-accuracies-batch-resolution.md
中文: docs/preference/dpo-accuracies-batch-resolution.zh.md
"""

# --8<-- [start:fix]
import torch
from trl import DPOConfig

dpo_config = DPOConfig(
    per_device_train_batch_size=2,
    # each logged value averages 2 pairs x 10 steps (x processes, x accumulation)
    logging_steps=10,
    # judge the model on a fixed held-out split: eval_rewards/accuracies
    eval_strategy="steps",
    eval_steps=50,
    per_device_eval_batch_size=8,
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import gc
import os

from datasets import Dataset
from transformers import set_seed
from trl import DPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
# 1 on a real model; the handbook's 2-layer test model
# needs ~300x the rate to move in a few steps
LR_SCALE = float(os.environ.get("HANDBOOK_LR_SCALE", "1"))

TOPICS = [
    "the weather", "a recipe", "my homework", "a birthday card", "a cover letter",
    "a short poem", "my garden", "a travel plan", "a math problem", "a bug report",
    "a thank-you note", "a grocery list", "a book review", "a job interview",
    "a science quiz", "a workout plan", "a wedding toast", "a budget",
    "a bedtime story", "a movie plot", "a history essay", "a chess opening",
    "a speech", "a haiku", "a resume", "a puzzle", "a song", "a lesson plan",
    "a joke", "a menu", "a timetable", "a letter", "a slogan", "a riddle",
    "a summary", "a diary entry", "a product name", "a toast", "a schedule",
    "a quiz",
]  # fmt: skip


def pairs(topics):
    """A helpful answer is preferred; every fourth pair goes the other way, like
    the pairs of a real data set that a model gets wrong."""
    rows = []
    for i, topic in enumerate(topics):
        helpful = f" Of course, let us work on {topic} together."
        refusal = " No."
        hard = i % 4 == 3
        rows.append(
            {
                "prompt": f"Can you help me with {topic}?",
                "chosen": refusal if hard else helpful,
                "rejected": helpful if hard else refusal,
            }
        )
    return Dataset.from_list(rows)


TRAIN, HELD_OUT = pairs(TOPICS[:24]), pairs(TOPICS[24:])


def train(config, seed):
    """Twelve DPO steps on 24 pairs (2 a step), evaluated on 16 held-out pairs."""
    set_seed(seed)
    args = dataclasses.replace(
        config,
        learning_rate=5e-6 * LR_SCALE,
        max_steps=12,
        # a 12-step check: evaluate twice instead of every 50 steps
        eval_steps=6,
        save_strategy="no",
        seed=seed,
    )
    trainer = DPOTrainer(
        model=MODEL, args=args, train_dataset=TRAIN, eval_dataset=HELD_OUT
    )
    trainer.train()
    logs = trainer.state.log_history
    del trainer
    gc.collect()
    return logs


def values(logs, key):
    return [row[key] for row in logs if key in row]


def check(seed: int = 0) -> str:
    # the same training, logged every step and every 4 steps (a 12-step check)
    jumpy = train(dataclasses.replace(dpo_config, logging_steps=1), seed)
    window = train(dataclasses.replace(dpo_config, logging_steps=4), seed)
    per_step = values(jumpy, "rewards/accuracies")
    averaged = values(window, "rewards/accuracies")
    held_out = values(jumpy, "eval_rewards/accuracies")

    assert len(per_step) == 12 and set(per_step) <= {0.0, 0.5, 1.0}, (
        "claim: with 2 pairs per log, rewards/accuracies is only 0, 0.5 or 1: "
        f"{per_step}"
    )
    jumps = [abs(b - a) for a, b in zip(per_step[1:], per_step[2:])]
    assert max(jumps) >= 0.5, (
        f"claim: after step 1 the logged value still jumps by 0.5 or more: {per_step}"
    )
    means = [sum(per_step[i : i + 4]) / 4 for i in (0, 4, 8)]
    assert len(averaged) == 3 and all(
        abs(a - m) < 1e-6 for a, m in zip(averaged, means)
    ), (
        "claim: logging_steps=4 logs the mean of the same per-step values "
        f"(the same training): {averaged} vs {means}"
    )
    assert values(window, "loss") != [] and held_out == values(
        window, "eval_rewards/accuracies"
    ), "claim: the logging window does not change training or the held-out score"
    assert len(held_out) == 2 and all((v * 16) % 1 == 0 for v in held_out), (
        f"claim: eval_rewards/accuracies scores all 16 held-out pairs: {held_out}"
    )
    assert held_out[-1] >= 0.625, (
        f"claim: the model ranks most held-out pairs right: {held_out}"
    )
    low = [v for v in per_step[1:] if v <= 0.5]
    assert low, (
        f"claim: a logged 0.5 or 0.0 while the held-out score is high: {per_step}"
    )
    return (
        f"logged every step: {per_step}; every 4 steps: "
        f"{[round(v, 3) for v in averaged]}; held-out accuracy {held_out}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
