"""DPO learns only from the tokens where chosen and rejected differ: near-identical
pairs give a much smaller log-ratio gap than clearly different ones. GRPO, by
contrast, consumes reward functions, not pairs.

Page: docs/preference/dpo-preference-gap-grpo-noise.md
中文: docs/preference/dpo-preference-gap-grpo-noise.zh.md
"""

# --8<-- [start:fix]
import difflib


def drop_near_ties(dataset, max_similarity=0.75):
    """Keep only pairs whose chosen and rejected texts are clearly
    different (character-level similarity)."""
    return dataset.filter(
        lambda row: (
            difflib.SequenceMatcher(None, row["chosen"], row["rejected"]).ratio()
            < max_similarity
        )
    )


# --8<-- [end:fix]


# --8<-- [start:evidence]
import inspect
import os

import torch
from datasets import Dataset
from transformers import set_seed
from trl import DPOConfig, DPOTrainer, GRPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
# 1 on a real model; the handbook's 2-layer test model
# needs ~300x the rate to move in a few steps
LR_SCALE = float(os.environ.get("HANDBOOK_LR_SCALE", "1"))

CLEAR = [
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
# the same prompts; chosen and rejected differ by one word at the end
NEAR_IDENTICAL = [
    {
        "prompt": "What is the capital of France?",
        "chosen": " The capital of France is Paris.",
        "rejected": " The capital of France is Rome.",
    },
    {
        "prompt": "Two plus two equals",
        "chosen": " Two plus two equals four.",
        "rejected": " Two plus two equals nine.",
    },
    {
        "prompt": "Answer yes or no.",
        "chosen": " Answer: yes.",
        "rejected": " Answer: no.",
    },
    {
        "prompt": "Write a short poem about the sea.",
        "chosen": " The sea is wide, the waves are blue.",
        "rejected": " The sea is wide, the waves are red.",
    },
]


def train(dataset, seed):
    """Three DPO steps on four pairs at a usual DPO learning
    rate; return the last log line."""
    set_seed(seed)
    args = DPOConfig(
        # a usual DPO rate; small enough that neither set saturates
        learning_rate=5e-6 * LR_SCALE,
        lr_scheduler_type="constant",
        per_device_train_batch_size=4,
        # the last log line is taken before the third update: two updates in
        max_steps=3,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    trainer = DPOTrainer(model=MODEL, args=args, train_dataset=dataset)
    trainer.train()
    last = [row for row in trainer.state.log_history if "rewards/margins" in row][-1]
    return {**last, "logratio_gap": last["rewards/margins"] / args.beta}


def check(seed: int = 0) -> str:
    kept = drop_near_ties(Dataset.from_list(CLEAR + NEAR_IDENTICAL))
    assert kept["chosen"] == [row["chosen"] for row in CLEAR], (
        f"claim: the filter drops exactly the near-ties: {kept}"
    )

    near = train(Dataset.from_list(NEAR_IDENTICAL), seed)
    clear = train(kept, seed)
    assert near["rewards/accuracies"] == clear["rewards/accuracies"] == 1.0, (
        "claim: both sets are learned as labelled"
    )
    assert near["logratio_gap"] < 0.6 * clear["logratio_gap"], (
        f"claim: near-identical pairs move the policy less: {near['logratio_gap']:.2f} "
        f"vs {clear['logratio_gap']:.2f}"
    )
    assert near["loss"] > clear["loss"], (
        "claim: near-identical pairs leave more loss after the same steps"
    )
    params = inspect.signature(GRPOTrainer.__init__).parameters
    assert "reward_funcs" in params, "claim: GRPOTrainer is driven by reward functions"
    return (
        f"log-ratio gap after two updates: near-identical {near['logratio_gap']:.2f} "
        f"vs clear {clear['logratio_gap']:.2f}, "
        f"loss {near['loss']:.3f} vs {clear['loss']:.3f}"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
