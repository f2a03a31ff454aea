"""Every completion hits max_completion_length: clipped_ratio
1.0, reward 0, no learning signal.

Page: docs/online-rl/grpo-all-completions-clipped.md
中文: docs/online-rl/grpo-all-completions-clipped.zh.md
"""

# --8<-- [start:fix]
import torch
from trl import GRPOConfig

# Measure how long finished answers are on a few of your prompts, then set the limit
# above that (the default is 512 tokens since TRL 1.10, 256 before).
grpo_config = GRPOConfig(
    max_completion_length=1024,  # room for the longest finished answer you measured
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os

import trl
from datasets import Dataset
from packaging.version import Version
from transformers import AutoTokenizer, set_seed
from trl import GRPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
EOS = AutoTokenizer.from_pretrained(MODEL).eos_token_id


def finished_answer(completions, completion_ids, **kwargs):
    """Stand-in for an accuracy check: an answer cut off
    before its end can never be right."""
    return [1.0 if ids and ids[-1] == EOS else 0.0 for ids in completion_ids]


def train(seed, max_completion_length):
    """Two GRPO steps; return {metric: [value per step]} for the
    completion-length and reward metrics."""
    set_seed(seed)
    prompts = Dataset.from_list(
        [{"prompt": [{"role": "user", "content": f"Count to {i}."}]} for i in range(8)]
    )
    args = dataclasses.replace(
        grpo_config,
        max_completion_length=max_completion_length,
        # Script the answer length so the check behaves the same on any model:
        # no EOS before 10 new tokens, then EOS is strongly favoured.
        generation_kwargs={"min_new_tokens": 10, "sequence_bias": [[[EOS], 6.0]]},
        num_generations=4,
        per_device_train_batch_size=4,
        # GRPOConfig derived it from the Fix's batch size: derive it again
        generation_batch_size=None,
        max_steps=2,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
    )
    trainer = GRPOTrainer(
        model=MODEL, reward_funcs=finished_answer, args=args, train_dataset=prompts
    )
    trainer.train()
    keys = (
        "completions/clipped_ratio",
        "completions/mean_length",
        "completions/mean_terminated_length",
    )
    keys += ("reward", "frac_reward_zero_std", "grad_norm")
    return {k: [row[k] for row in trainer.state.log_history if k in row] for k in keys}


def check(seed: int = 0) -> str:
    default = 512 if Version(trl.__version__) >= Version("1.10") else 256
    assert GRPOConfig.max_completion_length == default, (
        f"claim: the default max_completion_length is {default} on trl "
        f"{trl.__version__} (512 since 1.10, 256 before)"
    )
    assert GRPOConfig.mask_truncated_completions is False, (
        "claim: truncated completions are trained on by default"
    )

    bad = train(seed, max_completion_length=8)  # shorter than any finished answer
    assert bad["completions/clipped_ratio"] == [1.0, 1.0], (
        f"claim: every completion is clipped, got {bad}"
    )
    assert bad["completions/mean_length"] == [8.0, 8.0], (
        "claim: mean_length sits at max_completion_length"
    )
    assert bad["completions/mean_terminated_length"] == [0.0, 0.0], (
        "claim: no completion terminates (logged 0)"
    )
    assert bad["reward"] == [0.0, 0.0], "claim: a cut-off answer scores 0"
    assert bad["frac_reward_zero_std"] == [1.0, 1.0], (
        "claim: every group has identical rewards"
    )
    assert max(bad["grad_norm"]) == 0.0, (
        "claim: all-clipped groups give zero advantages, hence no gradient"
    )

    # The scripted answers end a few tokens after the 10th: 24 is room enough here,
    # and keeps the CPU check short (a sample that never ended would otherwise be
    # generated to the Fix's 1024 tokens).
    good = train(seed, max_completion_length=24)
    assert max(good["completions/clipped_ratio"]) <= 0.25, (
        f"claim: room to finish ends most answers, got {good}"
    )
    assert min(good["reward"]) > max(bad["reward"]), (
        "claim: finished answers can now be scored"
    )
    return (
        f"max_completion_length=8: clipped_ratio {bad['completions/clipped_ratio']}, "
        f"reward {bad['reward']}, grad_norm {bad['grad_norm']}; 24: clipped_ratio "
        f"{good['completions/clipped_ratio']}, reward {good['reward']}, mean_length "
        f"{good['completions/mean_length']}"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
