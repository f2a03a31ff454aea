"""grad_norm spikes after a too-high learning rate: default clipping (already on) does
not stop it with AdamW; the learning rate does.

Page: docs/dynamics/grad-norm-explosion.md
中文: docs/dynamics/grad-norm-explosion.zh.md
"""

# --8<-- [start:fix]
import torch
from trl import SFTConfig

sft_config = SFTConfig(
    learning_rate=2e-5,  # SFTConfig's default; GRPOConfig and DPOConfig default to 1e-6
    # the default clipping: keep it, but with AdamW it does not bound the step
    max_grad_norm=1.0,
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os
import statistics

from datasets import Dataset
from transformers import set_seed
from trl import SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
TEXTS = [
    (
        "The quick brown fox jumps over the lazy dog. The quick "
        "brown fox jumps over the lazy dog."
    ),
    "Two plus two equals four.",
    "Answer yes or no. Yes.",
    "What is the capital of France? The capital of France is Paris.",
] * 4
TOO_HIGH = 3e-2  # 1,500x SFTConfig's default: far too high for any pretrained model


def train(seed, **overrides):
    """8 AdamW steps at a constant learning rate; return the logged rows."""
    set_seed(seed)
    args = dataclasses.replace(
        sft_config,
        # no decay, so every step runs at the rate under test
        lr_scheduler_type="constant",
        per_device_train_batch_size=4,
        max_steps=8,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        **overrides,
    )
    dataset = Dataset.from_list([{"text": text} for text in TEXTS])
    trainer = SFTTrainer(model=MODEL, args=args, train_dataset=dataset)
    trainer.train()
    return [row for row in trainer.state.log_history if "grad_norm" in row]


def grad_norm_spikes(rows, factor=2.0):
    """Steps after the first whose logged (pre-clip) grad_norm is over `factor` x the
    median of those steps. The first step is left out: fine-tuning on new data often
    starts with the largest gradient of the run."""
    later = rows[1:]
    median = statistics.median(row["grad_norm"] for row in later)
    return [row["step"] for row in later if row["grad_norm"] > factor * median]


def peak(rows):
    return max(row["grad_norm"] for row in rows[1:])


def check(seed: int = 0) -> str:
    # clipping off in effect
    unclipped = train(seed, learning_rate=TOO_HIGH, max_grad_norm=1e9)
    # the default clipping, max_grad_norm=1.0
    clipped = train(seed, learning_rate=TOO_HIGH)
    fixed = train(seed)  # sft_config as it is: learning rate 2e-5
    ratio_u, ratio_c = peak(unclipped) / peak(fixed), peak(clipped) / peak(fixed)

    assert ratio_u > 2, (
        f"claim: a too-high lr makes grad_norm spike: peak {ratio_u:.1f}x the fix run's"
    )
    assert ratio_c > 2, (
        "claim: the default clipping does not prevent the spike: "
        f"peak {ratio_c:.1f}x the fix run's"
    )
    assert grad_norm_spikes(clipped), (
        "claim: the too-high rate's grad_norm jumps within its own run"
    )
    after_clip, after_noclip = clipped[1]["loss"], unclipped[1]["loss"]
    assert abs(after_clip - after_noclip) < 0.02 * after_noclip, (
        "claim: with AdamW the first update is nearly the same with or "
        "without clipping (Adam divides out the scale): loss after it "
        f"{after_clip:.3f} vs {after_noclip:.3f}"
    )
    assert not grad_norm_spikes(fixed), (
        f"claim: at 2e-5 grad_norm has no spike: {[r['grad_norm'] for r in fixed]}"
    )
    return (
        f"lr {TOO_HIGH}: peak grad_norm {peak(unclipped):.1f} unclipped, "
        f"{peak(clipped):.1f} clipped at 1.0 (spikes at steps "
        f"{grad_norm_spikes(clipped)}), loss {clipped[0]['loss']:.2f} -> max "
        f"{max(r['loss'] for r in clipped):.2f}; lr {fixed[0]['learning_rate']}: peak "
        f"{peak(fixed):.2f}, loss {fixed[0]['loss']:.2f} -> max "
        f"{max(r['loss'] for r in fixed[1:]):.2f}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
