"""The KTOConfig arguments removed since TRL 0.27 (max_prompt_length,
truncation_mode, padding_value, ...), and what max_length alone does to long prompts.

Page: docs/preference/kto-config-removed-arguments.md
中文: docs/preference/kto-config-removed-arguments.zh.md
"""

# --8<-- [start:symptom]
from trl import KTOConfig

for old in (
    {"max_prompt_length": 512},
    {"truncation_mode": "keep_end"},
    {"padding_value": 0},
):
    try:
        KTOConfig(**old)
    except TypeError as error:
        # KTOConfig.__init__() got an unexpected keyword argument ...
        print(error)
# --8<-- [end:symptom]


# --8<-- [start:fix]
import torch
from trl import KTOConfig

kto_config = KTOConfig(
    max_length=1024,  # prompt + completion: the only length limit left
    bf16=torch.cuda.is_available(),
)


def keep_prompt_end(example, tokenizer, max_prompt_length=512):
    """Cut a long prompt to its last tokens, as max_prompt_length=512 with
    truncation_mode="keep_end" did before TRL 0.27."""
    ids = tokenizer(example["prompt"], add_special_tokens=False)["input_ids"]
    if len(ids) > max_prompt_length:
        example["prompt"] = tokenizer.decode(ids[-max_prompt_length:])
    return example


# train_dataset = train_dataset.map(keep_prompt_end, fn_kwargs={"tokenizer": tokenizer})
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os

from datasets import Dataset
from transformers import AutoTokenizer
from trl import KTOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
REMOVED = (  # KTOConfig arguments gone in 0.27.0, 0.28.0 and 1.2.0
    "max_prompt_length",
    "max_completion_length",
    "truncation_mode",
    "is_encoder_decoder",
    "label_pad_token_id",
    "padding_value",
    "ref_model_init_kwargs",
    "use_liger_loss",
    "base_model_attribute_name",
    "generate_during_eval",
)
LONG = "Here is the background. " * 40 + "Question: what colour is the sky?"
ROWS = [
    {"prompt": LONG, "completion": " Blue.", "label": True},
    {"prompt": "Two plus two is", "completion": " four.", "label": True},
    {"prompt": "Water is", "completion": " dry.", "label": False},
    {"prompt": "Fire is", "completion": " cold.", "label": False},
]


def prepared(dataset, seed):
    """The dataset as KTOTrainer keeps it after tokenising (no training)."""
    # short limits keep the check fast: 64 tokens in all, prompts cut to 32
    args = dataclasses.replace(
        kto_config,
        max_length=64,
        per_device_train_batch_size=2,
        report_to="none",
        save_strategy="no",
        seed=seed,
    )
    trainer = KTOTrainer(model=MODEL, args=args, train_dataset=dataset)
    return trainer.train_dataset


def check(seed: int = 0) -> str:
    for name in REMOVED:
        try:
            KTOConfig(**{name: None})
            message = ""
        except TypeError as error:
            message = str(error)
        assert message.endswith(f"got an unexpected keyword argument '{name}'"), (
            f"claim: KTOConfig({name}=...) is a TypeError: {message!r}"
        )

    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    n_long = len(tokenizer(LONG, add_special_tokens=False)["input_ids"])
    assert n_long > 64, f"the long prompt must not fit max_length: {n_long}"
    dropped = prepared(Dataset.from_list(ROWS), seed)
    assert len(dropped) == len(ROWS) - 1 and LONG not in dropped["prompt"], (
        "claim: with max_length alone, a row whose prompt fills max_length is "
        f"dropped without an error: {len(dropped)} of {len(ROWS)} rows kept"
    )

    cut = Dataset.from_list(ROWS).map(
        keep_prompt_end, fn_kwargs={"tokenizer": tokenizer, "max_prompt_length": 32}
    )
    kept = prepared(cut, seed)
    longest = max(len(ids) for ids in kept["prompt_ids"])
    completions = [len(ids) for ids in kept["completion_ids"]]
    assert len(kept) == len(ROWS) and longest <= 34 and min(completions) > 0, (
        "claim: prompts cut to their last 32 tokens keep every row, each with its "
        f"completion: {len(kept)} rows, longest prompt {longest}, "
        f"completion lengths {completions}"
    )
    return (
        f"{len(REMOVED)} removed arguments rejected; long prompt ({n_long} tokens): "
        f"{len(dropped)}/{len(ROWS)} rows kept with max_length=64, {len(kept)}/"
        f"{len(ROWS)} after keep_prompt_end (longest prompt {longest} tokens)"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
