"""per_device_train_batch_size x gradient_accumulation_steps: when accumulation gives
the same gradient as one big batch (SFT, GRPO's default loss) and when it does not
(GRPO loss_type="bnpo", per-micro-batch normalisation).

Page: docs/dynamics/batch-vs-gradient-accumulation.md
中文: docs/dynamics/batch-vs-gradient-accumulation.zh.md
"""

# --8<-- [start:fix]
import torch
from trl import GRPOConfig

grpo_config = GRPOConfig(
    per_device_train_batch_size=4,  # instead of 16: 4x less activation memory
    gradient_accumulation_steps=4,  # still 16 sequences per optimizer step
    # the default: normalises over the whole accumulated batch ("bnpo" does not)
    loss_type="dapo",
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os

from datasets import Dataset
from transformers import TrainerCallback, set_seed
from trl import GRPOTrainer, SFTConfig, SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
COMMON = dict(
    max_steps=1,
    max_grad_norm=0.0,
    logging_steps=1,
    save_strategy="no",
    bf16=torch.cuda.is_available(),
)


class GradCapture(TrainerCallback):
    """Keeps the accumulated gradient the optimizer is about to
    apply (clipping is off in COMMON)."""

    def on_pre_optimizer_step(self, args, state, control, model=None, **kwargs):
        self.grad = torch.cat(
            [
                p.grad.detach().float().flatten()
                for p in model.parameters()
                if p.grad is not None
            ]
        )


def sft_gradient(seed, batch):
    """The gradient of one SFT step over four texts of very different lengths."""
    set_seed(seed)
    texts = [
        "Yes.",
        "Two plus two equals four.",
        "The quick brown fox jumps over the lazy dog. " * 4,
        "Paris.",
    ]
    capture = GradCapture()
    args = SFTConfig(seed=seed, **COMMON, **batch)
    # one step sees all four either way
    dataset = Dataset.from_list([{"text": text} for text in texts])
    SFTTrainer(
        model=MODEL, args=args, train_dataset=dataset, callbacks=[capture]
    ).train()
    return capture.grad


def length_reward(completions, **kwargs):
    """Longer answers score higher (uncapped, so that completions of any
    length get different rewards)."""
    return [len(completion[0]["content"]) / 100 for completion in completions]


def grpo_gradient(seed, **overrides):
    """The gradient of one GRPO step on 4 prompts x 4 completions; also
    the logged completion lengths."""
    set_seed(seed)
    prompts = Dataset.from_list(
        [{"prompt": [{"role": "user", "content": f"Count to {i}."}]} for i in range(8)]
    )
    capture = GradCapture()
    args = dataclasses.replace(
        grpo_config,
        num_generations=4,
        max_completion_length=64,
        seed=seed,
        # recomputed from the batch size: GRPOConfig rejects both being set
        generation_batch_size=None,
        steps_per_generation=None,
        **COMMON,
        **overrides,
    )
    trainer = GRPOTrainer(
        model=MODEL,
        reward_funcs=length_reward,
        args=args,
        train_dataset=prompts,
        callbacks=[capture],
    )
    trainer.train()
    row = trainer.state.log_history[0]
    return (
        capture.grad,
        (row["completions/min_length"], row["completions/max_length"]),
        args,
    )


def rel_diff(a, b):
    return ((a - b).norm() / b.norm()).item()


def check(seed: int = 0) -> str:
    sft_big = sft_gradient(
        seed, dict(per_device_train_batch_size=4, gradient_accumulation_steps=1)
    )
    sft_acc = sft_gradient(
        seed, dict(per_device_train_batch_size=1, gradient_accumulation_steps=4)
    )
    sft = rel_diff(sft_acc, sft_big)
    assert sft < 1e-2, (
        "claim: SFT with bs=1 x GA=4 gives the bs=4 gradient (token "
        f"mean over the step): {sft:.2e}"
    )

    big, lengths, big_args = grpo_gradient(
        seed, per_device_train_batch_size=16, gradient_accumulation_steps=1
    )
    # grpo_config as it is: 4 x 4, loss_type="dapo"
    acc, _, acc_args = grpo_gradient(seed)
    # 4 x 4, per-micro-batch normalisation
    bnpo, _, _ = grpo_gradient(seed, loss_type="bnpo")
    assert lengths[0] < lengths[1], (
        "claim: the completions differ in length (needed "
        f"to tell losses apart): {lengths}"
    )
    assert (acc_args.steps_per_generation, acc_args.generation_batch_size) == (4, 16), (
        "claim: in GRPO gradient_accumulation_steps also sets steps_per_generation, "
        "so 16 completions per generation"
    )
    assert big_args.generation_batch_size == acc_args.generation_batch_size, (
        "claim: same completions per step"
    )
    dapo = rel_diff(acc, big)
    # with GA=1, "bnpo" and "dapo" normalise by the same token count
    bnpo_diff = rel_diff(bnpo, big)
    assert dapo < 1e-2, (
        "claim: GRPO's default loss gives the big-batch gradient "
        f"under accumulation: {dapo:.2e}"
    )
    assert bnpo_diff > 2e-2, (
        "claim: loss_type='bnpo' under accumulation gives "
        f"another gradient: {bnpo_diff:.3f}"
    )
    return (
        f"relative gradient difference, accumulated vs one batch: SFT {sft:.1e}, GRPO "
        f"dapo {dapo:.1e}, GRPO bnpo {bnpo_diff:.3f} (completion lengths "
        f"{lengths[0]:.0f}-{lengths[1]:.0f})"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
