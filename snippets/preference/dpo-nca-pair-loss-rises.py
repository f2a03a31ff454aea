"""DPO with loss_type="nca_pair": the loss starts at 2 ln 2, cannot fall below
0.955 and rises whenever rewards/chosen strays from ln 2, while margins grow.

Page: docs/preference/dpo-nca-pair-loss-rises.md
中文: docs/preference/dpo-nca-pair-loss-rises.zh.md
"""

# --8<-- [start:why]
import math


def neg_logsigmoid(x):
    """-log(sigmoid(x)), stable for large |x|."""
    return max(-x, 0.0) + math.log1p(math.exp(-abs(x)))


def nca_pair_loss(chosen_reward, rejected_reward):
    """TRL's loss_type="nca_pair" for one pair, from its two rewards
    (rewards/chosen = beta * (policy - reference) log-prob of chosen;
    likewise rewards/rejected)."""
    c, r = chosen_reward, rejected_reward
    chosen_part = neg_logsigmoid(c) + 0.5 * neg_logsigmoid(-c)  # lowest at ln 2
    rejected_part = 0.5 * neg_logsigmoid(-r)  # falls to 0 as r goes down
    return chosen_part + rejected_part


NCA_START = nca_pair_loss(0.0, 0.0)  # 2 ln 2 = 1.3863 at step 0
NCA_FLOOR = nca_pair_loss(math.log(2), -math.inf)  # 0.9548: never below
# --8<-- [end:why]


# --8<-- [start:fix]
import torch
from trl import DPOConfig

dpo_config = DPOConfig(
    loss_type="nca_pair",
    beta=0.1,
    learning_rate=1e-6,
    # with an eval_dataset: eval_rewards/margins and eval_rewards/accuracies
    eval_strategy="steps",
    eval_steps=50,
    logging_steps=1,
    save_strategy="no",
    bf16=torch.cuda.is_available(),
)


def preference_progress(log_history):
    """First and last logged value of the metrics that show a DPO run
    learning. The loss is left out on purpose: with nca_pair it is not one."""
    keys = ("rewards/margins", "rewards/accuracies")
    keys += tuple(f"eval_{key}" for key in keys)
    progress = {}
    for key in keys:
        values = [row[key] for row in log_history if key in row]
        if values:
            progress[key] = (values[0], values[-1])
    return progress


# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os
import random

from datasets import Dataset
from transformers import set_seed
from trl import DPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
# 1 on a real model; the handbook's 2-layer test model
# needs ~300x the rate to move in a few steps
LR_SCALE = float(os.environ.get("HANDBOOK_LR_SCALE", "1"))

WORDS = "calm bright cold warm quiet old green fast soft deep wide small".split()
rng = random.Random(0)


def pairs(topics):
    """A short helpful line is chosen over a refusal."""
    return Dataset.from_list(
        [
            {
                "prompt": f"Write one line about the {topic}.",
                "chosen": f" The {topic} is {' and '.join(rng.sample(WORDS, 2))}.",
                "rejected": f" No. I will not write about the {topic}.",
            }
            for topic in topics
        ]
    )


# 32 training pairs (every step sees new ones) and 8 held-out pairs
TOPICS = "sea moon rain bread music winter garden river city train forest cat"
TRAIN = pairs((TOPICS.split() * 3)[:32])
HELD_OUT = pairs("snow desert bird lamp bridge tea clock island".split())


def train(loss_type, seed):
    """16 steps; return the log (with the held-out metrics before and after)."""
    set_seed(seed)
    args = dataclasses.replace(
        dpo_config,
        loss_type=loss_type,
        # one step moves a reward by about beta x the summed per-token change:
        # beta=1.0 with these 10-token answers makes the rewards swing from batch
        # to batch the way a smaller beta does with long answers
        beta=1.0,
        # 10x the Fix's rate, so that 16 steps move the policy
        learning_rate=dpo_config.learning_rate * 10 * LR_SCALE,
        lr_scheduler_type="constant",
        per_device_train_batch_size=2,
        per_device_eval_batch_size=8,
        max_steps=16,
        seed=seed,
    )
    trainer = DPOTrainer(
        model=MODEL, args=args, train_dataset=TRAIN, eval_dataset=HELD_OUT
    )
    trainer.evaluate()
    before = list(trainer.state.log_history)  # train() starts a new log
    trainer.train()
    trainer.evaluate()
    return before + trainer.state.log_history


