"""The "batch size must be divisible by num_generations" error, as TRL (0.29 to 1.16) words and checks it.

Page: docs/online-rl/grpo-generation-batch-divisible.md (中文: docs/online-rl/grpo-generation-batch-divisible.zh.md)
"""

# --8<-- [start:symptom]
import torch
from trl import GRPOConfig


def config_error(**kwargs):
    """The ValueError text GRPOConfig raises for these settings, or None if it accepts them."""
    try:
        GRPOConfig(bf16=torch.cuda.is_available(), **kwargs)
    except ValueError as e:
        return str(e)
    return None


# 1 process x 2 completions per device x 1 accumulation step = 2 completions per generation: no room for
# whole groups of 3. GRPOConfig raises while it is built, before any model loads.
print(config_error(per_device_train_batch_size=2, num_generations=3))
print(config_error(per_device_train_batch_size=2, num_generations=1))
# --8<-- [end:symptom]


# --8<-- [start:fix]
# Make the *generation* batch a multiple of num_generations; each of these is accepted:
FIXES = {
    "bigger per-device batch": dict(per_device_train_batch_size=3, num_generations=3),
    "more steps per generation": dict(per_device_train_batch_size=2, num_generations=3, steps_per_generation=3),
    "explicit generation batch": dict(per_device_train_batch_size=2, num_generations=3, generation_batch_size=6),
    # the setup from huggingface/trl#2858, rejected by TRL 0.14/0.15:
    "batch 1, accumulate 8": dict(per_device_train_batch_size=1, gradient_accumulation_steps=8, num_generations=8),
}
# --8<-- [end:fix]


# --8<-- [start:evidence]
import inspect
import os

from datasets import Dataset
from transformers import set_seed
from trl import GRPOTrainer
from trl.trainer import grpo_config, grpo_trainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")


def answer_length(completions, **kwargs):
    return [float(len(completion[0]["content"])) for completion in completions]


def train_one_step(seed):
    """One optimizer step built from 4 micro-batches of 1 completion: one group of 4."""
    set_seed(seed)
    args = GRPOConfig(
        per_device_train_batch_size=1,
        gradient_accumulation_steps=4,
        num_generations=4,
        max_completion_length=4,
        max_steps=1,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    prompts = Dataset.from_list([{"prompt": [{"role": "user", "content": f"Count to {i}."}]} for i in range(4)])
    trainer = GRPOTrainer(model=MODEL, reward_funcs=answer_length, args=args, train_dataset=prompts)
    trainer.train()
    return args, trainer


def check(seed: int = 0) -> str:
    error = config_error(per_device_train_batch_size=2, num_generations=3)
    assert error == "generation_batch_size (2) must be divisible by num_generations (3).", (
        f"claim: the generation-batch error text: {error}"
    )
    error_ng1 = config_error(per_device_train_batch_size=2, num_generations=1)
    assert str(error_ng1).startswith("GRPO requires at least 2 generations per prompt"), (
        f"claim: ng=1 fails: {error_ng1}"
    )
    errors = {name: config_error(**kwargs) for name, kwargs in FIXES.items()}
    assert all(e is None for e in errors.values()), f"claim: every fix is accepted, got {errors}"

    args, trainer = train_one_step(seed)
    sizes = (args.generation_batch_size, args.steps_per_generation, trainer.state.global_step)
    assert sizes == (4, 4, 1), f"claim: one generation batch of 4 is split over 4 micro-batches and trains: {sizes}"

    old = "must be evenly divisible by the number of generations per prompt"
    for module in (grpo_config, grpo_trainer):
        assert old not in inspect.getsource(module), f"claim: the old message is gone from {module.__name__}"
    return f"TRL raises {error!r}; {len(FIXES)} fixes accepted; batch 1 x 4 accumulation steps trains {sizes}"


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
