"""GRPO rollout memory: the rollout generates per_device_train_batch_size x
steps_per_generation completions at once. num_generations only groups them, and
trading batch size for gradient accumulation leaves the rollout as large.

Page: docs/scale/grpo-rollout-out-of-memory.md
中文: docs/scale/grpo-rollout-out-of-memory.zh.md
"""

# --8<-- [start:fix]
import torch
from trl import GRPOConfig

# Same optimizer batch as per_device_train_batch_size=8 (8 completions per
# step), half the rollout at a time:
grpo_config = GRPOConfig(
    per_device_train_batch_size=4,  # completions per forward/backward pass
    gradient_accumulation_steps=2,  # 4 x 2 = 8 completions per optimizer step
    # generate 4 per micro-step; default (= gradient_accumulation_steps): all 8 at once
    steps_per_generation=1,
    # must divide the 4 completions of a rollout; it does not change how many there are
    num_generations=4,
    # KV cache and activations grow with it: what your task needs (default 512)
    max_completion_length=256,
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os

from datasets import Dataset
from torch.profiler import ProfilerActivity, profile
from transformers import set_seed
from trl import GRPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
# completion tokens of the runs (one of them twice as long): short enough for a CPU
LENGTH = 16


def peak_and_held(prof):
    """Replay the profiler's allocation log: the highest live bytes, and the
    bytes still allocated at the end."""
    events = [
        e for e in prof.profiler.kineto_results.events() if e.name() == "[memory]"
    ]
    live = peak = 0
    for event in sorted(events, key=lambda e: e.start_ns()):
        live += event.nbytes()  # > 0 for an allocation, < 0 for a free
        peak = max(peak, live)
    return peak, live


class MeasuredGRPOTrainer(GRPOTrainer):
    """Profiles each rollout (generation + scoring) and each training forward pass."""

    def _generate_and_score_completions(self, inputs):
        with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
            out = super()._generate_and_score_completions(inputs)
        # (completions, peak bytes)
        self.rollouts.append((len(out["completion_ids"]), peak_and_held(prof)[0]))
        return out

    def compute_loss(self, model, inputs, *args, **kwargs):
        with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
            loss = super().compute_loss(model, inputs, *args, **kwargs)
        self.forwards.append(peak_and_held(prof)[1])  # bytes held for backward
        return loss


def length_reward(completions, **kwargs):
    return [float(len(completion)) for completion in completions]


def run(seed, config, length=LENGTH):
    """One GRPO optimizer step; every completion is forced to
    `length` tokens so runs compare."""
    set_seed(seed)
    prompts = Dataset.from_list([{"prompt": f"Count to {i}."} for i in range(8)])
    args = dataclasses.replace(
        config,
        # derived from steps_per_generation: GRPOConfig refuses both set, as in a copy
        generation_batch_size=None,
        max_completion_length=length,
        generation_kwargs={"min_new_tokens": length},
        max_steps=1,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        use_cpu=True,  # the profiler sees every allocation on the CPU
        bf16=False,
    )
    trainer = MeasuredGRPOTrainer(
        model=MODEL, reward_funcs=length_reward, args=args, train_dataset=prompts
    )
    trainer.rollouts, trainer.forwards = [], []
    trainer.train()
    completions = {n for n, _ in trainer.rollouts}
    assert len(completions) == 1, (
        f"claim: every rollout of a run has the same size: {trainer.rollouts}"
    )
    return (
        completions.pop(),
        max(peak for _, peak in trainer.rollouts),
        max(trainer.forwards),
    )


def describe(result):
    completions, rollout_peak, forward_held = result
    return (
        f"{completions} at once, rollout peak {rollout_peak / 1e3:.0f} KB, forward "
        f"holds {forward_held / 1e3:.0f} KB"
    )


def check(seed: int = 0) -> str:
    bf16 = torch.cuda.is_available()
    # 8 per step, 1 group
    base = run(
        seed, GRPOConfig(per_device_train_batch_size=8, num_generations=8, bf16=bf16)
    )
    fewer_generations = run(
        seed, GRPOConfig(per_device_train_batch_size=8, num_generations=2, bf16=bf16)
    )
    accumulate = run(
        seed,
        GRPOConfig(
            per_device_train_batch_size=4,
            gradient_accumulation_steps=2,
            num_generations=8,
            bf16=bf16,
        ),
    )
    fix = run(seed, grpo_config)  # at LENGTH tokens, like the others, not the Fix's 256
    longer = run(
        seed,
        GRPOConfig(per_device_train_batch_size=8, num_generations=8, bf16=bf16),
        length=2 * LENGTH,
    )

    assert base[0] == fewer_generations[0] == 8, (
        "claim: num_generations=2 still generates 8 completions at once"
    )
    assert abs(fewer_generations[1] / base[1] - 1) < 0.1, (
        "claim: lowering num_generations leaves the rollout peak"
    )
    assert accumulate[0] == 8, (
        "claim: with gradient accumulation the rollout still generates 8 at once"
    )
    assert abs(accumulate[1] / base[1] - 1) < 0.1, (
        "claim: trading batch for accumulation leaves the rollout peak"
    )
    assert accumulate[2] < 0.6 * base[2], (
        "claim: ... but it does shrink the training forward pass"
    )
    assert fix[0] == 4 and fix[1] < 0.6 * base[1], (
        f"claim: steps_per_generation=1 halves the rollout: {fix[1]}"
    )
    assert base[1] < 0.9 * longer[1], (
        f"claim: a shorter max_completion_length shrinks the rollout: {longer[1]}"
    )
    assert base[2] < 0.75 * longer[2], (
        "claim: ... and the activations of the training forward pass"
    )
    return (
        f"base: {describe(base)}; num_generations=2: {describe(fewer_generations)}; 4 "
        f"x 2 accumulation: {describe(accumulate)}; steps_per_generation=1: "
        f"{describe(fix)}; max_completion_length={2 * LENGTH}: {describe(longer)}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
