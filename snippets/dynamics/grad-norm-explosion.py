"""grad_norm spikes after a too-high learning rate: default clipping (already on) does not stop it with AdamW;
the learning rate does.

Page: docs/dynamics/grad-norm-explosion.md (中文: docs/dynamics/grad-norm-explosion.zh.md)
"""

# --8<-- [start:fix]
import statistics


def grad_norm_spikes(log_history, factor=3.0):
    """Steps whose logged (pre-clip) grad_norm is more than `factor` x the median of the steps before it."""
    rows = [row for row in log_history if "grad_norm" in row]
    return [
        row["step"]
        for i, row in enumerate(rows[1:], start=1)
        if row["grad_norm"] > factor * statistics.median(r["grad_norm"] for r in rows[:i])
    ]


# The fix is the learning rate: back to the trainer's range (SFTConfig's default is 2e-5, GRPO/DPO use 1e-6),
# keeping the default clipping (max_grad_norm=1.0) rather than switching it off.
FIX = dict(learning_rate=2e-5, max_grad_norm=1.0)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import os

import torch
from datasets import Dataset
from transformers import set_seed
from trl import SFTConfig, SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
TEXTS = [
    "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog.",
    "Two plus two equals four.",
    "Answer yes or no. Yes.",
    "What is the capital of France? The capital of France is Paris.",
] * 4
TOO_HIGH = 0.3  # sized to blow up the tiny test model within a few steps; on a real model far less is enough


def train(seed, **config):
    """16 AdamW steps (constant learning rate); return the per-step logs."""
    set_seed(seed)
    args = SFTConfig(
        lr_scheduler_type="constant",
        per_device_train_batch_size=4,
        max_steps=16,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        bf16=torch.cuda.is_available(),
        **config,
    )
    dataset = Dataset.from_list([{"text": text} for text in TEXTS])
    trainer = SFTTrainer(model=MODEL, args=args, train_dataset=dataset)
    trainer.train()
    return [row for row in trainer.state.log_history if "grad_norm" in row]


def summary(rows):
    first_gn, first_loss = rows[0]["grad_norm"], rows[0]["loss"]
    return {
        "gn_ratio": max(r["grad_norm"] for r in rows) / first_gn,
        "loss_rise": max(r["loss"] for r in rows) - first_loss,
        "spikes": grad_norm_spikes(rows),
    }


def check(seed: int = 0) -> str:
    unclipped = train(seed, learning_rate=TOO_HIGH, max_grad_norm=0.0)  # 0 switches clipping off
    clipped = train(seed, learning_rate=TOO_HIGH)  # default clipping, max_grad_norm=1.0
    fixed = train(seed, **FIX)
    u, c, f = summary(unclipped), summary(clipped), summary(fixed)

    assert u["gn_ratio"] > 2.5 and u["loss_rise"] > 0.5, f"claim: a too-high lr makes grad_norm and loss spike: {u}"
    assert c["gn_ratio"] > 2.5 and c["loss_rise"] > 0.5, f"claim: default clipping does not prevent the spike: {c}"
    assert c["spikes"], f"claim: grad_norm_spikes finds the spike: {c}"
    assert abs(clipped[1]["loss"] - unclipped[1]["loss"]) < 1e-3 * unclipped[1]["loss"], (
        "claim: with AdamW the first update is the same with or without clipping (Adam divides out the scale)"
    )
    assert f["gn_ratio"] < 2.0 and f["loss_rise"] < 0.05 and not f["spikes"], f"claim: a lower lr has no spike: {f}"
    return (
        f"lr {TOO_HIGH}: max/first grad_norm {u['gn_ratio']:.1f} unclipped, {c['gn_ratio']:.1f} clipped at 1.0; "
        f"loss rose by {u['loss_rise']:.2f} / {c['loss_rise']:.2f}; lr {FIX['learning_rate']}: ratio "
        f"{f['gn_ratio']:.2f}, loss rise {f['loss_rise']:.3f}, spikes {f['spikes']} (high lr: {c['spikes']})"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
