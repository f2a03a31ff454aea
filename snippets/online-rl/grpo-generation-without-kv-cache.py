"""GRPO generation and the KV cache: gradient checkpointing and a model loaded with
use_cache=False leave generate()'s cache on in TRL 1.16; only
generation_kwargs={"use_cache": False} turns it off, and every step then takes
several times longer.

Page: docs/online-rl/grpo-generation-without-kv-cache.md
中文: docs/online-rl/grpo-generation-without-kv-cache.zh.md
"""

# --8<-- [start:fix]
import torch
from trl import GRPOConfig

grpo_config = GRPOConfig(
    output_dir="grpo-out",
    gradient_checkpointing=True,  # TRL's default; it is switched off while generating
    per_device_train_batch_size=8,
    num_generations=8,
    max_completion_length=256,
    # never {"use_cache": False}: generate() would re-run the whole sequence per token
    generation_kwargs={"use_cache": True},
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os
import statistics
import tempfile

from datasets import Dataset
from transformers import AutoModelForCausalLM, set_seed
from trl import GRPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
# completion tokens per run: short enough for a CPU
LENGTH = 32


def length_reward(completions, **kwargs):
    return [float(len(c[0]["content"])) for c in completions]


def watch_generate(model):
    """For each generate() call, the sequence length of every forward pass it runs."""
    calls, generate = [], model.generate

    def traced(*args, **kwargs):
        calls.append([])
        try:
            return generate(*args, **kwargs)
        finally:
            calls.append(None)  # closes the call

    def record(module, args, kwargs):
        if calls and calls[-1] is not None:
            calls[-1].append(kwargs["input_ids"].shape[1])

    model.generate = traced
    model.register_forward_pre_hook(record, with_kwargs=True)
    return calls


def train(seed, generation_kwargs):
    set_seed(seed)
    rows = [
        {"prompt": [{"role": "user", "content": f"Count to {i}."}]} for i in range(8)
    ]
    args = dataclasses.replace(
        grpo_config,
        output_dir=tempfile.mkdtemp(),
        # derived from steps_per_generation: GRPOConfig refuses both set, as in a copy
        generation_batch_size=None,
        per_device_train_batch_size=2,  # small groups: it also runs on a CPU
        num_generations=2,
        max_completion_length=LENGTH,
        # every completion runs to LENGTH tokens, so both runs generate as many
        generation_kwargs={**generation_kwargs, "min_new_tokens": LENGTH},
        max_steps=3,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
    )
    # what users try against the warning: the model loaded with use_cache=False
    model = AutoModelForCausalLM.from_pretrained(MODEL, use_cache=False)
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=length_reward,
        args=args,
        train_dataset=Dataset.from_list(rows),
    )
    calls = watch_generate(trainer.model)
    trainer.train()
    widths = [c for c in calls if c is not None]
    step_time = [h["step_time"] for h in trainer.state.log_history if "step_time" in h]
    return {
        "checkpointing": trainer.args.gradient_checkpointing,
        "config_use_cache": trainer.model.config.use_cache,
        "widths": widths,
        "tokens": sum(sum(w) for w in widths),
        "step_time": statistics.median(step_time),
        "params": sum(p.numel() for p in trainer.model.parameters()),
    }


def check(seed: int = 0) -> str:
    slow = train(seed, {"use_cache": False})
    fast = train(seed, grpo_config.generation_kwargs)
    for run in (slow, fast):
        assert run["checkpointing"] and run["config_use_cache"] is False, (
            f"claim: both runs train with gradient checkpointing and "
            f"model.config.use_cache=False ({run['checkpointing']}, "
            f"{run['config_use_cache']})"
        )
        assert len(run["widths"]) == 3, f"claim: one generate() per step {run}"
    # with the cache: the prompt once, then one new token per forward pass
    assert all(set(w[1:]) == {1} for w in fast["widths"]), (
        "claim: gradient checkpointing and config.use_cache=False leave the KV "
        f"cache on: {[w[:4] for w in fast['widths']]}"
    )
    # without it: every forward pass re-reads the prompt and all tokens so far
    grows = all(w == list(range(w[0], w[0] + len(w))) for w in slow["widths"])
    assert grows, (
        "claim: generation_kwargs use_cache=False re-runs the whole sequence: "
        f"{[w[:4] for w in slow['widths']]}"
    )
    work = slow["tokens"] / fast["tokens"]
    assert work > 5, f"claim: many times the tokens through the model: {work:.1f}x"
    ratio = slow["step_time"] / fast["step_time"]
    # the 2-layer, 32-wide test model costs the same per forward pass at any
    # length (fixed overhead), so the time claim is checked on real models only
    if fast["params"] > 50_000_000:
        assert ratio > 1.5, (
            f"claim: each step takes longer without the cache: {ratio:.2f}x "
            f"(median step_time {slow['step_time']:.2f} vs {fast['step_time']:.2f} s)"
        )
    return (
        f"use_cache=False in generation_kwargs: forward widths "
        f"{slow['widths'][0][:3]}..., {work:.0f}x the tokens, median step_time "
        f"{ratio:.2f}x; default cache: widths {fast['widths'][0][:3]}... although "
        f"config.use_cache={fast['config_use_cache']}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
