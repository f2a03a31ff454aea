"""KTO's dataset: prompt, completion and a *boolean* label; pairs are unpaired for you.

Page: docs/integrations/kto-label-column.md
中文: docs/integrations/kto-label-column.zh.md
"""

# --8<-- [start:symptom]
# A KTO dataset as it often arrives from JSON or a spreadsheet: labels as strings.
ROWS = [
    {"prompt": "What is 2 + 2?", "completion": " 4.", "label": "true"},
    {"prompt": "What is 2 + 2?", "completion": " 5.", "label": "false"},
    {"prompt": "Capital of France?", "completion": " Paris.", "label": "true"},
    {"prompt": "Capital of France?", "completion": " Rome.", "label": "false"},
]
# --8<-- [end:symptom]


# --8<-- [start:fix]
def bool_label(example):
    """KTOTrainer counts and masks with `label`: it must be True/False, not a string."""
    value = str(example["label"]).strip().lower()
    if value not in ("true", "false", "1", "0"):
        raise ValueError(f"label must be true or false, got {example['label']!r}")
    return {"label": value in ("true", "1")}


# --8<-- [end:fix]


# --8<-- [start:evidence]
import os

import torch
import trl
from datasets import Dataset
from packaging.version import Version
from transformers import AutoTokenizer, set_seed
from trl import DPOConfig, DPOTrainer, KTOConfig, KTOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
REWRITTEN = Version(trl.__version__) >= Version("1.3")  # KTO's data pipeline rewrite


def common(seed):
    return dict(
        per_device_train_batch_size=2,
        max_steps=2,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )


def kto(dataset, seed):
    """Build KTOTrainer; return it, or the error it raised while preparing the data."""
    set_seed(seed)
    tokenizer = AutoTokenizer.from_pretrained(MODEL)  # TRL <= 1.2 requires it
    try:
        return KTOTrainer(
            model=MODEL,
            args=KTOConfig(**common(seed)),
            train_dataset=dataset,
            processing_class=tokenizer,
        )
    except (TypeError, ValueError, KeyError) as error:
        return error


def check(seed: int = 0) -> str:
    strings = kto(Dataset.from_list(ROWS), seed)
    assert isinstance(strings, TypeError), f"claim: string labels fail: {strings!r}"
    assert "unsupported operand type(s) for +: 'int' and 'str'" in str(strings), (
        f"claim: ... when KTO sums the labels: {strings}"
    )
    no_label = [{k: v for k, v in row.items() if k != "label"} for row in ROWS]
    missing = kto(Dataset.from_list(no_label), seed)
    if REWRITTEN:
        assert "Column 'label' doesn't exist" in str(missing), f"claim: {missing!r}"
    else:
        assert repr(missing) == "KeyError('label')", f"claim: {missing!r}"
    user, bot = ({"role": r, "content": "Hi."} for r in ("user", "assistant"))
    messages = [{"messages": [user, bot], "label": True}] * 4  # SFT-style rows
    sft_style = kto(Dataset.from_list(messages), seed)
    assert isinstance(sft_style, KeyError), f"claim: 'messages' fails: {sft_style!r}"
    if REWRITTEN:
        assert sft_style.args == ("chosen",), f"claim: KeyError 'chosen': {sft_style!r}"

    fixed = kto(Dataset.from_list(ROWS).map(bool_label), seed)
    assert isinstance(fixed, KTOTrainer), f"claim: boolean labels build: {fixed!r}"
    assert fixed.train_dataset.features["label"].dtype == "bool", "claim: bool column"
    fixed.train()
    assert fixed.state.global_step == 2, "claim: the fixed dataset trains"

    # Coming from DPO's removed loss_type="kto_pair": give the pairs to KTOTrainer.
    pairs = Dataset.from_list(
        [
            {"prompt": "What is 2 + 2?", "chosen": " 4.", "rejected": " 5."},
            {"prompt": "Capital of France?", "chosen": " Paris.", "rejected": " Rome."},
        ]
    )
    set_seed(seed)
    dpo_args = DPOConfig(loss_type="kto_pair", **common(seed))  # accepted here...
    dpo = DPOTrainer(model=MODEL, args=dpo_args, train_dataset=pairs)
    try:
        dpo.train()
        kto_pair = None
    except ValueError as error:
        kto_pair = error
    assert "kto_pair" in str(kto_pair), f"claim: DPO rejects kto_pair: {kto_pair!r}"
    unpaired = kto(pairs, seed)
    labels = list(unpaired.train_dataset["label"])
    assert sorted(labels) == [False, False, True, True], (
        f"claim: KTOTrainer unpairs 2 pairs into 2 desirable + 2 undesirable: {labels}"
    )
    unpaired.train()
    assert unpaired.state.global_step == 2, "claim: the unpaired pairs train"
    return (
        f"string labels -> {strings}; no label -> {missing}; messages -> "
        f"KeyError {sft_style}; bool labels train; kto_pair -> {str(kto_pair)[:40]}; "
        f"pairs unpaired into labels {labels}"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
