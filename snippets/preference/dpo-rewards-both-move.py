"""Flipped preference data looks healthy on the training metrics; only a
trusted eval split shows margins < 0.

Page: docs/preference/dpo-rewards-both-move.md
中文: docs/preference/dpo-rewards-both-move.zh.md
"""


# --8<-- [start:fix]
def trusted_metrics(trainer):
    """Preference metrics on the eval_dataset (pairs you labelled yourself);
    accuracy well below 0.5: swapped."""
    trainer.evaluate()
    # read the log: before TRL 1.5, evaluate() logs
    # eval_rewards/* but does not return them
    last = [row for row in trainer.state.log_history if "eval_rewards/margins" in row][
        -1
    ]
    return last["eval_rewards/margins"], last["eval_rewards/accuracies"]


# --8<-- [end:fix]


# --8<-- [start:evidence]
import gc
import os

import torch
from datasets import Dataset
from transformers import set_seed
from trl import DPOConfig, DPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

PAIRS = [
    {
        "prompt": "What is the capital of France?",
        "chosen": " The capital of France is Paris.",
        "rejected": " I do not know.",
    },
    {"prompt": "Two plus two equals", "chosen": " four.", "rejected": " nine maybe."},
    {
        "prompt": "Answer yes or no.",
        "chosen": " Yes.",
        "rejected": " Maybe. I do not know.",
    },
    {
        "prompt": "Write a short poem about the sea.",
        "chosen": " The sea is wide, the waves are blue.",
        "rejected": " No.",
    },
]
# a column mix-up during data preparation: every pair has chosen and rejected swapped
FLIPPED = [
    {**row, "chosen": row["rejected"], "rejected": row["chosen"]} for row in PAIRS
]


def train(rows, seed):
    """Four DPO steps; return the training log lines and the metrics
    on the correctly labelled pairs."""
    set_seed(seed)
    args = DPOConfig(
        # 10x DPOConfig's default 1e-6, so that a 4-step check moves the model
        learning_rate=1e-5,
        per_device_train_batch_size=4,
        max_steps=4,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    trainer = DPOTrainer(
        model=MODEL,
        args=args,
        train_dataset=Dataset.from_list(rows),
        # the trusted split: correctly labelled pairs
        eval_dataset=Dataset.from_list(PAIRS),
    )
    trainer.train()
    logs = [row for row in trainer.state.log_history if "rewards/margins" in row]
    result = logs, trusted_metrics(trainer)
    del trainer
    gc.collect()  # free this run's two model copies before the next run builds its own
    return result


def check(seed: int = 0) -> str:
    runs = {"flipped": train(FLIPPED, seed), "clean": train(PAIRS, seed)}
    for name, (logs, _) in runs.items():
        margins = [row["rewards/margins"] for row in logs]
        assert margins[-1] > margins[1] > 0, (
            f"claim: the train margin grows in the {name} run: {margins}"
        )
        assert logs[-1]["rewards/accuracies"] == 1.0, (
            f"claim: train accuracy reaches 1.0 in the {name} run"
        )
        assert logs[-1]["rewards/chosen"] > 0 > logs[-1]["rewards/rejected"], (
            f"claim: chosen up, rejected down in the {name} run too"
        )
    (
        (flipped_logs, (flipped_margin, flipped_acc)),
        (clean_logs, (clean_margin, clean_acc)),
    ) = runs.values()
    assert flipped_margin < 0 and flipped_acc <= 0.25, (
        "claim: the trusted split exposes the flipped run: margin "
        f"{flipped_margin:.3f}, accuracy {flipped_acc}"
    )
    assert clean_margin > 0 and clean_acc >= 0.75, (
        "claim: the trusted split confirms the clean run: margin "
        f"{clean_margin:.3f}, accuracy {clean_acc}"
    )
    return (
        f"train margins {flipped_logs[-1]['rewards/margins']:.2f} (flipped) vs "
        f"{clean_logs[-1]['rewards/margins']:.2f} (clean), but eval_rewards/margins "
        f"{flipped_margin:+.2f} vs {clean_margin:+.2f}, eval_rewards/accuracies "
        f"{flipped_acc:.2f} vs {clean_acc:.2f}"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
