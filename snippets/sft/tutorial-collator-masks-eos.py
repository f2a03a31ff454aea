"""transformers' DataCollatorForLanguageModeling(mlm=False) with pad = EOS labels
every EOS -100: the model never learns to stop. SFTTrainer's own collator keeps them.

Page: docs/sft/tutorial-collator-masks-eos.md
中文: docs/sft/tutorial-collator-masks-eos.zh.md
"""

# --8<-- [start:symptom]
from transformers import DataCollatorForLanguageModeling


def tutorial_collator(tokenizer):
    """The collator of many fine-tuning tutorials and notebooks."""
    tokenizer.pad_token = tokenizer.eos_token
    # labels = input_ids, then -100 wherever input_ids == pad_token_id
    return DataCollatorForLanguageModeling(tokenizer, mlm=False)


# --8<-- [end:symptom]


# --8<-- [start:fix]
import torch
from trl import SFTConfig, SFTTrainer

sft_config = SFTConfig(
    output_dir="sft-out",
    learning_rate=2e-5,
    per_device_train_batch_size=8,
    bf16=torch.cuda.is_available(),
)


def sft_trainer(model, tokenizer, text_dataset, args=sft_config):
    # no data_collator=...: SFTTrainer's own pads the labels by position
    return SFTTrainer(
        model=model,
        args=args,
        train_dataset=text_dataset,
        processing_class=tokenizer,
    )


def lm_collator(tokenizer, pad_token="<|endoftext|>"):
    """If you keep transformers' Trainer: a pad token that is not the EOS
    (SmolLM2, Qwen2.5: <|endoftext|>; Llama 3: <|finetune_right_pad_id|>)."""
    tokenizer.pad_token = pad_token
    assert tokenizer.pad_token_id != tokenizer.eos_token_id, "pad must not be EOS"
    return DataCollatorForLanguageModeling(tokenizer, mlm=False)


# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os
import tempfile

import trl
from datasets import Dataset
from packaging.version import Version
from transformers import (
    AutoModelForCausalLM,
    AutoTokenizer,
    Trainer,
    TrainingArguments,
    set_seed,
)

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
# 1 on a real model; the handbook's 2-layer test model
# needs ~300x the rate to move in a few steps
LR_SCALE = float(os.environ.get("HANDBOOK_LR_SCALE", "1"))

TEXTS = [
    f"Question: what is {a} plus {b}? Answer: {a + b}."
    for a, b in [(1, 2), (3, 4), (2, 7), (5, 5), (6, 1), (8, 3), (4, 9), (7, 7)]
]
STEPS, BATCH = 8, 4  # 8 in the Fix: a CPU runs smaller batches


def tokenized(tokenizer):
    """What the tutorials feed transformers' Trainer: text + EOS, tokenized."""
    texts = Dataset.from_dict({"text": TEXTS})
    return texts.map(
        lambda row: tokenizer(row["text"] + tokenizer.eos_token),
        remove_columns=["text"],
    )


def eos_counts(batch, eos):
    """EOS tokens in the real positions of a batch and how many are labels."""
    real = batch["attention_mask"] == 1
    return (
        int((batch["input_ids"][real] == eos).sum()),
        int((batch["labels"] == eos).sum()),
    )


@torch.no_grad()
def p_eos(model, tokenizer):
    """Mean probability of EOS right after each training answer."""
    model.eval()
    probs = []
    for text in TEXTS:
        ids = tokenizer(text, return_tensors="pt")["input_ids"].to(model.device)
        logits = model(input_ids=ids).logits[0, -1].float()
        probs.append(logits.softmax(-1)[tokenizer.eos_token_id].item())
    model.train()
    return sum(probs) / len(probs)


def train(seed, use_sft_trainer):
    set_seed(seed)
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    model = AutoModelForCausalLM.from_pretrained(MODEL)
    before = p_eos(model, tokenizer)
    common = dict(
        output_dir=tempfile.mkdtemp(),
        learning_rate=sft_config.learning_rate * LR_SCALE,
        # a constant rate: a few steps must move the model
        lr_scheduler_type="constant",
        per_device_train_batch_size=BATCH,
        max_steps=STEPS,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
    )
    if use_sft_trainer:
        # the same tokenizer, pad = EOS, without data_collator
        tokenizer.pad_token = tokenizer.eos_token
        args = dataclasses.replace(sft_config, **common)
        text_dataset = Dataset.from_dict({"text": TEXTS})
        trainer = sft_trainer(model, tokenizer, text_dataset, args)
    else:
        args = TrainingArguments(bf16=torch.cuda.is_available(), **common)
        trainer = Trainer(
            model=model,
            args=args,
            train_dataset=tokenized(tokenizer),
            data_collator=tutorial_collator(tokenizer),
        )
    batch = next(iter(trainer.get_train_dataloader()))
    eos_in, eos_labelled = eos_counts(batch, tokenizer.eos_token_id)
    trainer.train()
    return {
        "pad_is_eos": tokenizer.pad_token_id == tokenizer.eos_token_id,
        "eos_in": eos_in,
        "eos_labelled": eos_labelled,
        "before": before,
        "after": p_eos(trainer.model, tokenizer),
    }


