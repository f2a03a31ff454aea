"""DPO logs logits/chosen = nan while loss and logps are finite: on TRL 0.12 to 0.28
the metric averages over the completion tokens truncation left, and a micro-batch
with none gives the mean of an empty tensor.

Page: docs/preference/dpo-logits-nan-empty-completion.md
中文: docs/preference/dpo-logits-nan-empty-completion.zh.md
"""


# --8<-- [start:fix]
def drop_fully_truncated(dataset, tokenizer, max_length):
    """Drop the rows whose prompt alone fills max_length: truncation keeps
    none of their completion (TRL >= 1.9 drops them itself)."""

    def prompt_fits(example):
        prompt = example["prompt"]
        if isinstance(prompt, list):  # conversational: [{"role": ..., ...}]
            prompt = tokenizer.apply_chat_template(
                prompt, add_generation_prompt=True, tokenize=False
            )
        return len(tokenizer(prompt)["input_ids"]) < max_length

    return dataset.filter(prompt_fits)


# --8<-- [end:fix]


# --8<-- [start:evidence]
import math
import os

import torch
from datasets import Dataset
from transformers import AutoModelForCausalLM, AutoTokenizer, set_seed
from trl import DPOConfig, DPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

ROWS = [
    {"prompt": "Name a colour.", "chosen": " Blue.", "rejected": " Seven."},
    {"prompt": "Two plus two?", "chosen": " Four.", "rejected": " Nine."},
    {
        "prompt": "Summarise: " + "the cat sat on the mat and " * 8,
        "chosen": " A cat sat.",
        "rejected": " Dogs bark.",
    },
]
# small so that the long prompt fills it (1024 on real data)
MAX_LENGTH = 24


def trainer_for(max_length, seed):
    set_seed(seed)
    args = DPOConfig(
        max_length=max_length,
        learning_rate=5e-7,
        per_device_train_batch_size=1,
        max_steps=4,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    return DPOTrainer(model=MODEL, args=args, train_dataset=Dataset.from_list(ROWS))


def old_logits_metric(model, batch):
    """logits/chosen and logps/chosen the way TRL 0.12 to 0.28 computed them,
    on the batch TRL's collator builds: a plain mean over the chosen
    completion tokens, and a sum of their log-probabilities."""
    with torch.no_grad():
        logits = model(
            input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]
        ).logits[:, :-1]
    labels = batch["input_ids"][:, 1:]
    mask = batch["completion_mask"][:, 1:].bool()
    logps = torch.gather(logits.log_softmax(-1), 2, labels.unsqueeze(2)).squeeze(2)
    half = batch["input_ids"].shape[0] // 2  # chosen rows come first
    mean_logits = logits[:half][mask[:half]].mean().item()
    chosen_logps = (logps[:half] * mask[:half]).sum(-1).mean().item()
    return mean_logits, chosen_logps, int(mask[:half].sum())


def check(seed: int = 0) -> str:
    tokenized = list(trainer_for(None, seed).train_dataset)  # nothing truncated
    long_row, short_row = tokenized[2], tokenized[0]
    assert len(long_row["prompt_ids"]) >= MAX_LENGTH > len(short_row["prompt_ids"]), (
        "claim: only the long prompt fills max_length"
    )
    trainer = trainer_for(MAX_LENGTH, seed)
    collate = trainer.data_collator  # truncates to max_length, as in training
    model = AutoModelForCausalLM.from_pretrained(MODEL)

    # the symptom, computed as TRL <= 0.28 logged it
    lone = old_logits_metric(model, collate([long_row]))
    assert lone[2] == 0, "claim: truncation keeps no completion token"
    assert math.isnan(lone[0]), f"claim: mean over zero tokens is nan: {lone}"
    assert lone[1] == 0.0, f"claim: the logps of that row are 0, not nan: {lone}"
    mixed = old_logits_metric(model, collate([long_row, short_row]))
    assert math.isfinite(mixed[0]) and mixed[2] > 0, (
        f"claim: one row with completion tokens keeps the metric finite: {mixed}"
    )

    # TRL >= 1.9: the row is dropped before training; every metric is finite
    kept = [row["prompt"] for row in trainer.train_dataset]
    assert kept == [row["prompt"] for row in ROWS[:2]], f"claim: dropped: {kept}"
    trainer.train()
    logs = [row for row in trainer.state.log_history if "logits/chosen" in row]
    assert len(logs) == 4, f"claim: four logged steps: {len(logs)}"
    for key in ("loss", "logits/chosen", "logits/rejected", "logps/chosen"):
        values = [row[key] for row in logs]
        assert all(math.isfinite(v) for v in values), f"claim: {key}: {values}"
    assert all(row["logps/chosen"] < 0 for row in logs), "claim: real completions"

    # the Fix drops the same row on any TRL version
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    fixed = drop_fully_truncated(Dataset.from_list(ROWS), tokenizer, MAX_LENGTH)
    assert fixed["prompt"] == kept, f"claim: the Fix keeps {fixed['prompt']}"
    return (
        f"long prompt alone: logits/chosen {lone[0]} with logps {lone[1]}; "
        f"with a short row: {mixed[0]:.3f}; TRL dropped it and logged "
        f"logits/chosen {logs[-1]['logits/chosen']:.3f}; the Fix keeps {len(fixed)}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
