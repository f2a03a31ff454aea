"""group_by_length with DPOTrainer / RewardTrainer: no input_ids column to measure.

Page: docs/integrations/group-by-length-preference.md
中文: docs/integrations/group-by-length-preference.zh.md
"""

# --8<-- [start:fix]
import os

import torch
from transformers import AutoTokenizer
from trl import DPOConfig

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
tokenizer = AutoTokenizer.from_pretrained(MODEL)


def add_length(example):
    """A `length` column (the transformers default length_column_name), in tokens."""
    longer = max(example["chosen"], example["rejected"], key=len)
    return {"length": len(tokenizer(example["prompt"] + longer)["input_ids"])}


dpo_config = DPOConfig(
    train_sampling_strategy="group_by_length",  # transformers >= 5.2
    remove_unused_columns=False,  # keep `length` until the sampler reads it
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses

from datasets import Dataset
from transformers import set_seed
from transformers.trainer_pt_utils import LengthGroupedSampler
from trl import DPOTrainer, RewardConfig, RewardTrainer

PROMPTS = ["Q: " + "very " * i + "long?" for i in range(8)]  # 8 different lengths
ROWS = [{"prompt": p, "chosen": " Yes.", "rejected": " No."} for p in PROMPTS]
PAIRS = Dataset.from_list(ROWS)
SHORT = dict(
    per_device_train_batch_size=2,
    max_steps=2,
    logging_steps=1,
    save_strategy="no",
    report_to="none",
)


def first_step_error(trainer):
    try:
        trainer.train()
    except ValueError as error:
        return error
    return None


def check(seed: int = 0) -> str:
    set_seed(seed)
    try:
        DPOConfig(group_by_length=True)
        old_flag = None
    except TypeError as error:
        old_flag = error
    assert "unexpected keyword argument 'group_by_length'" in str(old_flag), (
        f"claim: transformers >= 5.2 has no group_by_length: {old_flag!r}"
    )

    grouped = dict(
        train_sampling_strategy="group_by_length",
        seed=seed,
        bf16=torch.cuda.is_available(),
        **SHORT,
    )
    dpo = DPOTrainer(model=MODEL, args=DPOConfig(**grouped), train_dataset=PAIRS)
    error = first_step_error(dpo)
    assert "Can only automatically infer lengths" in str(error), f"claim: {error!r}"
    assert dpo.state.global_step == 0, "claim: it fails before the first step"
    reward = RewardTrainer(
        model=MODEL,
        args=RewardConfig(**grouped),
        train_dataset=PAIRS,
    )
    error = first_step_error(reward)
    assert "Can only automatically infer lengths" in str(error), f"claim: {error!r}"

    with_length = PAIRS.map(add_length)
    dropped = DPOTrainer(  # the length column alone is removed as unused
        model=MODEL,
        args=DPOConfig(**grouped),
        train_dataset=with_length,
    )
    error = first_step_error(dropped)
    assert "Can only automatically infer lengths" in str(error), f"claim: {error!r}"

    args = dataclasses.replace(dpo_config, seed=seed, **SHORT)
    fixed = DPOTrainer(model=MODEL, args=args, train_dataset=with_length)
    sampler = fixed._get_train_sampler()
    assert isinstance(sampler, LengthGroupedSampler), f"claim: grouped {sampler}"
    assert list(sampler.lengths) == with_length["length"], "claim: our lengths used"
    fixed.train()
    assert fixed.state.global_step == 2, "claim: DPO trains grouped by length"
    reward_args = RewardConfig(remove_unused_columns=False, **grouped)
    reward = RewardTrainer(model=MODEL, args=reward_args, train_dataset=with_length)
    sampler = reward._get_train_sampler()
    assert isinstance(sampler, LengthGroupedSampler), "claim: same for RewardConfig"
    reward.train()
    assert reward.state.global_step == 2, "claim: the reward model trains grouped"
    return (
        "group_by_length=True -> TypeError; DPO and Reward with group_by_length -> "
        "ValueError at train(); a kept `length` column -> LengthGroupedSampler, "
        f"lengths {list(with_length['length'])}, 2 steps"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