def check(seed: int = 0) -> str:
    grid = [i / 1000 for i in range(-4000, 4001)]
    best = min(grid, key=lambda c: nca_pair_loss(c, -math.inf))
    assert abs(best - math.log(2)) < 1e-2 and abs(NCA_FLOOR - 0.9548) < 1e-4, (
        f"claim: the chosen part is lowest at ln 2 ({best:.3f}), value 0.9548"
    )

    nca_log, sigmoid_log = train("nca_pair", seed), train("sigmoid", seed)
    nca = [row for row in nca_log if "loss" in row and "rewards/margins" in row]
    sig = [row for row in sigmoid_log if "loss" in row and "rewards/margins" in row]
    assert abs(nca[0]["loss"] - NCA_START) < 1e-3, (
        f"claim: nca_pair starts at 2 ln 2, not ln 2: {nca[0]['loss']:.4f}"
    )
    assert abs(sig[0]["loss"] - math.log(2)) < 1e-3, "claim: sigmoid starts at ln 2"
    assert min(row["loss"] for row in nca) > NCA_FLOOR - 1e-3, (
        "claim: the nca_pair loss never goes below 0.9548"
    )

    # the loss comes down near its floor, then climbs back up by more than 0.3
    # at a later step whose margin is larger and whose accuracy is as high
    near = [i for i, row in enumerate(nca) if row["loss"] < NCA_FLOOR + 0.1]
    assert near, "claim: the nca_pair loss comes within 0.1 of its floor"
    low = nca[near[0]]
    rises = [
        row
        for row in nca[near[0] + 1 :]
        if row["loss"] > low["loss"] + 0.3
        and row["rewards/margins"] > low["rewards/margins"]
        and row["rewards/accuracies"] >= low["rewards/accuracies"]
    ]
    assert rises, (
        f"claim: after {low['loss']:.3f} the loss rises again while margins grow"
    )
    rise = max(rises, key=lambda row: row["loss"])

    # the highest loss after step 0 sits where rewards/chosen is farthest
    # from ln 2, further than at the lowest loss
    later = nca[1:]
    top = max(later, key=lambda row: row["loss"])
    bottom = min(later, key=lambda row: row["loss"])
    away = [abs(row["rewards/chosen"] - math.log(2)) for row in (top, bottom)]
    assert away[0] > away[1], (
        "claim: the loss peaks where rewards/chosen strays from ln 2: "
        f"{top['rewards/chosen']:+.2f} (loss {top['loss']:.2f}) vs "
        f"{bottom['rewards/chosen']:+.2f} (loss {bottom['loss']:.2f})"
    )

    progress = preference_progress(nca_log)
    margin_0, margin_1 = progress["eval_rewards/margins"]
    accuracy_0, accuracy_1 = progress["eval_rewards/accuracies"]
    assert margin_1 > margin_0 + 1 and accuracy_1 >= 0.75, (
        "claim: on held-out pairs the nca_pair run learned: margins "
        f"{margin_0:.2f} -> {margin_1:.2f}, accuracy {accuracy_1:.2f}"
    )

    sig_low = min(range(len(sig)), key=lambda i: sig[i]["loss"])
    sig_back = max(row["loss"] for row in sig[sig_low:]) - sig[sig_low]["loss"]
    assert sig_back < 0.1, (
        f"claim: the sigmoid loss on the same pairs does not climb back: {sig_back:.3f}"
    )
    return (
        f"nca_pair loss {nca[0]['loss']:.4f} -> {low['loss']:.3f} -> "
        f"{rise['loss']:.3f} (margins {low['rewards/margins']:.2f} -> "
        f"{rise['rewards/margins']:.2f}); held-out margins {margin_0:.2f} -> "
        f"{margin_1:.2f}, accuracy {accuracy_1:.2f}; sigmoid loss "
        f"{sig[0]['loss']:.4f} -> {sig[-1]['loss']:.4f}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
