"""The "batch size must be divisible by num_generations" error, as TRL
(0.29 to 1.16) words and checks it.

Page: docs/online-rl/grpo-generation-batch-divisible.md
中文: docs/online-rl/grpo-generation-batch-divisible.zh.md
"""

# --8<-- [start:symptom]
import torch
from trl import GRPOConfig


def config_error(**kwargs):
    """The ValueError text GRPOConfig raises for these
    settings, or None if it accepts them."""
    try:
        GRPOConfig(bf16=torch.cuda.is_available(), **kwargs)
    except ValueError as e:
        return str(e)
    return None


# 1 process x 2 completions per device x 1 accumulation step = 2 completions per
# generation: no room for whole groups of 3. GRPOConfig raises while it is
# built, before any model loads.
print(config_error(per_device_train_batch_size=2, num_generations=3))
print(config_error(per_device_train_batch_size=2, num_generations=1))
# --8<-- [end:symptom]


# --8<-- [start:fix]
# The generation batch (per-device batch x processes x
# steps_per_generation) must hold whole groups.
grpo_config = GRPOConfig(
    per_device_train_batch_size=2,
    num_generations=3,
    # 2 completions x 3 micro-batches = 6 per generation: two whole groups of 3
    steps_per_generation=3,
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import inspect
import os

from datasets import Dataset
from transformers import set_seed
from trl import GRPOTrainer
from trl.trainer import grpo_config as grpo_config_module
from trl.trainer import grpo_trainer as grpo_trainer_module

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")


def answer_length(completions, **kwargs):
    return [float(len(completion[0]["content"])) for completion in completions]


def train_one_step(seed):
    """One optimizer step with the Fix's config: 6 completions
    generated at once, trained 2 at a time."""
    set_seed(seed)
    args = dataclasses.replace(
        grpo_config,
        # GRPOConfig derived it from steps_per_generation: let it derive it again
        generation_batch_size=None,
        max_completion_length=4,  # short answers: one step in seconds on a CPU
        max_steps=1,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
    )
    prompts = Dataset.from_list(
        [{"prompt": [{"role": "user", "content": f"Count to {i}."}]} for i in range(4)]
    )
    trainer = GRPOTrainer(
        model=MODEL, reward_funcs=answer_length, args=args, train_dataset=prompts
    )
    trainer.train()
    return args, trainer


def check(seed: int = 0) -> str:
    error = config_error(per_device_train_batch_size=2, num_generations=3)
    assert (
        error == "generation_batch_size (2) must be divisible by num_generations (3)."
    ), f"claim: the generation-batch error text: {error}"
    error_ng1 = config_error(per_device_train_batch_size=2, num_generations=1)
    assert str(error_ng1).startswith(
        "GRPO requires at least 2 generations per prompt"
    ), f"claim: ng=1 fails: {error_ng1}"
    errors = {  # the other ways the Fix's prose names
        "bigger per-device batch": config_error(
            per_device_train_batch_size=3, num_generations=3
        ),
        "explicit generation batch": config_error(
            per_device_train_batch_size=2, num_generations=3, generation_batch_size=6
        ),
        "huggingface/trl#2858, batch 1 accumulating 8": config_error(
            per_device_train_batch_size=1,
            gradient_accumulation_steps=8,
            num_generations=8,
        ),
    }
    assert all(e is None for e in errors.values()), (
        f"claim: every fix is accepted, got {errors}"
    )

    args, trainer = train_one_step(seed)
    sizes = (
        args.generation_batch_size,
        args.steps_per_generation,
        trainer.state.global_step,
    )
    assert sizes == (6, 3, 1), (
        "claim: one generation batch of 6 is split over 3 "
        f"micro-batches and trains: {sizes}"
    )

    old = "must be evenly divisible by the number of generations per prompt"
    for module in (grpo_config_module, grpo_trainer_module):
        assert old not in inspect.getsource(module), (
            f"claim: the old message is gone from {module.__name__}"
        )
    return (
        f"TRL raises {error!r}; {len(errors)} other fixes accepted; batch 2 x 3 "
        f"steps per generation trains {sizes}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
