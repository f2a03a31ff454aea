"""SFT packing in TRL 1.x: 'bfd-requeue' became
packing_strategy='bfd_split'; packing itself stays a bool.

Page: docs/scale/v1-packing-strategy-names.md
中文: docs/scale/v1-packing-strategy-names.zh.md
"""

# --8<-- [start:symptom]
import warnings

import torch
from trl import SFTConfig

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    old_name = SFTConfig(
        packing=True, packing_strategy="bfd-requeue", bf16=torch.cuda.is_available()
    )
print(
    old_name.packing_strategy,
    [str(w.message) for w in caught if "bfd" in str(w.message)],
)

# The v1 migration guide's own line puts the strategy in `packing`, a
# bool field: any string is "True".
wrong_field = SFTConfig(packing="bfd_split", bf16=torch.cuda.is_available())
# 'bfd_split' bfd  <- strategy is still bfd
print(repr(wrong_field.packing), wrong_field.packing_strategy)
# --8<-- [end:symptom]


# --8<-- [start:fix]
# packing is on/off; packing_strategy picks how: "bfd" (default, cuts what does not
# fit in max_length), "bfd_split" (the old "bfd-requeue": splits long samples,
# keeps every token), or "wrapped".
sft_config = SFTConfig(
    packing=True,
    # not packing="bfd_split": that is just packing=True, i.e. "bfd"
    packing_strategy="bfd_split",
    max_length=2048,
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os

from datasets import Dataset
from transformers import AutoModelForCausalLM
from trl import SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

TEXTS = [
    "The cat sat on the mat.",
    "Short one.",
    "Another short line here.",
    # longer than max_length=32
    "A long document " + "that keeps going and going " * 6 + "until the end.",
]


def prepared(model, config):
    """The trainer SFTTrainer builds for this config (dataset
    tokenized and packed, nothing trained)."""
    args = dataclasses.replace(
        config,
        per_device_train_batch_size=2,
        max_steps=1,
        save_strategy="no",
        report_to="none",
    )
    return SFTTrainer(
        model=model,
        args=args,
        train_dataset=Dataset.from_list([{"text": t} for t in TEXTS]),
    )


def total_tokens(trainer):
    return sum(len(row["input_ids"]) for row in trainer.train_dataset)


def check(seed: int = 0) -> str:
    assert old_name.packing_strategy == "bfd_split", (
        "claim: 'bfd-requeue' is mapped to 'bfd_split'"
    )
    assert any(
        issubclass(w.category, FutureWarning) and "bfd_split" in str(w.message)
        for w in caught
    ), "claim: 'bfd-requeue' raises a FutureWarning naming 'bfd_split'"
    assert wrong_field.packing_strategy == "bfd", (
        "claim: packing='bfd_split' leaves packing_strategy at 'bfd'"
    )

    model = AutoModelForCausalLM.from_pretrained(MODEL)
    unpacked = total_tokens(
        prepared(model, SFTConfig(max_length=None, bf16=torch.cuda.is_available()))
    )
    # 32 tokens: the long text below does not fit
    split_config = dataclasses.replace(sft_config, max_length=32)
    runs = {
        "packing=True": prepared(
            model,
            SFTConfig(packing=True, max_length=32, bf16=torch.cuda.is_available()),
        ),
        "bfd_split": prepared(model, split_config),
        "wrapped": prepared(
            model, dataclasses.replace(split_config, packing_strategy="wrapped")
        ),
        "packing='bfd_split'": prepared(
            model, dataclasses.replace(wrong_field, max_length=32)
        ),
    }
    tokens = {name: total_tokens(trainer) for name, trainer in runs.items()}
    assert tokens["packing=True"] < unpacked, (
        f"claim: default 'bfd' drops the overflow ({tokens} vs {unpacked})"
    )
    assert tokens["bfd_split"] == unpacked, (
        f"claim: 'bfd_split' keeps every token ({tokens} vs {unpacked})"
    )
    assert tokens["wrapped"] == unpacked, (
        f"claim: 'wrapped' keeps every token ({tokens} vs {unpacked})"
    )
    assert tokens["packing='bfd_split'"] == tokens["packing=True"], (
        "claim: packing='bfd_split' packs like 'bfd'"
    )

    flags = {name: trainer.padding_free for name, trainer in runs.items()}
    assert flags["packing=True"] and flags["bfd_split"], (
        f"claim: both BFD strategies turn padding_free on {flags}"
    )
    assert not flags["wrapped"], (
        "claim: 'wrapped' stays padded, with no per-sample positions"
    )
    split = runs["bfd_split"]
    # the row holding most samples
    row = max(split.train_dataset, key=lambda r: len(r["seq_lengths"]))
    positions = split.data_collator([row])["position_ids"][0]
    assert int((positions == 0).sum()) == len(row["seq_lengths"]), (
        "claim: positions restart at every packed sample"
    )

    try:
        prepared(model, dataclasses.replace(split_config, packing_strategy="bfd-split"))
        typo = None
    except ValueError as error:
        typo = error
    assert typo is not None, (
        "claim: an unknown strategy name fails when the trainer packs the dataset"
    )
    return (
        f"tokens kept of {unpacked}: {tokens}; padding_free "
        f"{flags}; 'bfd-split' -> ValueError"
    )


SEEDS = (0,)  # packing is deterministic: the seed changes nothing, one run is enough

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
