"""A DPOTrainer subclass written for TRL <= 0.28 (concatenated_forward, dpo_loss,
tokenize_row overrides) is silently ignored on TRL >= 0.29; compute_loss is the hook.

Page: docs/preference/dpo-subclass-override-not-called.md
中文: docs/preference/dpo-subclass-override-not-called.zh.md
"""

# --8<-- [start:symptom]
from trl import DPOTrainer


class OldStyleDPOTrainer(DPOTrainer):
    """Overrides that TRL <= 0.28 called on every batch."""

    called = []

    def concatenated_forward(self, model, batch, *args, **kwargs):
        self.called.append("concatenated_forward")
        return super().concatenated_forward(model, batch, *args, **kwargs)

    def dpo_loss(self, *args, **kwargs):
        self.called.append("dpo_loss")
        return super().dpo_loss(*args, **kwargs)

    def tokenize_row(self, *args, **kwargs):
        self.called.append("tokenize_row")
        return super().tokenize_row(*args, **kwargs)


# TRL >= 0.29 prints []: none of these names exists on DPOTrainer any more
print(
    [name for name in ("concatenated_forward", "dpo_loss") if hasattr(DPOTrainer, name)]
)
# --8<-- [end:symptom]


# --8<-- [start:fix]
import torch
import torch.nn.functional as F
from trl import DPOConfig, DPOTrainer


def completion_logps(outputs, inputs):
    """Summed log-probs of the completion tokens, one value per row."""
    labels = inputs["input_ids"][:, 1:].unsqueeze(-1)
    logps = outputs.logits[:, :-1].float().log_softmax(-1).gather(-1, labels)
    return (logps.squeeze(-1) * inputs["completion_mask"][:, 1:]).sum(dim=1)


class NormDPOTrainer(DPOTrainer):
    """Length-normalised DPO (OLMo / Tulu 3 "dpo_norm"), in the public hook."""

    def compute_loss(
        self, model, inputs, return_outputs=False, num_items_in_batch=None
    ):
        # one batch: input_ids, attention_mask, completion_mask;
        # the rows are all chosen completions first, then all rejected ones
        forward = {k: inputs[k] for k in ("input_ids", "attention_mask")}
        outputs = model(**forward)
        with torch.no_grad():
            ref_logps = completion_logps(self.ref_model(**forward), inputs)
        lengths = inputs["completion_mask"].sum(dim=1).clamp(min=1)
        margin = (completion_logps(outputs, inputs) - ref_logps) / lengths
        chosen, rejected = margin.chunk(2)
        loss = -F.logsigmoid(self.args.beta * (chosen - rejected)).mean()
        return (loss, outputs) if return_outputs else loss


dpo_config = DPOConfig(
    beta=5.0,  # the Tulu 3 value for length-normalised DPO
    learning_rate=5e-7,
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os

from datasets import Dataset
from transformers import set_seed

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
# 1 on a real model; the handbook's 2-layer test model
# needs ~300x the rate to move in a few steps
LR_SCALE = float(os.environ.get("HANDBOOK_LR_SCALE", "1"))
REMOVED = (  # DPOTrainer methods of TRL 0.28.0 that 0.29.0 removed
    "concatenated_forward",
    "concatenated_inputs",
    "dpo_loss",
    "get_batch_loss_metrics",
    "tokenize_row",
    "process_row",
    "store_metrics",
    "null_ref_context",
)
PAIRS = Dataset.from_list(
    [
        {"prompt": "The sky is", "chosen": " blue.", "rejected": " green and red."},
        {"prompt": "Two plus two is", "chosen": " four.", "rejected": " five or six."},
        {"prompt": "Water is", "chosen": " wet and clear.", "rejected": " dry."},
        {"prompt": "Fire is", "chosen": " hot and bright.", "rejected": " cold."},
    ]
)


class RecordingNormDPOTrainer(NormDPOTrainer):
    """The Fix's trainer, counting the batches its compute_loss receives."""

    def compute_loss(self, model, inputs, *args, **kwargs):
        self.seen = getattr(self, "seen", []) + [sorted(inputs)]
        return super().compute_loss(model, inputs, *args, **kwargs)


def train(trainer_class, seed, loss_type):
    """Three DPO steps; returns the trainer and its logged losses."""
    set_seed(seed)
    args = dataclasses.replace(
        dpo_config,
        loss_type=loss_type,
        # a few steps must move the policy, so the two objectives differ
        learning_rate=dpo_config.learning_rate * LR_SCALE,
        lr_scheduler_type="constant",
        per_device_train_batch_size=2,
        max_steps=3,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
    )
    trainer = trainer_class(model=MODEL, args=args, train_dataset=PAIRS)
    trainer.train()
    return trainer, [row["loss"] for row in trainer.state.log_history if "loss" in row]


def check(seed: int = 0) -> str:
    still_there = [name for name in REMOVED if hasattr(DPOTrainer, name)]
    assert not still_there, (
        f"claim: 0.29 removed these DPOTrainer methods: {still_there}"
    )

    OldStyleDPOTrainer.called.clear()
    old, old_losses = train(OldStyleDPOTrainer, seed, ["sigmoid"])
    assert len(old_losses) == 3 and OldStyleDPOTrainer.called == [], (
        "claim: the old overrides are never called, and training runs on with "
        f"the built-in loss: calls {OldStyleDPOTrainer.called}, losses {old_losses}"
    )
    old_calls = len(OldStyleDPOTrainer.called)
    try:
        old.concatenated_forward(old.model, {})
        message = ""
    except AttributeError as error:
        message = str(error)
    assert message == "'super' object has no attribute 'concatenated_forward'", (
        f"claim: calling the parent's old method fails: {message!r}"
    )

    fixed, fixed_losses = train(RecordingNormDPOTrainer, seed, ["sigmoid"])
    keys = ["attention_mask", "completion_mask", "input_ids"]
    assert fixed.seen == [keys] * 3, (
        f"claim: compute_loss runs once per step on these batch keys: {fixed.seen}"
    )
    logged = set().union(*fixed.state.log_history)
    assert "rewards/margins" not in logged and "rewards/margins" in set().union(
        *old.state.log_history
    ), f"claim: an own compute_loss logs none of the DPO metrics: {sorted(logged)}"
    _, builtin = train(DPOTrainer, seed, ["sigmoid_norm"])
    same = max(abs(a - b) for a, b in zip(fixed_losses, builtin))
    apart = max(abs(a - b) for a, b in zip(fixed_losses, old_losses))
    assert same < 1e-4 and apart > 20 * same, (
        "claim: the compute_loss override is the objective that trains, equal to "
        "loss_type=['sigmoid_norm'] and unlike the default sigmoid loss the ignored "
        f"overrides left: fix {fixed_losses}, sigmoid_norm {builtin}, "
        f"old {old_losses}"
    )
    return (
        f"old overrides called {old_calls}x; compute_loss "
        f"{len(fixed.seen)}x; losses fix {[round(x, 5) for x in fixed_losses]}, "
        f"sigmoid_norm differs by {same:.1e}, plain sigmoid by {apart:.1e}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
