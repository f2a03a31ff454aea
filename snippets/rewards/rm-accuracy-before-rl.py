"""Check the reward model on held-out pairs before RL: eval_accuracy separates a
learnable preference from noise.

Page: docs/rewards/rm-accuracy-before-rl.md
中文: docs/rewards/rm-accuracy-before-rl.zh.md
"""

# --8<-- [start:symptom]
import random

from datasets import Dataset

GOOD = ["Yes.", "Sure.", "Paris.", "four.", "blue.", "nine."]
BAD = ["No.", "Maybe.", "dog.", "fox.", "sea.", "poem."]


def pairs(n, seed, shuffle=False):
    """Preference pairs: a 'good' answer is preferred; with shuffle=True the
    labels are coin flips (noise)."""
    rng = random.Random(seed)
    rows = []
    for _ in range(n):
        chosen, rejected = rng.choice(GOOD), rng.choice(BAD)
        if shuffle and rng.random() < 0.5:
            chosen, rejected = rejected, chosen
        rows.append(
            {
                "prompt": [{"role": "user", "content": "Answer me."}],
                "chosen": [{"role": "assistant", "content": chosen}],
                "rejected": [{"role": "assistant", "content": rejected}],
            }
        )
    return Dataset.from_list(rows)


# --8<-- [end:symptom]


# --8<-- [start:fix]
def ready_for_rl(metrics, min_accuracy=0.7):
    """The gate to run before RL, on the eval metrics of held-out pairs: clearly
    above chance, positive margin."""
    return metrics["eval_accuracy"] >= min_accuracy and metrics["eval_margin"] > 0


# --8<-- [end:fix]


# --8<-- [start:evidence]
import os

import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer, set_seed
from trl import RewardConfig, RewardTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")


def train_rm(seed, shuffle):
    """Train a reward model for 12 steps; evaluate it on 64 held-out
    pairs, always correctly labelled."""
    set_seed(seed)
    model = AutoModelForSequenceClassification.from_pretrained(MODEL, num_labels=1)
    args = RewardConfig(
        max_steps=12,
        # sized so that 12 steps move the tiny test model; TRL's default is 1e-4
        learning_rate=1e-3,
        per_device_train_batch_size=8,
        per_device_eval_batch_size=32,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    trainer = RewardTrainer(
        model=model,
        args=args,
        processing_class=AutoTokenizer.from_pretrained(MODEL),
        train_dataset=pairs(96, seed, shuffle),
        eval_dataset=pairs(64, seed + 100),
    )
    trainer.train()
    trainer.evaluate()
    # TRL >= 1.5 also returns eval_accuracy, eval_margin, ... from evaluate();
    # log_history has them on every version
    return next(e for e in reversed(trainer.state.log_history) if "eval_loss" in e)


def check(seed: int = 0) -> str:
    noise, learnable = train_rm(seed, shuffle=True), train_rm(seed, shuffle=False)
    keys = {"eval_accuracy", "eval_margin", "eval_mean_reward"}
    assert keys <= set(learnable), (
        f"claim: evaluation logs {keys}, got {sorted(learnable)}"
    )
    assert ready_for_rl(learnable), (
        "claim: a learnable preference passes the gate "
        f"({learnable['eval_accuracy']:.2f})"
    )
    assert not ready_for_rl(noise), (
        f"claim: an RM trained on noisy labels fails it ({noise['eval_accuracy']:.2f})"
    )
    gap = learnable["eval_accuracy"] - noise["eval_accuracy"]
    assert gap > 0.25, (
        f"claim: held-out accuracy separates the two by more than 0.25, got {gap:.2f}"
    )
    return (
        f"eval_accuracy {noise['eval_accuracy']:.2f} (shuffled labels) vs "
        f"{learnable['eval_accuracy']:.2f} (learnable); eval_margin "
        f"{noise['eval_margin']:.3f} vs {learnable['eval_margin']:.3f}"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
