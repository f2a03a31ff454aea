"""RewardTrainer KeyError 'chosen': pre-tokenized columns named the pre-0.24 way.

Page: docs/integrations/reward-pretokenized-columns.md
中文: docs/integrations/reward-pretokenized-columns.zh.md
"""


# --8<-- [start:symptom]
# The pre-tokenization that older RewardTrainer examples used (TRL <= 0.23 read
# these four columns), with the text columns removed afterwards.
def old_preprocess(examples, tokenizer):
    chosen = tokenizer(examples["chosen"], truncation=True, max_length=512)
    rejected = tokenizer(examples["rejected"], truncation=True, max_length=512)
    return {
        "input_ids_chosen": chosen["input_ids"],
        "attention_mask_chosen": chosen["attention_mask"],
        "input_ids_rejected": rejected["input_ids"],
        "attention_mask_rejected": rejected["attention_mask"],
    }


# --8<-- [end:symptom]


# --8<-- [start:fix]
# Either pass the text columns ("chosen", "rejected", optional "prompt") and let
# RewardTrainer tokenize them, or name your token ids the way TRL >= 0.29 reads them.
def reward_ids(example, tokenizer, max_length=512):
    def ids(text):  # TRL appends EOS to plain-text pairs itself; do the same
        return tokenizer(text + tokenizer.eos_token)["input_ids"][:max_length]

    return {
        "chosen_ids": ids(example["chosen"]),
        "rejected_ids": ids(example["rejected"]),
    }


# --8<-- [end:fix]


# --8<-- [start:evidence]
import os
import warnings

import torch
from datasets import Dataset
from transformers import AutoTokenizer, set_seed
from trl import RewardConfig, RewardTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

PAIRS = Dataset.from_list(
    [
        {"chosen": "Q: 2 + 2? A: 4.", "rejected": "Q: 2 + 2? A: 5."},
        {"chosen": "Q: Capital of France? A: Paris.", "rejected": "Q: Capital? A: No."},
        {"chosen": "Q: Say hi. A: Hi!", "rejected": "Q: Say hi. A: Go away."},
        {"chosen": "Q: 3 x 3? A: 9.", "rejected": "Q: 3 x 3? A: 6."},
    ]
)


def build(dataset, seed):
    set_seed(seed)
    args = RewardConfig(
        per_device_train_batch_size=2,
        max_steps=2,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    return RewardTrainer(model=MODEL, args=args, train_dataset=dataset)


def check(seed: int = 0) -> str:
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    kwargs = dict(batched=True, fn_kwargs={"tokenizer": tokenizer})
    old = PAIRS.map(old_preprocess, remove_columns=["chosen", "rejected"], **kwargs)
    try:
        build(old, seed)
        error = None
    except KeyError as e:
        error = e
    assert isinstance(error, KeyError) and error.args == ("chosen",), (
        f"claim: the pre-0.24 columns alone raise KeyError: 'chosen': {error!r}"
    )

    ours = PAIRS.map(reward_ids, fn_kwargs={"tokenizer": tokenizer})
    fixed = build(ours, seed)
    assert fixed.train_dataset["chosen_ids"] == ours["chosen_ids"], (
        "claim: chosen_ids/rejected_ids are used as they are, not re-tokenized"
    )
    fixed.train()
    assert fixed.state.global_step == 2, "claim: the renamed pre-tokenized pairs train"

    # Keeping the text next to the old columns (the workaround in the thread) also
    # trains, but TRL tokenizes the text again and drops the old columns unused.
    kept = PAIRS.map(old_preprocess, **kwargs)
    retokenized = build(kept, seed)
    assert retokenized.train_dataset["chosen_ids"] == ours["chosen_ids"], (
        "claim: with the text present, RewardTrainer tokenizes it itself (+ EOS)"
    )
    batched = retokenized.get_train_dataloader().dataset.column_names
    assert "input_ids_chosen" not in batched, f"claim: old columns unread: {batched}"

    legacy = ours.rename_column("chosen_ids", "chosen_input_ids")
    legacy = legacy.rename_column("rejected_ids", "rejected_input_ids")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        renamed = build(legacy, seed)
    assert renamed.train_dataset["chosen_ids"] == ours["chosen_ids"], (
        "claim: the 0.24-0.28 names are still renamed to chosen_ids/rejected_ids"
    )
    warned = [w for w in caught if "chosen_input_ids" in str(w.message)]
    assert warned, "claim: ... with a FutureWarning"
    losses = [row["loss"] for row in fixed.state.log_history if "loss" in row]
    return (
        "input_ids_chosen columns -> KeyError 'chosen'; chosen_ids/rejected_ids "
        f"train (loss {[round(x, 3) for x in losses]}); "
        "chosen_input_ids -> FutureWarning"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
