"""TRL's trainers do not run at a constant learning rate by default: they decay linearly
to ~0 with no warm-up. What the logged learning_rate looks like under the default, a
cosine schedule with warm-up, and a constant rate.

Page: docs/dynamics/lr-schedule-default-linear.md
中文: docs/dynamics/lr-schedule-default-linear.zh.md
"""

# --8<-- [start:fix]
import torch
import transformers
from packaging.version import Version
from trl import GRPOConfig

# A linear warm-up over the first 10% of steps. transformers 5.0 reads a warmup_steps
# below 1 as that ratio and 5.15 removed warmup_ratio; on 4.x warmup_steps must be an
# integer, so the ratio goes in warmup_ratio there.
WARMUP = (
    {"warmup_steps": 0.1}
    if Version(transformers.__version__) >= Version("5.0")
    else {"warmup_ratio": 0.1}
)

# Cosine decay after the warm-up. The same two arguments
# work in DPOConfig and SFTConfig.
grpo_config = GRPOConfig(
    lr_scheduler_type="cosine",
    **WARMUP,
    learning_rate=1e-6,  # GRPOConfig's default peak, written down
    bf16=torch.cuda.is_available(),
)
# To hold the rate instead (TRL's default is NOT this): lr_scheduler_type="constant".
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import math
import os

from datasets import Dataset
from transformers import TrainerCallback, set_seed
from trl import DPOConfig, GRPOConfig, GRPOTrainer, SFTConfig

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
STEPS = 10


def default(config_cls, name):
    return config_cls.__dataclass_fields__[name].default


class Movement(TrainerCallback):
    """How far the weights travel during the second half of training (L2
    distance, step STEPS/2 -> STEPS)."""

    def on_step_end(self, args, state, control, model=None, **kwargs):
        if state.global_step in (STEPS // 2, STEPS):
            flat = torch.cat([p.detach().float().flatten() for p in model.parameters()])
            if state.global_step == STEPS // 2:
                self.mid = flat
            else:
                self.late = (flat - self.mid).norm().item()


def length_reward(completions, **kwargs):
    return [min(len(completion[0]["content"]), 32) / 32 for completion in completions]


def train(config, seed):
    """STEPS GRPO steps with `config`'s schedule and rate; return the logged
    learning rates and late movement."""
    set_seed(seed)
    prompts = Dataset.from_list(
        [{"prompt": [{"role": "user", "content": f"Count to {i}."}]} for i in range(16)]
    )
    movement = Movement()
    args = dataclasses.replace(
        # only sized down for a CPU check: the schedule and the
        # peak rate are the config's own
        config,
        num_generations=4,
        per_device_train_batch_size=4,
        # derived by __post_init__: reset, or replace() refuses the config
        generation_batch_size=None,
        steps_per_generation=None,
        max_completion_length=8,
        max_steps=STEPS,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
    )
    trainer = GRPOTrainer(
        model=MODEL,
        reward_funcs=length_reward,
        args=args,
        train_dataset=prompts,
        callbacks=[movement],
    )
    trainer.train()
    return [
        row["learning_rate"]
        for row in trainer.state.log_history
        if "learning_rate" in row
    ], movement.late


def check(seed: int = 0) -> str:
    for config_cls in (GRPOConfig, DPOConfig, SFTConfig):
        assert default(config_cls, "lr_scheduler_type") == "linear", (
            f"claim: {config_cls.__name__} decays linearly"
        )
        assert default(config_cls, "warmup_steps") == 0, (
            f"claim: {config_cls.__name__} has no warm-up"
        )
    peak = default(GRPOConfig, "learning_rate")
    assert grpo_config.learning_rate == peak, (
        "the three runs below compare schedules at the same peak rate"
    )

    # the symptom: no schedule set, TRL's defaults
    untouched = GRPOConfig(bf16=grpo_config.bf16)
    linear, linear_late = train(untouched, seed)
    cosine, cosine_late = train(grpo_config, seed)
    constant, constant_late = train(
        GRPOConfig(lr_scheduler_type="constant", bf16=grpo_config.bf16), seed
    )

    # logged before each step's update
    expected = [peak * (STEPS - step) / STEPS for step in range(STEPS)]
    assert all(math.isclose(a, b, rel_tol=1e-9) for a, b in zip(linear, expected)), (
        "claim: the default schedule is a linear decay from "
        f"learning_rate towards 0: {linear}"
    )
    assert cosine[0] == 0.0 and math.isclose(cosine[1], peak), (
        f"claim: with warm-up the first step runs at lr 0: {cosine}"
    )
    assert cosine[-1] < 0.05 * peak, f"claim: cosine ends near 0: {cosine[-1]}"
    assert constant == [peak] * STEPS, (
        "claim: only lr_scheduler_type='constant' holds the rate"
    )
    assert linear_late < 0.6 * constant_late and cosine_late < 0.6 * constant_late, (
        f"claim: decaying schedules take smaller late steps: {linear_late:.2e} "
        f"{cosine_late:.2e} {constant_late:.2e}"
    )
    return (
        f"logged learning_rate, first/last: linear {linear[0]:.1e}/{linear[-1]:.1e}, "
        f"cosine+warm-up {cosine[0]:.1e},{cosine[1]:.1e}/{cosine[-1]:.1e}, constant "
        f"{constant[0]:.1e}/{constant[-1]:.1e}; weight movement over the last "
        f"{STEPS // 2} steps: linear {linear_late:.2e}, cosine {cosine_late:.2e}, "
        f"constant {constant_late:.2e}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
