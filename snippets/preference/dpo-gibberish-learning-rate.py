"""DPO with a far-too-high learning rate: held-out log-likelihood collapses (the "gibberish" symptom) while the
preference metrics look better than ever; DPOConfig's default learning rate keeps it.

Page: docs/preference/dpo-gibberish-learning-rate.md (中文: docs/preference/dpo-gibberish-learning-rate.zh.md)
"""

# --8<-- [start:fix]
LEARNING_RATE = 1e-6  # DPOConfig's default for full fine-tuning; LoRA runs usually tolerate about 5e-6
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
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
        {"prompt": "Two plus two equals", "chosen": " four.", "rejected": " nine maybe."},
        {"prompt": "Answer yes or no.", "chosen": " Yes.", "rejected": " Maybe. I do not know."},
        {
            "prompt": "Write a short poem about the sea.",
            "chosen": " The sea is wide, the waves are blue.",
            "rejected": " No.",
        },
    ]
)
HELD_OUT = "The quick brown fox jumps over the lazy dog. RLHF trains a policy with a reward signal."


def held_out_nll(model, tokenizer):
    """Mean per-token negative log-likelihood of a sentence the preference pairs never show."""
    ids = tokenizer(HELD_OUT, return_tensors="pt").input_ids.to(model.device)
    with torch.no_grad():
        return model(ids, labels=ids).loss.item()


def train(learning_rate, seed):
    """Eight DPO steps on the four pairs; return (held-out NLL before, after, last rewards/margins)."""
    set_seed(seed)
    args = DPOConfig(
        learning_rate=learning_rate,
        per_device_train_batch_size=4,
        max_steps=8,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    trainer = DPOTrainer(model=MODEL, args=args, train_dataset=PAIRS)
    before = held_out_nll(trainer.model, trainer.processing_class)
    trainer.train()
    after = held_out_nll(trainer.model, trainer.processing_class)
    margins = [row["rewards/margins"] for row in trainer.state.log_history if "rewards/margins" in row]
    return before, after, margins[-1]


def check(seed: int = 0) -> str:
    default_lr = {f.name: f.default for f in dataclasses.fields(DPOConfig)}["learning_rate"]
    assert default_lr == LEARNING_RATE, f"claim: DPOConfig's default learning rate is 1e-6, got {default_lr}"

    bad_before, bad_after, bad_margin = train(3e-2, seed)  # far too high (sized to break the tiny test model)
    good_before, good_after, good_margin = train(LEARNING_RATE, seed)
    bad_drift, good_drift = bad_after - bad_before, good_after - good_before
    assert bad_drift > 0.5, f"claim: a far-too-high lr wrecks held-out likelihood, NLL moved {bad_drift:+.3f}"
    assert abs(good_drift) < 0.1, f"claim: the default lr leaves held-out likelihood alone, NLL moved {good_drift:+.3f}"
    assert bad_margin > 0 and good_margin > 0, (
        f"claim: both runs separate chosen from rejected, margins {bad_margin:.4f} / {good_margin:.4f}"
    )
    assert bad_margin > good_margin, "claim: the broken run looks better on rewards/margins"
    return (
        f"held-out NLL {bad_before:.2f}->{bad_after:.2f} at lr 3e-2 vs {good_before:.2f}->{good_after:.2f} at lr 1e-6; "
        f"rewards/margins {bad_margin:.3f} vs {good_margin:.5f}"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
