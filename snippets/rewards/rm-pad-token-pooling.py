"""Reward-model accuracy stuck near chance from pad-token pooling: what TRL
and transformers 5 do about it.

Page: docs/rewards/rm-pad-token-pooling.md
中文: docs/rewards/rm-pad-token-pooling.zh.md
"""

# --8<-- [start:symptom]
import copy
import os
import random

import torch
from datasets import Dataset

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
GOOD = ["Yes.", "Sure thing, yes.", "Paris.", "It is four.", "blue.", "nine."]
BAD = ["No.", "Maybe not.", "dog.", "A fox.", "sea.", "The poem."]


def pairs(n, seed):
    rng = random.Random(seed)
    rows = [
        {
            "prompt": [{"role": "user", "content": "Answer me."}],
            "chosen": [{"role": "assistant", "content": rng.choice(GOOD)}],
            "rejected": [{"role": "assistant", "content": rng.choice(BAD)}],
        }
        for _ in range(n)
    ]
    return Dataset.from_list(rows)


def score_pairs(model, tokenizer, data):
    """Score held-out pairs yourself (an eval script, best-of-n, a custom
    reward function): the accuracy."""

    def rewards(column):
        texts = [
            tokenizer.apply_chat_template(row["prompt"] + row[column], tokenize=False)
            for row in data
        ]
        return model(
            **tokenizer(texts, padding=True, return_tensors="pt")
        ).logits.squeeze(-1)

    with torch.no_grad():
        return (rewards("chosen") > rewards("rejected")).float().mean().item()


def score_pairs_old_pooling(model, tokenizer, data):
    """What older transformers did, with the classic pad = eos: pool at the
    token *before the first pad id*."""
    tokenizer = copy.deepcopy(tokenizer)
    tokenizer.pad_token = tokenizer.eos_token

    def rewards(column):
        texts = [
            tokenizer.apply_chat_template(row["prompt"] + row[column], tokenize=False)
            for row in data
        ]
        batch = tokenizer(texts, padding=True, return_tensors="pt")
        hidden = model.base_model(**batch).last_hidden_state
        before_first_pad = (batch["input_ids"] == tokenizer.pad_token_id).int().argmax(
            -1
        ) - 1
        return model.score(hidden)[torch.arange(len(texts)), before_first_pad].squeeze(
            -1
        )

    with torch.no_grad():
        chosen, rejected = rewards("chosen"), rewards("rejected")
    return (chosen > rejected).float().mean().item(), (
        chosen == rejected
    ).float().mean().item()


# --8<-- [end:symptom]


# --8<-- [start:fix]
def set_pad_id(model, tokenizer):
    """Before you call a reward model yourself: tell it the id
    the tokenizer really pads with."""
    model.config.pad_token_id = tokenizer.pad_token_id


# --8<-- [end:fix]


# --8<-- [start:evidence]
from transformers import AutoModelForSequenceClassification, AutoTokenizer, set_seed
from trl import RewardConfig, RewardTrainer


def check(seed: int = 0) -> str:
    set_seed(seed)
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    # Loaded with pad_token_id=None, as many checkpoints ship.
    model = AutoModelForSequenceClassification.from_pretrained(
        MODEL, num_labels=1, pad_token_id=None
    )
    before = model.config.pad_token_id
    args = RewardConfig(
        max_steps=12,
        # sized so that 12 steps move the tiny test model; TRL's default is 1e-4
        learning_rate=1e-3,
        per_device_train_batch_size=8,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    RewardTrainer(
        model=model,
        args=args,
        processing_class=tokenizer,
        train_dataset=pairs(96, seed),
    ).train()
    model.eval()
    after = model.config.pad_token_id
    assert before is None and after == tokenizer.pad_token_id, (
        f"claim: RewardTrainer sets the pad id ({after})"
    )

    heldout = pairs(64, seed + 100)
    # e.g. a checkpoint whose config lost pad_token_id, scored in your own script
    model.config.pad_token_id = None
    try:
        score_pairs(model, tokenizer, heldout)
        error = ""
    except ValueError as e:
        error = str(e)
    assert "no padding token is defined" in error, (
        f"claim: transformers 5 raises without a pad id, got {error!r}"
    )
    old_accuracy, ties = score_pairs_old_pooling(model, tokenizer, heldout)
    assert ties == 1.0, (
        "claim: first-pad pooling with pad = eos scores the prompt "
        f"only, so every pair ties ({ties})"
    )

    set_pad_id(model, tokenizer)
    accuracy = score_pairs(model, tokenizer, heldout)
    pad_is_eos = copy.deepcopy(tokenizer)
    pad_is_eos.pad_token = pad_is_eos.eos_token
    set_pad_id(model, pad_is_eos)
    accuracy_pad_is_eos = score_pairs(model, pad_is_eos, heldout)
    assert accuracy >= 0.9, (
        "claim: with the right pad id the RM ranks held-out "
        f"pairs, accuracy {accuracy:.2f}"
    )
    assert accuracy_pad_is_eos >= 0.9, (
        "claim: transformers 5 pools the last non-pad token, so pad = eos is "
        f"safe ({accuracy_pad_is_eos:.2f})"
    )
    return (
        f"RewardTrainer set pad_token_id {before} -> {after}; pad None -> ValueError; "
        f"first-pad pooling with pad=eos: accuracy {old_accuracy:.2f}, all ties; "
        f"current pooling: {accuracy:.2f} (pad=eos: {accuracy_pad_is_eos:.2f})"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
