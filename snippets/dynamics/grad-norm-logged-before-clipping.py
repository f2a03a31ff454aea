"""The logged grad_norm is the norm before clipping; clipping (max_grad_norm=1.0) is on
by default, and the update the optimizer applies is the clipped one.

Page: docs/dynamics/grad-norm-logged-before-clipping.md
中文: docs/dynamics/grad-norm-logged-before-clipping.zh.md
"""

# --8<-- [start:fix]
import torch
from transformers import TrainerCallback


class AppliedGradNormCallback(TrainerCallback):
    """Adds `applied_grad_norm` next to `grad_norm`: the norm of the gradient the
    optimizer receives, i.e. after clipping. Works where every process holds whole
    gradients (single device, DDP), not under DeepSpeed/FSDP."""

    def on_pre_optimizer_step(self, args, state, control, model=None, **kwargs):
        grads = [
            p.grad.detach().float() for p in model.parameters() if p.grad is not None
        ]
        self.applied = torch.linalg.vector_norm(
            torch.stack([torch.linalg.vector_norm(g) for g in grads])
        ).item()

    def on_log(self, args, state, control, logs=None, **kwargs):
        if logs is not None and "grad_norm" in logs:
            # for reporters that run after this callback
            logs["applied_grad_norm"] = self.applied
            # and in trainer.state.log_history
            state.log_history[-1]["applied_grad_norm"] = self.applied


# --8<-- [end:fix]


# --8<-- [start:evidence]
import os

from datasets import Dataset
from transformers import AutoModelForCausalLM, set_seed
from trl import SFTConfig, SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
TEXTS = [
    "The quick brown fox jumps over the lazy dog.",
    "Two plus two equals four.",
    "What is the capital of France? The capital of France is Paris.",
    "Answer yes or no. Yes.",
]
# plain SGD: the parameter change of one step is exactly LR x the
# gradient the optimizer received
LR = 0.1


def one_sgd_step(seed, **clip):
    """One SFT step with plain SGD; return the logged row and the norm of the
    parameter change divided by LR."""
    set_seed(seed)
    # fp32 so the delta is exact
    model = AutoModelForCausalLM.from_pretrained(MODEL, dtype=torch.float32)
    args = SFTConfig(
        optim="sgd",
        learning_rate=LR,
        lr_scheduler_type="constant",
        per_device_train_batch_size=4,
        max_steps=1,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        bf16=False,
        **clip,
    )
    dataset = Dataset.from_list([{"text": text} for text in TEXTS])
    trainer = SFTTrainer(
        model=model,
        args=args,
        train_dataset=dataset,
        callbacks=[AppliedGradNormCallback()],
    )
    before = [p.detach().clone() for p in trainer.model.parameters()]
    trainer.train()
    delta = torch.linalg.vector_norm(
        torch.stack(
            [
                torch.linalg.vector_norm(p.detach() - b)
                for p, b in zip(trainer.model.parameters(), before)
            ]
        )
    ).item()
    row = next(r for r in trainer.state.log_history if "grad_norm" in r)
    return row, delta / LR


def close(a, b, tol=1e-3):
    return abs(a - b) <= tol * max(abs(b), 1e-12)


def check(seed: int = 0) -> str:
    default_clip = SFTConfig.__dataclass_fields__["max_grad_norm"].default
    assert default_clip == 1.0, (
        f"claim: clipping at 1.0 is on by default, got {default_clip}"
    )
    off, off_applied = one_sgd_step(seed, max_grad_norm=1e9)  # clipping off in effect
    raw = off["grad_norm"]
    # max_grad_norm left at its default, 1.0
    default, default_applied = one_sgd_step(seed)
    # a threshold the gradient surely exceeds
    tight, tight_applied = one_sgd_step(seed, max_grad_norm=raw / 4)

    assert close(off_applied, raw), (
        f"claim: without clipping the applied step is the logged norm: {off_applied}"
    )
    assert close(default["grad_norm"], raw) and close(tight["grad_norm"], raw), (
        "claim: the logged grad_norm is the pre-clip norm, the "
        "same whatever max_grad_norm is"
    )
    assert close(default_applied, min(raw, 1.0)), (
        "claim: with the default the applied norm is min(grad_norm, 1.0): "
        f"{default_applied:.4f} vs {raw:.4f}"
    )
    assert close(tight_applied, raw / 4), (
        f"claim: the applied norm is capped at max_grad_norm: {tight_applied}"
    )
    assert tight["grad_norm"] > tight_applied * 3, (
        "claim: the logged grad_norm can sit far above max_grad_norm"
    )
    assert close(tight["applied_grad_norm"], tight_applied), (
        "claim: the callback logs the applied norm"
    )
    return (
        f"logged grad_norm {raw:.4f} in all three runs; applied (parameter change / "
        f"lr): no clipping {off_applied:.4f}, default max_grad_norm=1.0 "
        f"{default_applied:.4f}, max_grad_norm={raw / 4:.4f} {tight_applied:.4f} "
        f"(callback: {tight['applied_grad_norm']:.4f})"
    )


SEEDS = (0,)  # one batch holds the whole dataset, so every seed gives the same numbers

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
