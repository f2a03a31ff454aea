"""GRPO evaluation generates num_generations completions for every eval prompt,
as training does; num_generations_eval samples fewer and evaluates in a fraction
of the time.

Page: docs/scale/grpo-eval-slow-num-generations.md
中文: docs/scale/grpo-eval-slow-num-generations.zh.md
"""

# --8<-- [start:fix]
import torch
from trl import GRPOConfig

grpo_config = GRPOConfig(
    output_dir="grpo-out",
    per_device_train_batch_size=8,
    num_generations=8,  # training needs the group for its advantages
    eval_strategy="steps",
    eval_steps=100,
    per_device_eval_batch_size=8,  # must be a multiple of num_generations_eval
    num_generations_eval=2,  # evaluation only averages rewards: fewer samples do
    max_completion_length=256,
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os
import statistics
import tempfile

from datasets import Dataset
from transformers import set_seed
from trl import GRPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
# completion tokens: short enough for a CPU
LENGTH = 16


def length_reward(completions, **kwargs):
    return [float(len(c[0]["content"])) for c in completions]


def evaluate(seed, num_generations_eval, repeats=3):
    """Evaluates the untrained model `repeats` times on 4 eval prompts: the rows
    of each generate() call, and the eval_runtime of each evaluation."""
    set_seed(seed)
    prompts = [
        {"prompt": [{"role": "user", "content": f"Count to {i}."}]} for i in range(4)
    ]
    args = dataclasses.replace(
        grpo_config,
        output_dir=tempfile.mkdtemp(),
        # derived from steps_per_generation: GRPOConfig refuses both set, as in a copy
        generation_batch_size=None,
        num_generations_eval=num_generations_eval,
        max_completion_length=LENGTH,
        # every completion runs to LENGTH tokens, so both runs generate as long ones
        generation_kwargs={"min_new_tokens": LENGTH},
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
    )
    trainer = GRPOTrainer(
        model=MODEL,
        reward_funcs=length_reward,
        args=args,
        train_dataset=Dataset.from_list(prompts),
        eval_dataset=Dataset.from_list(prompts),
    )
    rows, generate = [], trainer.model.generate

    def counted(*args, **kwargs):
        rows.append(kwargs["input_ids"].shape[0])
        return generate(*args, **kwargs)

    trainer.model.generate = counted
    runs = [trainer.evaluate() for _ in range(repeats)]
    return {
        "rows": rows,
        "seconds": statistics.median(m["eval_runtime"] for m in runs),
        "reward": runs[0]["eval_reward"],
        "params": sum(p.numel() for p in trainer.model.parameters()),
    }


def check(seed: int = 0) -> str:
    default = evaluate(seed, None)  # None: num_generations (8) per eval prompt
    fewer = evaluate(seed, grpo_config.num_generations_eval)
    assert sum(default["rows"]) == 3 * 4 * 8, (
        f"claim: by default each evaluation generates 8 completions per prompt: "
        f"{default['rows']}"
    )
    assert sum(fewer["rows"]) == 3 * 4 * 2, (
        f"claim: num_generations_eval=2 generates 2 per prompt: {fewer['rows']}"
    )
    ratio = default["seconds"] / fewer["seconds"]
    # the 2-layer, 32-wide test model evaluates in a fraction of a second of
    # fixed overhead (noise on a busy machine): the time claim is checked on
    # real models only
    if fewer["params"] > 50_000_000:
        assert ratio > 2, (
            "claim: an evaluation takes several times longer by default: "
            f"{ratio:.2f}x (median eval_runtime {default['seconds']:.2f} vs "
            f"{fewer['seconds']:.2f} s)"
        )
    return (
        f"eval completions per evaluation {sum(default['rows']) // 3} vs "
        f"{sum(fewer['rows']) // 3}, median eval_runtime {ratio:.2f}x longer by "
        f"default; eval_reward {default['reward']:.1f} vs {fewer['reward']:.1f}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
