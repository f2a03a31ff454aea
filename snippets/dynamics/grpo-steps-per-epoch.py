"""How many optimizer steps an epoch of GRPOTrainer (and RLOOTrainer) takes in TRL
1.16, and why a max_steps computed from the prompt count ends the run after a
fraction of an epoch.

Page: docs/dynamics/grpo-steps-per-epoch.md
中文: docs/dynamics/grpo-steps-per-epoch.zh.md
"""

# --8<-- [start:fix]
import math

import torch
from trl import GRPOConfig

grpo_config = GRPOConfig(
    output_dir="grpo-run",
    per_device_train_batch_size=8,  # completions per device, not prompts
    gradient_accumulation_steps=4,
    num_generations=8,
    num_train_epochs=2,
    # the default; any value > 0 replaces num_train_epochs
    max_steps=-1,
    bf16=torch.cuda.is_available(),
)


def grpo_steps_per_epoch(num_prompts, config):
    """Optimizer steps in one epoch of GRPOTrainer or RLOOTrainer (TRL 1.16).
    Build the config in the launched process: it counts the processes."""
    prompts_per_generation = config.generation_batch_size // config.num_generations
    # a last, incomplete generation batch of prompts is dropped
    generations = num_prompts // prompts_per_generation
    batches = generations * config.steps_per_generation * config.num_iterations
    return math.ceil(batches / config.gradient_accumulation_steps)


# planned = math.ceil(grpo_config.num_train_epochs
#                     * grpo_steps_per_epoch(len(train_dataset), grpo_config))
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os
import tempfile

from datasets import Dataset
from transformers import set_seed
from trl import GRPOTrainer, RLOOConfig, RLOOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
PROMPTS = Dataset.from_list(
    [{"prompt": [{"role": "user", "content": f"Count to {i}."}]} for i in range(8)]
)


def length_reward(completions, **kwargs):
    return [float(len(c[0]["content"])) for c in completions]


def small(config, seed, **overrides):
    """The Fix's config scaled down for a CPU: groups of 4 completions, 2
    accumulation steps, 8-token completions."""
    return dataclasses.replace(
        config,
        output_dir=tempfile.mkdtemp(),
        per_device_train_batch_size=4,
        gradient_accumulation_steps=2,
        num_generations=4,
        # re-derived from the new batch size
        generation_batch_size=None,
        steps_per_generation=None,
        max_completion_length=8,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
        **overrides,
    )


def train(trainer_cls, args, seed, prompts=PROMPTS):
    set_seed(seed)
    trainer = trainer_cls(
        model=MODEL, reward_funcs=length_reward, args=args, train_dataset=prompts
    )
    trainer.train()
    return trainer.state


def check(seed: int = 0) -> str:
    args = small(grpo_config, seed)
    batch = args.per_device_train_batch_size * args.gradient_accumulation_steps
    # the plan made by counting prompts: 8 prompts / (4 x 2) = 1 step an epoch
    naive = math.ceil(args.num_train_epochs * len(PROMPTS) / batch)
    cut = train(GRPOTrainer, small(grpo_config, seed, max_steps=naive), seed)
    full = train(GRPOTrainer, args, seed)
    per_epoch = grpo_steps_per_epoch(len(PROMPTS), args)

    assert naive == 2 and cut.global_step == cut.max_steps == naive, (
        f"claim: a positive max_steps wins over num_train_epochs ({cut.global_step})"
    )
    assert cut.epoch == naive / per_epoch == 0.5, (
        f"claim: so the run stops at epoch 0.5 of the 2 planned ({cut.epoch})"
    )
    assert per_epoch == len(PROMPTS) * args.num_generations / batch == 4, (
        f"claim: an epoch is num_generations times the prompt count ({per_epoch})"
    )
    assert full.global_step == full.max_steps == 2 * per_epoch and full.epoch == 2, (
        f"claim: with max_steps=-1 it trains 2 epochs ({full.global_step}, "
        f"{full.epoch})"
    )

    # RLOO counts the same way; num_iterations multiplies the steps
    rloo_args = small(
        RLOOConfig(num_iterations=2, bf16=torch.cuda.is_available()),
        seed,
        num_train_epochs=1,
    )
    rloo = train(RLOOTrainer, rloo_args, seed)
    predicted = grpo_steps_per_epoch(len(PROMPTS), rloo_args)
    assert rloo.global_step == rloo.max_steps == predicted == 8, (
        f"claim: RLOO, num_iterations=2: {rloo.global_step} steps, predicted "
        f"{predicted}"
    )

    # fewer prompts than one generation batch holds (2 here): no step at all
    one = PROMPTS.select(range(1))
    assert grpo_steps_per_epoch(len(one), args) == 0, "claim: 0 steps an epoch"
    try:
        train(GRPOTrainer, args, seed, prompts=one)
        error = None
    except ValueError as e:
        error = str(e)
    assert error and "max_steps must be set to a positive value" in error, (
        f"claim: a dataset smaller than one generation batch fails ({error})"
    )
    return (
        f"8 prompts, 2 epochs: max_steps={naive} (prompt count) stops at "
        f"global_step {cut.global_step}, epoch {cut.epoch}; max_steps=-1 trains "
        f"{full.global_step} steps, epoch {full.epoch} "
        f"(grpo_steps_per_epoch {per_epoch}); RLOO num_iterations=2: "
        f"{rloo.global_step} steps for 1 epoch, predicted {predicted}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
