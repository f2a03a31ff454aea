"""Old SFTTrainer arguments after an upgrade: the TypeErrors TRL
raises and where each argument went.

Page: docs/sft/renamed-arguments.md
中文: docs/sft/renamed-arguments.zh.md
"""

# --8<-- [start:fix]
import os

import torch
from transformers import AutoTokenizer
from trl import SFTConfig, SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")


def build_trainer(dataset, seed=0):
    """The current spelling (TRL 0.29 to 1.16): data options on SFTConfig, the
    tokenizer as processing_class."""
    args = SFTConfig(
        max_length=64,  # was max_seq_length=, on the trainer or the config
        dataset_text_field="content",  # was an SFTTrainer argument (default "text")
        packing=True,  # was an SFTTrainer argument
        seed=seed,
        bf16=torch.cuda.is_available(),
        save_strategy="no",
    )
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    # was tokenizer=
    return SFTTrainer(
        model=MODEL, args=args, train_dataset=dataset, processing_class=tokenizer
    )


# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import inspect

from datasets import Dataset
from transformers import set_seed

OLD_SPELLINGS = [  # (where the old code passed it, the name, a value)
    ("SFTTrainer", "tokenizer", None),
    ("SFTConfig", "max_seq_length", 64),
    ("SFTTrainer", "max_seq_length", 64),
    ("SFTTrainer", "dataset_text_field", "content"),
    ("SFTTrainer", "packing", True),
    ("SFTTrainer", "dataset_kwargs", {}),
    ("SFTTrainer", "dataset_num_proc", 1),
]
TEXTS = [
    "Two plus two equals four.",
    "Answer yes or no. Yes.",
    "The sea is wide.",
    "Paris is in France.",
] * 2


def old_call_error(where, name, value):
    """Call TRL the old way; return the TypeError message (the trainer
    fails before it loads anything)."""
    try:
        if where == "SFTConfig":
            SFTConfig(**{name: value})
        else:
            SFTTrainer(model=MODEL, **{name: value})
    except TypeError as e:
        return str(e)
    return ""


def check(seed: int = 0) -> str:
    set_seed(seed)
    for where, name, value in OLD_SPELLINGS:
        message = old_call_error(where, name, value)
        assert f"got an unexpected keyword argument '{name}'" in message, (
            f"claim: {where}({name}=...) raises TypeError, got {message!r}"
        )

    trainer = build_trainer(
        Dataset.from_list([{"content": text} for text in TEXTS]), seed
    )
    rows = trainer.train_dataset["input_ids"]
    assert len(rows) < len(TEXTS), (
        f"claim: SFTConfig(packing=True) packs, {len(TEXTS)} texts -> {len(rows)} rows"
    )
    assert max(len(row) for row in rows) <= 64, (
        "claim: SFTConfig(max_length=64) sets the packed row length"
    )

    trainer_params = inspect.signature(SFTTrainer.__init__).parameters
    assert {"processing_class", "formatting_func", "peft_config"} <= set(
        trainer_params
    ), (
        "claim: processing_class, formatting_func and "
        "peft_config are SFTTrainer arguments"
    )
    defaults = {f.name: f.default for f in dataclasses.fields(SFTConfig)}
    assert {
        "max_length",
        "dataset_text_field",
        "packing",
        "dataset_kwargs",
        "dataset_num_proc",
    } <= set(defaults), "claim: the data options are SFTConfig fields"
    assert (defaults["max_length"], defaults["dataset_text_field"]) == (1024, "text"), (
        "claim: defaults max_length=1024, dataset_text_field='text', got "
        f"{defaults['max_length']}, {defaults['dataset_text_field']!r}"
    )
    return (
        f"{len(OLD_SPELLINGS)} old spellings raise TypeError; "
        "SFTConfig(max_length=64, dataset_text_field='content', packing=True) + "
        f"processing_class: {len(TEXTS)} texts -> {len(rows)} rows"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