def collators_only():
    """No training: transformers' collator with a distinct pad token, and passed
    to SFTTrainer, on two rows of equal length and two of different lengths."""
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    rows = list(tokenized(tokenizer))
    # row 0 and the first row of another length: the batch needs padding
    other = next(r for r in rows if len(r["input_ids"]) != len(rows[0]["input_ids"]))
    batch = lm_collator(tokenizer)([rows[0], other])
    distinct = eos_counts(batch, tokenizer.eos_token_id) + (
        int((batch["attention_mask"] == 0).sum()),
        int((batch["labels"][batch["attention_mask"] == 0] != -100).sum()),
    )

    collator = tutorial_collator(AutoTokenizer.from_pretrained(MODEL))
    trainer = SFTTrainer(
        model=MODEL,
        args=dataclasses.replace(sft_config, output_dir=tempfile.mkdtemp()),
        train_dataset=Dataset.from_dict({"text": TEXTS}),
        processing_class=collator.tokenizer,
        data_collator=collator,
    )
    # the columns the trainer's dataloader keeps (the text column is dropped)
    prepared = [
        {k: v for k, v in row.items() if k in ("input_ids", "labels")}
        for row in trainer.train_dataset
    ]
    n = len(prepared[0]["input_ids"])
    same = [r for r in prepared if len(r["input_ids"]) == n][:2]
    mixed = [prepared[0], next(r for r in prepared if len(r["input_ids"]) != n)]
    in_sft = []
    for pair in (same, mixed):
        try:
            in_sft.append(eos_counts(collator(pair), collator.tokenizer.eos_token_id))
        except ValueError as e:
            in_sft.append(str(e))
    return distinct, in_sft


def odds(p):
    """The odds of stopping, P / (1 - P): a model that already ends its answers
    (SmolLM2-Instruct) has little room left in P itself."""
    return p / (1 - p)


def check(seed: int = 0) -> str:
    symptom, fixed = train(seed, False), train(seed, True)
    assert symptom["pad_is_eos"] and fixed["pad_is_eos"], "both runs: pad = EOS"
    assert symptom["eos_in"] == BATCH and symptom["eos_labelled"] == 0, (
        "claim: transformers' collator labels none of the batch's EOS: "
        f"{symptom['eos_labelled']} of {symptom['eos_in']}"
    )
    assert fixed["eos_in"] == fixed["eos_labelled"] == BATCH, (
        "claim: SFTTrainer's collator labels every EOS: "
        f"{fixed['eos_labelled']} of {fixed['eos_in']}"
    )

    assert odds(fixed["after"]) > 2 * odds(fixed["before"]), (
        "claim: with the EOS labelled, the odds of EOS after an answer rise: "
        f"P {fixed['before']:.2g} -> {fixed['after']:.2g}"
    )
    assert symptom["after"] < symptom["before"], (
        "claim: without EOS labels, P(EOS) after an answer does not rise: "
        f"P {symptom['before']:.2g} -> {symptom['after']:.2g}"
    )
    assert odds(fixed["after"]) > 2 * odds(symptom["after"]), (
        "claim: without EOS labels they stay far below the fix's: "
        f"P {symptom['after']:.2g} vs {fixed['after']:.2g}"
    )
    distinct, in_sft = collators_only()
    assert distinct[:2] == (2, 2) and distinct[2] > 0 == distinct[3], (
        "claim: with a pad token that is not the EOS, both EOS are labels and "
        f"the padding is not (EOS, labelled, padding, padding labelled): {distinct}"
    )
    assert in_sft[0] == (2, 0), (
        "claim: in SFTTrainer, rows of equal length pass and lose their EOS "
        f"labels: {in_sft[0]}"
    )
    if Version(trl.__version__) >= Version("1.7"):
        # TRL 1.7+ prepares a labels column, which this collator cannot pad
        assert "Unable to create tensor" in str(in_sft[1]), (
            f"claim: on TRL 1.7+ rows of different lengths fail: {in_sft[1]}"
        )
    else:
        assert in_sft[1] == (2, 0), f"claim: it masks EOS there too: {in_sft[1]}"
    return (
        f"EOS labelled in the first batch: {symptom['eos_labelled']}/"
        f"{symptom['eos_in']} with transformers' collator, {fixed['eos_labelled']}/"
        f"{fixed['eos_in']} with SFTTrainer's (pad = EOS in both); P(EOS) after an "
        f"answer {symptom['before']:.2g} -> {symptom['after']:.2g} vs "
        f"{fixed['before']:.2g} -> {fixed['after']:.2g}; distinct pad: {distinct}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
