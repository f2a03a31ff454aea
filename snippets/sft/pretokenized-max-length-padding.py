"""A dataset tokenized with padding="max_length" reaches SFTTrainer padded: every
step runs (and trains on) max_length tokens per row; tokenizing without padding
lets the collator pad each batch to its longest row.

Page: docs/sft/pretokenized-max-length-padding.md
中文: docs/sft/pretokenized-max-length-padding.zh.md
"""


# --8<-- [start:symptom]
def tokenize_padded(batch, tokenizer, max_length=512):
    """What many scripts do before SFTTrainer: every row padded to max_length."""
    return tokenizer(
        batch["text"], padding="max_length", truncation=True, max_length=max_length
    )


# --8<-- [end:symptom]


# --8<-- [start:fix]
import torch
from trl import SFTConfig


def tokenize(batch, tokenizer, max_length=512):
    # SFTTrainer appends EOS only to text it tokenizes itself
    texts = [text + tokenizer.eos_token for text in batch["text"]]
    # no padding here: SFTTrainer's collator pads each batch to its longest row
    return tokenizer(texts, truncation=True, max_length=max_length)


sft_config = SFTConfig(
    output_dir="sft-out",
    max_length=512,
    per_device_train_batch_size=8,
    learning_rate=2e-5,
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os
import statistics
import tempfile
import time

from datasets import Dataset
from transformers import AutoTokenizer, TrainerCallback, set_seed
from trl import SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
# 1 on a real model; the handbook's 2-layer test model
# needs ~300x the rate to move in a few steps
LR_SCALE = float(os.environ.get("HANDBOOK_LR_SCALE", "1"))

TEXTS = [
    f"Question: what is {a} plus {b}? Answer: {a} plus {b} is {a + b}."
    for a in range(1, 5)
    for b in range(1, 5)
]
# 512 and 8 in the Fix: a CPU runs a smaller batch of shorter rows
LENGTH, BATCH, STEPS = 256, 2, 10


class StepTimer(TrainerCallback):
    """Seconds of each optimizer step (forward, backward and update)."""

    def __init__(self):
        self.seconds = []

    def on_step_begin(self, args, state, control, **kwargs):
        self.start = time.perf_counter()

    def on_step_end(self, args, state, control, **kwargs):
        self.seconds.append(time.perf_counter() - self.start)


def train(seed, tokenize_fn):
    set_seed(seed)
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    dataset = Dataset.from_dict({"text": TEXTS}).map(
        tokenize_fn,
        batched=True,
        fn_kwargs={"tokenizer": tokenizer, "max_length": LENGTH},
    )
    args = dataclasses.replace(
        sft_config,
        output_dir=tempfile.mkdtemp(),
        max_length=LENGTH,
        per_device_train_batch_size=BATCH,
        learning_rate=sft_config.learning_rate * LR_SCALE,
        max_steps=STEPS,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
    )
    timer = StepTimer()
    trainer = SFTTrainer(
        model=MODEL,
        args=args,
        train_dataset=dataset,
        processing_class=tokenizer,
        callbacks=[timer],
    )
    batch = next(iter(trainer.get_train_dataloader()))
    trainer.train()
    logs = [h for h in trainer.state.log_history if "num_tokens" in h]
    labels = batch["labels"]
    return {
        "masked_in_dataset": sum(row.count(0) for row in dataset["attention_mask"]),
        "width": batch["input_ids"].shape[1],
        "masked_in_batch": int((batch["attention_mask"] == 0).sum()),
        "pad_share": (labels == tokenizer.pad_token_id).float().mean().item(),
        "trained": int((labels != -100).sum()),
        "tokens": logs[-1]["num_tokens"],
        # the first step also warms up: the median of the others
        "seconds": statistics.median(timer.seconds[1:]),
        "params": sum(p.numel() for p in trainer.model.parameters()),
    }


def check(seed: int = 0) -> str:
    padded, fixed = train(seed, tokenize_padded), train(seed, tokenize)
    assert padded["width"] == LENGTH and fixed["width"] < LENGTH / 4, (
        "claim: padded rows reach the model max_length wide, the Fix's as wide as "
        f"the longest row: {padded['width']} vs {fixed['width']}"
    )
    assert padded["masked_in_dataset"] > 0 and padded["masked_in_batch"] == 0, (
        "claim: SFTTrainer drops the dataset's attention_mask: the padding is "
        f"attended ({padded['masked_in_dataset']} zeros in the dataset, "
        f"{padded['masked_in_batch']} in the batch)"
    )
    assert padded["pad_share"] > 0.5 and padded["trained"] == 2 * LENGTH, (
        "claim: every pad token is a label, most of the loss is padding: "
        f"{padded['pad_share']:.0%} of the labels, {padded['trained']} trained"
    )
    assert padded["trained"] > 4 * fixed["trained"], (
        f"claim: {padded['trained']} vs {fixed['trained']} labels in a batch"
    )
    token_ratio = padded["tokens"] / fixed["tokens"]
    assert token_ratio > 4, f"claim: num_tokens {token_ratio:.1f}x larger padded"
    ratio = padded["seconds"] / fixed["seconds"]
    # the 2-layer, 32-wide test model spends a step in fixed per-call overhead
    # (0.01-0.1 s, noise on a busy machine): the time claim is checked on real
    # models only
    if fixed["params"] > 50_000_000:
        assert ratio > 1.5, (
            f"claim: a padded step is slower: median {padded['seconds']:.3f} s vs "
            f"{fixed['seconds']:.3f} s ({ratio:.2f}x)"
        )
    return (
        f"batch width {padded['width']} vs {fixed['width']}, pad share of labels "
        f"{padded['pad_share']:.0%}, num_tokens {token_ratio:.1f}x, median step "
        f"{ratio:.2f}x slower padded ({padded['seconds']:.3f} vs "
        f"{fixed['seconds']:.3f} s)"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
