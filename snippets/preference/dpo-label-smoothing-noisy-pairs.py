"""label_smoothing only acts through loss_type="robust" (or exo_pair/aot) since TRL
0.29; with the default "sigmoid" loss it is silently ignored. Noisy pairs show on a
trusted eval split, not on train accuracy.

Page: docs/preference/dpo-label-smoothing-noisy-pairs.md
中文: docs/preference/dpo-label-smoothing-noisy-pairs.zh.md
"""

# --8<-- [start:symptom]
import torch
from trl import DPOConfig

# as usually typed: loss_type stays ["sigmoid"], which never reads label_smoothing
smoothed_config = DPOConfig(label_smoothing=0.1, bf16=torch.cuda.is_available())
# --8<-- [end:symptom]


# --8<-- [start:fix]
robust_config = DPOConfig(
    loss_type="robust",  # Robust DPO: the loss that reads label_smoothing
    label_smoothing=0.1,  # the share of pairs you assume are flipped, in [0, 0.5)
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

CLEAN = [
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
    {"prompt": "Three times three is", "chosen": " nine.", "rejected": " twenty."},
    {"prompt": "Say hello.", "chosen": " Hello world.", "rejected": " I do not know."},
]
# one pair in three has chosen and rejected swapped: the "noisy
# preferences" of the common advice
NOISY = [
    {**row, "chosen": row["rejected"], "rejected": row["chosen"]} if i % 3 == 0 else row
    for i, row in enumerate(CLEAN)
]


def train(config, seed):
    """Six DPO steps with `config` on the noisy pairs; evaluate on the correctly
    labelled ones. Return (log_history, eval)."""
    set_seed(seed)
    args = dataclasses.replace(
        config,
        # 10x DPOConfig's default 1e-6, so that a 6-step check moves the model
        learning_rate=1e-5,
        per_device_train_batch_size=6,
        max_steps=6,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
    )
    trainer = DPOTrainer(
        model=MODEL,
        args=args,
        train_dataset=Dataset.from_list(NOISY),
        eval_dataset=Dataset.from_list(CLEAN),
    )
    trainer.train()
    trainer.evaluate()
    # read eval metrics from the log: before TRL 1.5, evaluate() logs
    # eval_rewards/* but does not return them
    logs = trainer.state.log_history
    del trainer
    gc.collect()  # free this run's two model copies before the next run builds its own
    return logs, [row for row in logs if "eval_loss" in row][-1]


def check(seed: int = 0) -> str:
    # the default loss, no smoothing
    plain_config = dataclasses.replace(smoothed_config, label_smoothing=0.0)
    plain_logs, plain_eval = train(plain_config, seed)
    smoothed_logs, _ = train(smoothed_config, seed)
    robust_logs, robust_eval = train(robust_config, seed)
    loss = {
        name: [row["loss"] for row in logs if "loss" in row]
        for name, logs in (
            ("plain", plain_logs),
            ("smoothed", smoothed_logs),
            ("robust", robust_logs),
        )
    }
    accuracies = [
        row["rewards/accuracies"] for row in plain_logs if "rewards/accuracies" in row
    ]

    assert loss["smoothed"] == loss["plain"], (
        "claim: loss_type='sigmoid' ignores label_smoothing (identical losses)"
    )
    assert loss["robust"] != loss["plain"], (
        "claim: loss_type='robust' reads label_smoothing (the loss changes)"
    )
    assert accuracies[0] == 0.0, (
        "claim: the first rewards/accuracies is 0.0 (policy == "
        f"reference), got {accuracies[0]}"
    )
    assert accuracies[-1] == 1.0, (
        "claim: the flipped pairs are learned as labelled "
        f"(train accuracy {accuracies[-1]})"
    )
    trusted = {
        "sigmoid": plain_eval["eval_rewards/accuracies"],
        "robust": robust_eval["eval_rewards/accuracies"],
    }
    assert max(trusted.values()) <= 0.75, (
        "claim: the trusted split exposes the flipped "
        f"third, even with robust: {trusted}"
    )
    return (
        "sigmoid loss with/without label_smoothing identical "
        f"({loss['plain'][-1]:.4f}); robust {loss['robust'][-1]:.4f}; train accuracy "
        f"{accuracies[0]:.2f} -> {accuracies[-1]:.2f}; trusted eval accuracy sigmoid "
        f"{trusted['sigmoid']:.2f} vs robust {trusted['robust']:.2f}"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
