"""The one-sample overfit check: a healthy SFT setup drives one example's
loss near 0; a broken one cannot.

Page: docs/debugging/overfit-one-sample.md
中文: docs/debugging/overfit-one-sample.zh.md
"""

# --8<-- [start:fix]
import torch
from datasets import Dataset
from trl import SFTConfig, SFTTrainer


def overfit_one_sample(model, learning_rate, seed=0, steps=30):
    """Train on ONE conversation, repeated; return the loss logged at every step."""
    # prompt/completion columns: the loss covers the answer with any
    # chat template, no markers needed
    sample = {
        "prompt": [{"role": "user", "content": "What is the capital of France?"}],
        "completion": [
            {"role": "assistant", "content": "The capital of France is Paris."}
        ],
    }
    args = SFTConfig(
        max_steps=steps,
        per_device_train_batch_size=1,
        learning_rate=learning_rate,  # high on purpose: we WANT to memorise
        lr_scheduler_type="constant",
        max_grad_norm=0.0,  # no clipping: nothing should slow the memorising down
        # score the answer, the part the model must reproduce (the default here)
        completion_only_loss=True,
        logging_steps=1,
        seed=seed,
        bf16=torch.cuda.is_available(),
        save_strategy="no",
    )
    trainer = SFTTrainer(
        model=model, args=args, train_dataset=Dataset.from_list([sample] * 8)
    )
    trainer.train()
    return [row["loss"] for row in trainer.state.log_history if "loss" in row]


# --8<-- [end:fix]


# --8<-- [start:evidence]
import os

from transformers import AutoModelForCausalLM, set_seed

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")


def load(seed, frozen=False):
    set_seed(seed)
    model = AutoModelForCausalLM.from_pretrained(MODEL, dtype=torch.float32)
    if frozen:  # the bug the check must catch: nothing is trainable
        model.requires_grad_(False)
    return model


def check(seed: int = 0) -> str:
    model = load(seed)
    # A randomly initialised toy model needs a far higher rate and more steps than a
    # pretrained one, which memorises one answer within a few steps at 1e-4 (8 steps
    # keep the check short on a CPU).
    learning_rate, steps = (
        (1e-2, 40) if model.num_parameters() < 10_000_000 else (1e-4, 8)
    )
    good = overfit_one_sample(model, learning_rate, seed, steps)
    assert good[-1] < 0.1 * good[0], (
        f"claim: a healthy setup memorises one sample, {good[0]:.3f} -> {good[-1]:.3f}"
    )
    try:
        bad = overfit_one_sample(load(seed, frozen=True), learning_rate, seed, steps)
    # transformers 4.x: the first backward finds nothing to differentiate
    except RuntimeError as err:
        assert "does not require grad" in str(err), (
            f"claim: frozen weights fail at the first backward: {err}"
        )
        return (
            f"lr {learning_rate:g}: healthy loss {good[0]:.2f} -> "
            f"{good[-1]:.3f}; frozen: RuntimeError ({err})"
        )
    assert bad[-1] > 0.9 * bad[0], (
        f"claim: with frozen weights the loss stays flat, {bad[0]:.3f} -> {bad[-1]:.3f}"
    )
    return (
        f"lr {learning_rate:g}: healthy loss {good[0]:.2f} -> {good[-1]:.3f} in "
        f"{len(good)} steps; frozen: {bad[0]:.2f} -> {bad[-1]:.2f}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
