"""A proxy reward keeps rising while a held-out "gold" measure peaks and falls;
EarlyStoppingCallback on the gold measure (logged by GRPO as a weight-0 reward
function) stops the run near the peak.

Page: docs/dynamics/over-optimisation-early-stop.md
中文: docs/dynamics/over-optimisation-early-stop.zh.md
"""

# --8<-- [start:fix]
import torch
from transformers import EarlyStoppingCallback
from trl import GRPOConfig


def gold(completions, completion_ids, **kwargs):
    """The held-out quality measure: lowercase style, but only
    if the answer is not repetitive.

    Passed as a second reward function with weight 0.0: GRPO logs it
    (rewards/gold/mean) but does not train on it.
    """
    scores = []
    for completion, ids in zip(completions, completion_ids):
        text = completion[0]["content"]
        lowercase = sum(ch.islower() for ch in text) / max(len(text), 1)
        # x share of distinct tokens
        scores.append(lowercase * len(set(ids)) / max(len(ids), 1))
    return scores


grpo_config = GRPOConfig(  # with reward_funcs=[proxy, gold] and an eval_dataset
    learning_rate=1e-6,
    reward_weights=[1.0, 0.0],  # train on the proxy only; gold is just logged
    eval_strategy="steps",
    eval_steps=50,
    # read as eval_rewards/gold/mean; higher is better
    metric_for_best_model="rewards/gold/mean",
    bf16=torch.cuda.is_available(),
)
# GRPOTrainer(..., callbacks=[early_stop])
early_stop = EarlyStoppingCallback(early_stopping_patience=1)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os

from datasets import Dataset
from transformers import set_seed
from trl import GRPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
# 1 on a real model; the handbook's 2-layer test model
# needs ~300x the rate to move in a few steps
LR_SCALE = float(os.environ.get("HANDBOOK_LR_SCALE", "1"))

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
TOPICS += ["rain", "a garden", "the moon", "bread", "a river", "tea", "snow", "a dog"]
TOPICS += ["a friend", "summer", "the city", "a mountain"]


def prompts(topics):
    return Dataset.from_list(
        [
            {"prompt": [{"role": "user", "content": f"Tell me about {t}."}]}
            for t in topics
        ]
    )


def proxy(completions, **kwargs):
    """The reward the run optimises: the share of lowercase
    letters. It cannot see repetition."""
    return [
        sum(ch.islower() for ch in c[0]["content"]) / max(len(c[0]["content"]), 1)
        for c in completions
    ]


def train(seed, callbacks=None):
    """Up to 20 GRPO steps on the proxy, evaluating proxy and gold on 8
    held-out prompts after every step."""
    set_seed(seed)
    args = dataclasses.replace(
        grpo_config,
        # 300x the 1e-6 above on purpose: over-optimise within 20 steps
        learning_rate=3e-4 * LR_SCALE,
        num_generations=4,
        per_device_train_batch_size=8,
        # derived by __post_init__: reset, or replace() refuses the config
        generation_batch_size=None,
        steps_per_generation=None,
        per_device_eval_batch_size=32,  # 8 prompts x 4 completions
        max_completion_length=16,
        max_steps=20,
        eval_steps=1,  # evaluate after every step: a collapse can take 2
        lr_scheduler_type="constant",
        logging_steps=1,
        save_strategy="no",
        seed=seed,
    )
    trainer = GRPOTrainer(
        model=MODEL,
        reward_funcs=[proxy, gold],
        args=args,
        train_dataset=prompts(TOPICS[:12]),
        eval_dataset=prompts(TOPICS[12:]),
        callbacks=callbacks,
    )
    trainer.train()
    evals = [
        row for row in trainer.state.log_history if "eval_rewards/gold/mean" in row
    ]
    return (
        trainer.state.global_step,
        [e["eval_reward"] for e in evals],
        [e["eval_rewards/gold/mean"] for e in evals],
    )


def check(seed: int = 0) -> str:
    steps, proxy_curve, gold_curve = train(seed)
    peak = gold_curve.index(max(gold_curve))
    assert proxy_curve[-1] > proxy_curve[peak], (
        f"claim: the proxy keeps rising past the gold peak: {proxy_curve}"
    )
    assert gold_curve[-1] < max(gold_curve) - 0.05, (
        f"claim: the gold measure falls after its peak: {gold_curve}"
    )

    stopped_at, _, stopped_gold = train(seed, callbacks=[early_stop])
    assert stopped_at < steps, (
        f"claim: EarlyStoppingCallback ends the run early: step {stopped_at} of {steps}"
    )
    assert stopped_gold[-1] > gold_curve[-1] + 0.02, (
        "claim: the stopped model beats the full run on gold: "
        f"{stopped_gold[-1]:.3f} vs {gold_curve[-1]:.3f}"
    )
    return (
        f"full run: proxy {proxy_curve[0]:.2f} -> {proxy_curve[-1]:.2f}, gold "
        f"{gold_curve[0]:.3f} -> peak {max(gold_curve):.3f} -> {gold_curve[-1]:.3f}; "
        f"early stop at step {stopped_at}: gold {stopped_gold[-1]:.3f}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
