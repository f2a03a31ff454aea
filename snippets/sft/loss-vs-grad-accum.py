"""Does the logged SFT loss scale with gradient_accumulation_steps in TRL? Not with
TRL's loss; yes with a custom compute_loss that takes a per-micro-batch mean.

Page: docs/sft/loss-vs-grad-accum.md
中文: docs/sft/loss-vs-grad-accum.zh.md
"""

# --8<-- [start:symptom]
import torch.nn.functional as F
from trl import SFTTrainer


class MicroBatchMeanSFTTrainer(SFTTrainer):
    """A custom loss that averages over each micro-batch
    and ignores num_items_in_batch."""

    def compute_loss(
        self, model, inputs, return_outputs=False, num_items_in_batch=None
    ):
        logits = model(
            input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"]
        ).logits
        labels = inputs["labels"][:, 1:]
        return F.cross_entropy(
            logits[:, :-1].flatten(0, 1), labels.flatten(), ignore_index=-100
        )


# --8<-- [end:symptom]


# --8<-- [start:fix]
class TokenMeanSFTTrainer(SFTTrainer):
    """The same loss, summed over tokens and divided by the labelled tokens
    of the whole accumulated batch."""

    def compute_loss(
        self, model, inputs, return_outputs=False, num_items_in_batch=None
    ):
        logits = model(
            input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"]
        ).logits
        labels = inputs["labels"][:, 1:]
        loss = F.cross_entropy(
            logits[:, :-1].flatten(0, 1),
            labels.flatten(),
            ignore_index=-100,
            reduction="sum",
        )
        return loss / num_items_in_batch


# --8<-- [end:fix]


# --8<-- [start:evidence]
import os

import torch
from datasets import Dataset
from transformers import set_seed
from trl import SFTConfig

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

# different lengths on purpose: how tokens are split across micro-batches matters
TEXTS = [
    "The quick brown fox jumps over the lazy dog.",
    "Two plus two equals four.",
    "Answer yes or no. Yes.",
    "What is the capital of France? The capital of France is Paris.",
]


def first_loss(trainer_cls, batch_size, grad_accum, seed):
    """One optimizer step over the four texts; return the loss TRL logs for it."""
    set_seed(seed)
    args = SFTConfig(
        per_device_train_batch_size=batch_size,
        gradient_accumulation_steps=grad_accum,
        max_steps=1,
        logging_steps=1,
        seed=seed,
        bf16=torch.cuda.is_available(),
        save_strategy="no",
    )
    dataset = Dataset.from_list([{"text": text} for text in TEXTS])
    trainer = trainer_cls(model=MODEL, args=args, train_dataset=dataset)
    trainer.train()
    return [row["loss"] for row in trainer.state.log_history if "loss" in row][0]


def check(seed: int = 0) -> str:
    # one batch of 4
    reference = first_loss(SFTTrainer, batch_size=4, grad_accum=1, seed=seed)
    # 4 micro-batches of 1
    trl_ga = first_loss(SFTTrainer, batch_size=1, grad_accum=4, seed=seed)
    mean_ga = first_loss(
        MicroBatchMeanSFTTrainer, batch_size=1, grad_accum=4, seed=seed
    )
    fixed_ga = first_loss(TokenMeanSFTTrainer, batch_size=1, grad_accum=4, seed=seed)

    trl_ratio, mean_ratio, fixed_ratio = (
        trl_ga / reference,
        mean_ga / reference,
        fixed_ga / reference,
    )
    assert abs(trl_ratio - 1) < 1e-2, (
        f"claim: TRL's own loss logs the same with GA=4 as GA=1, ratio {trl_ratio:.4f}"
    )
    assert mean_ratio > 2, (
        "claim: a per-micro-batch mean loss logs about GA times "
        f"higher, ratio {mean_ratio:.3f}"
    )
    assert abs(fixed_ratio - 1) < 1e-2, (
        f"claim: dividing by num_items_in_batch removes the scaling, {fixed_ratio:.4f}"
    )
    return (
        f"GA=1×bs4 logs {reference:.4f}; GA=4×bs1: TRL loss "
        f"{trl_ga:.4f} (ratio {trl_ratio:.4f}), per-micro-batch mean "
        f"{mean_ga:.4f} (ratio {mean_ratio:.3f}), / num_items_in_batch "
        f"{fixed_ga:.4f} (ratio {fixed_ratio:.4f})"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
