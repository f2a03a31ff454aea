"""A compute_loss override written for transformers < 4.46 fails with "got an unexpected
keyword argument 'num_items_in_batch'"; accepting it and dividing by it trains, on
the trainer's own loss scale under gradient accumulation.

Page: docs/integrations/compute-loss-num-items-in-batch.md
中文: docs/integrations/compute-loss-num-items-in-batch.zh.md
"""

# --8<-- [start:symptom]
import torch.nn.functional as F
from trl import SFTTrainer


class OldSignatureSFTTrainer(SFTTrainer):
    """A custom loss written for transformers 4.45 and older."""

    def compute_loss(self, model, inputs, return_outputs=False):
        outputs = model(
            input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"]
        )
        labels = inputs["labels"][:, 1:]
        loss = F.cross_entropy(
            outputs.logits[:, :-1].flatten(0, 1), labels.flatten(), ignore_index=-100
        )
        return (loss, outputs) if return_outputs else loss


# --8<-- [end:symptom]


# --8<-- [start:why]
class SwallowedSFTTrainer(OldSignatureSFTTrainer):
    """The quick patch: take the new argument and drop it. No error, but the
    loss is still a mean over each micro-batch."""

    def compute_loss(self, model, inputs, return_outputs=False, **kwargs):
        return super().compute_loss(model, inputs, return_outputs)


# --8<-- [end:why]


# --8<-- [start:fix]
class TokenMeanSFTTrainer(SFTTrainer):
    def compute_loss(
        self, model, inputs, return_outputs=False, num_items_in_batch=None
    ):
        outputs = model(
            input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"]
        )
        labels = inputs["labels"][:, 1:]
        loss = F.cross_entropy(
            outputs.logits[:, :-1].flatten(0, 1),
            labels.flatten(),
            ignore_index=-100,
            reduction="sum",
        )
        if num_items_in_batch is None:
            # the Trainer did not count tokens: it divides by the GA steps itself
            loss = loss / labels.ne(-100).sum()
        else:
            # labelled tokens of the whole optimizer step, on every process
            loss = loss / num_items_in_batch
            if self.args.average_tokens_across_devices:
                # as Trainer.compute_loss does: DDP averages the gradients
                loss = loss * self.accelerator.num_processes
        return (loss, outputs) if return_outputs else loss


# --8<-- [end:fix]


# --8<-- [start:fix-mean]
class MicroBatchMeanSFTTrainer(SwallowedSFTTrainer):
    # transformers >= 5.19: "my loss is a per-micro-batch mean, divide it by GA"
    loss_is_scaled_for_ga = False


# --8<-- [end:fix-mean]


# --8<-- [start:evidence]
import os

import torch
from datasets import Dataset
from transformers import set_seed
from trl import SFTConfig

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

# four texts of different lengths: one micro-batch each
TEXTS = [
    "Water boils at one hundred degrees Celsius at sea level.",
    "Hello!",
    "Name a primary colour. Red is a primary colour.",
    "Translate to French: good morning. Bonjour.",
]
GRAD_ACCUM = 4


def first_step(trainer_cls, seed):
    """One optimizer step of 4 micro-batches of 1; the loss and grad_norm logged."""
    set_seed(seed)
    args = SFTConfig(
        per_device_train_batch_size=1,
        gradient_accumulation_steps=GRAD_ACCUM,
        max_steps=1,
        logging_steps=1,
        seed=seed,
        bf16=torch.cuda.is_available(),
        save_strategy="no",
    )
    dataset = Dataset.from_list([{"text": text} for text in TEXTS])
    trainer = trainer_cls(model=MODEL, args=args, train_dataset=dataset)
    trainer.train()
    row = [row for row in trainer.state.log_history if "loss" in row][0]
    return row["loss"], row["grad_norm"]


def check(seed: int = 0) -> str:
    try:
        first_step(OldSignatureSFTTrainer, seed)
        error = ""
    except TypeError as exc:
        error = str(exc)
    assert error.endswith(
        "compute_loss() got an unexpected keyword argument 'num_items_in_batch'"
    ), f"claim: training_step passes num_items_in_batch, got {error!r}"

    builtin, builtin_grad = first_step(SFTTrainer, seed)
    fixed, fixed_grad = first_step(TokenMeanSFTTrainer, seed)
    swallowed, swallowed_grad = first_step(SwallowedSFTTrainer, seed)
    mean_fix, _ = first_step(MicroBatchMeanSFTTrainer, seed)

    assert abs(fixed / builtin - 1) < 1e-2, (
        "claim: dividing by num_items_in_batch logs SFTTrainer's own loss, "
        f"{fixed:.4f} vs {builtin:.4f}"
    )
    assert abs(fixed_grad / builtin_grad - 1) < 1e-2, (
        "claim: and the same gradient, "
        f"grad_norm {fixed_grad:.4f} vs {builtin_grad:.4f}"
    )
    assert swallowed / builtin > GRAD_ACCUM / 2, (
        "claim: swallowing num_items_in_batch logs about GA times the loss, "
        f"{swallowed:.4f} vs {builtin:.4f}"
    )
    assert swallowed_grad / builtin_grad > GRAD_ACCUM / 2, (
        "claim: and about GA times the gradient, "
        f"grad_norm {swallowed_grad:.4f} vs {builtin_grad:.4f}"
    )
    assert abs(mean_fix * GRAD_ACCUM / swallowed - 1) < 1e-3, (
        "claim: loss_is_scaled_for_ga = False divides the mean by GA, "
        f"{mean_fix:.4f} x {GRAD_ACCUM} vs {swallowed:.4f}"
    )
    return (
        f"old signature: TypeError ...{error[-40:]}; GA={GRAD_ACCUM}: SFTTrainer "
        f"{builtin:.4f}, / num_items_in_batch {fixed:.4f}, swallowed "
        f"{swallowed:.4f} ({swallowed / builtin:.2f}x, grad_norm "
        f"{swallowed_grad / builtin_grad:.2f}x), loss_is_scaled_for_ga=False "
        f"{mean_fix:.4f}"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
