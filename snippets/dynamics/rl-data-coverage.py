"""GRPO on prompts from one scenario drags a held-out scenario the wrong way;
interleaving both scenarios fixes it.

Page: docs/dynamics/rl-data-coverage.md
中文: docs/dynamics/rl-data-coverage.zh.md
"""

# --8<-- [start:fix]
from datasets import Dataset, interleave_datasets

TOPICS = [
    "the weather",
    "a cat",
    "your day",
    "music",
    "the sea",
    "a book",
    "coffee",
    "trains",
    "rain",
    "a garden",
]
TOPICS += [
    "the moon",
    "bread",
    "a river",
    "tea",
    "snow",
    "a dog",
    "a city",
    "spring",
    "a bike",
    "the news",
]


def scenario(name, instruction, topics):
    """Prompts of one scenario, tagged with a `scenario` column
    that the reward function receives."""
    rows = [
        {
            "prompt": [{"role": "user", "content": f"{instruction} {t}."}],
            "scenario": name,
        }
        for t in topics
    ]
    return Dataset.from_list(rows)


def share(text, test):
    return sum(test(ch) for ch in text) / max(len(text), 1)


def scenario_reward(completions, scenario, **kwargs):
    """One reward, two scenarios: casual chat wants
    lowercase, headlines want capitals."""
    tests = {"chat": str.islower, "headline": str.isupper}
    return [share(c[0]["content"], tests[s]) for c, s in zip(completions, scenario)]


chat = scenario("chat", "say something in lowercase about", TOPICS[:12])
headlines = scenario("headline", "WRITE A HEADLINE IN CAPITALS ABOUT", TOPICS[:12])
# both scenarios, one row of each in turn
mixed = interleave_datasets([chat, headlines], seed=0)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import os

import torch
from transformers import set_seed
from trl import GRPOConfig, GRPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
# 1 on a real model; the handbook's 2-layer test model
# needs ~300x the rate to move in a few steps
LR_SCALE = float(os.environ.get("HANDBOOK_LR_SCALE", "1"))

# The yardstick: headline prompts on topics no training row used.
HELD_OUT = scenario("headline", "WRITE A HEADLINE IN CAPITALS ABOUT", TOPICS[12:])


def train(prompts, seed, evaluate_start=False):
    """Six GRPO steps on `prompts`; return the held-out headline
    reward after (and before, if asked)."""
    set_seed(seed)
    args = GRPOConfig(
        # high for RL on purpose: six CPU steps must move the policy
        learning_rate=1e-4 * LR_SCALE,
        lr_scheduler_type="constant",
        # sized down for a CPU check: two groups of 4 short completions per step
        num_generations=4,
        num_generations_eval=4,
        per_device_train_batch_size=8,
        per_device_eval_batch_size=32,
        max_completion_length=10,
        max_steps=6,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    trainer = GRPOTrainer(
        model=MODEL,
        reward_funcs=scenario_reward,
        args=args,
        train_dataset=prompts,
        eval_dataset=HELD_OUT,
    )
    before = last_eval_reward(trainer) if evaluate_start else None
    trainer.train()  # starts a fresh trainer.state.log_history
    return before, last_eval_reward(trainer)


def last_eval_reward(trainer):
    """Run an evaluation and read GRPO's eval_reward from the log
    (older TRL does not return it)."""
    trainer.evaluate()
    return [
        row["eval_reward"] for row in trainer.state.log_history if "eval_reward" in row
    ][-1]


def check(seed: int = 0) -> str:
    before, narrow = train(chat, seed, evaluate_start=True)
    _, covered = train(interleave_datasets([chat, headlines], seed=seed), seed)
    assert covered > before + 0.05, (
        "claim: the mixed prompt set raises the held-out "
        f"reward: {before:.3f} -> {covered:.3f}"
    )
    assert covered - before > 3 * (narrow - before) and covered > narrow + 0.08, (
        "claim: chat-only prompts bring the held-out headlines a small fraction "
        f"of what covering them does: start {before:.3f}, chat-only "
        f"{narrow:.3f}, mixed {covered:.3f}"
    )
    return (
        f"held-out headline reward: start {before:.3f}, chat-only "
        f"{narrow:.3f}, chat+headline {covered:.3f}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
