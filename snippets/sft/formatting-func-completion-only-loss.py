"""formatting_func on a prompt/completion dataset: the ValueError by default,
and a formatter that is silently skipped with completion_only_loss=False.

Page: docs/sft/formatting-func-completion-only-loss.md
中文: docs/sft/formatting-func-completion-only-loss.zh.md
"""

# --8<-- [start:symptom]
from datasets import Dataset

# a prompt/completion dataset, and the formatter that should turn it into text
raw_dataset = Dataset.from_list(
    [
        {"prompt": "What is two plus two?", "completion": "Four."},
        {"prompt": "What is the capital of France?", "completion": "Paris."},
    ]
)


def formatting_func(example):
    return f"### Question: {example['prompt']}\n### Answer: {example['completion']}"


# SFTTrainer(..., train_dataset=raw_dataset, formatting_func=formatting_func)
# raises the ValueError
# --8<-- [end:symptom]


# --8<-- [start:fix]
def to_prompt_completion(example):
    """Your template, applied to the dataset: the prompt keeps everything
    up to the answer, the completion is what the loss is computed on."""
    return {
        "prompt": f"### Question: {example['prompt']}\n### Answer:",
        "completion": f" {example['completion']}",
    }


train_dataset = raw_dataset.map(to_prompt_completion)
# then: SFTTrainer(model=..., args=sft_config, train_dataset=train_dataset)
# with no formatting_func argument
# --8<-- [end:fix]


# --8<-- [start:evidence]
import os

import torch
from transformers import set_seed
from trl import SFTConfig, SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")


def build(seed, dataset, formatter=None, **config):
    set_seed(seed)
    args = SFTConfig(
        seed=seed, bf16=torch.cuda.is_available(), save_strategy="no", **config
    )
    return SFTTrainer(
        model=MODEL, args=args, train_dataset=dataset, formatting_func=formatter
    )


def first_example(trainer):
    """The text the model is trained on, and the part the loss covers: the
    labels the trainer's collator builds for the first row."""
    row = trainer.train_dataset[0]
    keys = ("input_ids", "completion_mask", "labels")  # labels: TRL >= 1.7
    batch = trainer.data_collator([{k: row[k] for k in keys if k in row}])
    ids, labels = batch["input_ids"][0].tolist(), batch["labels"][0].tolist()
    trained = [t for t, label in zip(ids, labels) if label != -100]
    tokenizer = trainer.processing_class
    return tokenizer.decode(row["input_ids"]), tokenizer.decode(trained)


def check(seed: int = 0) -> str:
    # 1. the formatter with the default SFTConfig: completion_only_loss=None
    #    becomes True for prompt/completion data, and the trainer refuses
    try:
        build(seed, raw_dataset, formatting_func)
        error = ""
    except ValueError as e:
        error = str(e)
    assert "A formatting function was provided while `completion_only_loss=True`" in (
        error
    ), f"claim: the default config raises at SFTTrainer(...), got {error!r}"

    # 2. the error's other way out: completion_only_loss=False. It builds, but
    #    the prompt/completion columns win over the formatter's "text"
    skipped = build(seed, raw_dataset, formatting_func, completion_only_loss=False)
    text, trained = first_example(skipped)
    assert "### Question" not in text and text.startswith("What is two plus two?"), (
        f"claim: with completion_only_loss=False the formatter is skipped, got {text!r}"
    )
    assert trained == text, (
        f"claim: ... and the loss covers the prompt too, trained on {trained!r}"
    )
    eos = skipped.processing_class.eos_token
    assert eos not in text, (
        f"claim: ... and no EOS is appended to the completion, got {text!r}"
    )

    # 3. the fix: the template applied with .map, no formatting_func
    fixed = build(seed, train_dataset)
    text, trained = first_example(fixed)
    assert text.startswith("### Question: What is two plus two?\n### Answer: Four."), (
        f"claim: the mapped dataset is trained with the template, got {text!r}"
    )
    assert trained.startswith(" Four.") and "Question" not in trained, (
        f"claim: ... and the loss covers the completion only, got {trained!r}"
    )
    return (
        "default -> ValueError; completion_only_loss=False -> trains on "
        f"{first_example(skipped)[0]!r} (formatter skipped); "
        f"fix -> loss on {trained!r}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
