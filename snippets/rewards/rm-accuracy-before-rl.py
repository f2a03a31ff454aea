"""Check the reward model on held-out pairs before RL: eval_accuracy separates a learnable preference from noise.

Page: docs/rewards/rm-accuracy-before-rl.md (中文: docs/rewards/rm-accuracy-before-rl.zh.md)
Run:  python snippets/rewards/rm-accuracy-before-rl.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# two 12-step reward-model trainings per seed (~2.5 s): two seeds; 0-4 verified
SEEDS = (0, 1)

GOOD = ["Yes.", "Sure.", "Paris.", "four.", "blue.", "nine."]
BAD = ["No.", "Maybe.", "dog.", "fox.", "sea.", "poem."]


# --8<-- [start:symptom]
def pairs(n: int, seed: int, shuffle: bool = False):
    """Preference pairs: a 'good' answer is preferred; with shuffle=True the labels are coin flips."""
    import random

    from datasets import Dataset

    rng = random.Random(seed)
    rows = []
    for _ in range(n):
        chosen, rejected = rng.choice(GOOD), rng.choice(BAD)
        if shuffle and rng.random() < 0.5:
            chosen, rejected = rejected, chosen
        rows.append({"prompt": [{"role": "user", "content": "Answer me."}],
                     "chosen": [{"role": "assistant", "content": chosen}],
                     "rejected": [{"role": "assistant", "content": rejected}]})
    return Dataset.from_list(rows)


def train_rm(seed: int = 0, shuffle: bool = False) -> dict:
    """Train a reward model and evaluate it on held-out pairs (always correctly labelled)."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer
    from trl import RewardConfig, RewardTrainer

    runner.setup(seed)
    path = runner.model_path(seed)
    model = AutoModelForSequenceClassification.from_pretrained(path, num_labels=1)
    args = runner.config(RewardConfig, seed, max_steps=12, per_device_train_batch_size=8,
                         per_device_eval_batch_size=32)
    trainer = RewardTrainer(model=model, args=args, processing_class=AutoTokenizer.from_pretrained(path),
                            train_dataset=pairs(96, seed, shuffle), eval_dataset=pairs(64, seed + 100))
    trainer.train()
    return trainer.evaluate()  # eval_accuracy, eval_margin, eval_mean_reward, eval_min_reward, eval_max_reward


def symptom(seed: int = 0) -> dict:
    return train_rm(seed, shuffle=True)  # noisy labels: nothing consistent to learn
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    return train_rm(seed, shuffle=False)


def ready_for_rl(metrics: dict, min_accuracy: float = 0.7) -> bool:
    """The gate to run before RL: held-out accuracy clearly above chance and a positive margin."""
    return metrics["eval_accuracy"] >= min_accuracy and metrics["eval_margin"] > 0
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    bad, good = symptom(seed), fix(seed)
    assert {"eval_accuracy", "eval_margin", "eval_mean_reward"} <= set(good), sorted(good)
    assert ready_for_rl(good), f"the learnable preference should pass the gate: {good['eval_accuracy']:.2f}"
    assert not ready_for_rl(bad), f"shuffled labels should fail the gate: {bad['eval_accuracy']:.2f}"
    assert good["eval_accuracy"] - bad["eval_accuracy"] > 0.25
    return (f"eval_accuracy {bad['eval_accuracy']:.2f} (shuffled labels) vs {good['eval_accuracy']:.2f} (learnable); "
            f"eval_margin {bad['eval_margin']:.3f} vs {good['eval_margin']:.3f}")
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
