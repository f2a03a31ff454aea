"""What beta changes in DPO: the logged reward scale and how fast the loss saturates.
With Adam a larger beta moves the policy at most a little less (once its pairs
saturate); the learning rate sets how far it moves.

Page: docs/preference/dpo-beta-strength.md
中文: docs/preference/dpo-beta-strength.zh.md
"""


# --8<-- [start:fix]
def logratio_gaps(trainer):
    """rewards/margins / beta: the chosen-minus-rejected log-ratio,
    comparable across different betas."""
    beta = trainer.args.beta
    return [
        row["rewards/margins"] / beta
        for row in trainer.state.log_history
        if "rewards/margins" in row
    ]


# --8<-- [end:fix]


# --8<-- [start:evidence]
import gc
import os

import torch
from datasets import Dataset
from transformers import set_seed
from trl import DPOConfig, DPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

PAIRS = Dataset.from_list(
    [
        {
            "prompt": "What is the capital of France?",
            "chosen": " The capital of France is Paris.",
            "rejected": " I do not know.",
        },
        {
            "prompt": "Two plus two equals",
            "chosen": " four.",
            "rejected": " nine maybe.",
        },
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
)


def train(beta, learning_rate, seed):
    """Four DPO steps on the four pairs (one batch per step); return (last
    loss, last margin, log-ratio gaps)."""
    set_seed(seed)
    args = DPOConfig(
        beta=beta,
        learning_rate=learning_rate,
        per_device_train_batch_size=4,
        max_steps=4,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    trainer = DPOTrainer(model=MODEL, args=args, train_dataset=PAIRS)
    trainer.train()
    logs = [row for row in trainer.state.log_history if "rewards/margins" in row]
    result = logs[-1]["loss"], logs[-1]["rewards/margins"], logratio_gaps(trainer)
    del trainer
    gc.collect()  # free this run's two model copies before the next run builds its own
    return result


def check(seed: int = 0) -> str:
    # 10x DPOConfig's default: 4 steps must move the policy
    big = train(beta=2.0, learning_rate=1e-5, seed=seed)
    small = train(beta=0.1, learning_rate=1e-5, seed=seed)
    # DPOConfig's default learning rate
    slow = train(beta=0.1, learning_rate=1e-6, seed=seed)
    loss = {"big": big[0], "small": small[0]}
    margin = {"big": big[1], "small": small[1]}
    gap_big, gap_small, gap_slow = big[2][-1], small[2][-1], slow[2][-1]

    assert margin["big"] > 5 * margin["small"], (
        f"claim: rewards/margins scales with beta, got {margin}"
    )
    assert loss["big"] < loss["small"], (
        f"claim: a larger beta drives the loss down faster, got {loss}"
    )
    # 1%: float noise while neither run has saturated yet
    assert gap_big < 1.01 * gap_small, (
        "claim: a larger beta never moves the policy further, gaps "
        f"{gap_big:.4f} vs {gap_small:.4f}"
    )
    assert gap_big > 0.5 * gap_small, (
        "claim: 20x beta changes the movement by less than 2x, "
        f"{gap_big:.2f} vs {gap_small:.2f}"
    )
    assert gap_slow < 0.5 * gap_small, (
        "claim: 10x lower lr moves the policy far less, "
        f"{gap_slow:.2f} vs {gap_small:.2f}"
    )
    return (
        f"beta 2.0 vs 0.1 (lr 1e-5): rewards/margins {margin['big']:.2f} vs "
        f"{margin['small']:.2f}, final loss {loss['big']:.3f} vs "
        f"{loss['small']:.3f}, log-ratio gap {gap_big:.2f} vs {gap_small:.2f}; beta "
        f"0.1 at lr 1e-6: log-ratio gap {gap_slow:.2f}"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
