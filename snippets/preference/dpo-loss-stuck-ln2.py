"""DPO loss frozen at 0.6931 (= ln 2) with every margin 0: truncation leaves chosen and
rejected identical, so the gradient is zero up to round-off.

Page: docs/preference/dpo-loss-stuck-ln2.md
中文: docs/preference/dpo-loss-stuck-ln2.zh.md
"""


# --8<-- [start:fix]
def shortest_safe_max_length(tokenized):
    """The smallest max_length that keeps, in every row, the first token
    where chosen and rejected differ.

    `tokenized` is a DPOTrainer's `train_dataset` (columns
    prompt_ids, chosen_ids, rejected_ids).
    """

    def shared(a, b):
        n = 0
        while n < min(len(a), len(b)) and a[n] == b[n]:
            n += 1
        return n

    return max(
        len(row["prompt_ids"]) + shared(row["chosen_ids"], row["rejected_ids"]) + 1
        for row in tokenized
    )


# --8<-- [end:fix]


# --8<-- [start:evidence]
import math
import os

import torch
import trl
from datasets import Dataset
from packaging.version import Version
from transformers import set_seed
from trl import DPOConfig, DPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

# long prompts; the two answers agree on a long opening and differ only at the end
PROMPT = "Write a short poem about the sea. " * 2
PAIRS = Dataset.from_list(
    [
        {
            "prompt": PROMPT,
            "chosen": " The sea is wide, the waves are blue, the gulls fly high. Yes.",
            "rejected": " The sea is wide, the waves are blue, the gulls fly high. No.",
        },
        {
            "prompt": PROMPT + "Two plus two?",
            "chosen": " The sea is wide, the waves are blue, the answer is four.",
            "rejected": " The sea is wide, the waves are blue, the answer is nine.",
        },
    ]
)


def trainer_for(max_length, seed, data=PAIRS):
    set_seed(seed)
    args = DPOConfig(
        max_length=max_length,
        learning_rate=1e-3,  # sized so that a 5-step check can move the model
        per_device_train_batch_size=2,
        max_steps=5,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    return DPOTrainer(model=MODEL, args=args, train_dataset=data)


def kept_completions(row, max_length):
    """What keep_start truncation leaves of a tokenised row's
    chosen and rejected completions."""
    room = None if max_length is None else max_length - len(row["prompt_ids"])
    return row["chosen_ids"][:room], row["rejected_ids"][:room]


def run(max_length, seed):
    """Train 5 steps; return the logs and whether the truncated
    chosen/rejected completions are identical."""
    trainer = trainer_for(max_length, seed)
    identical = all(
        a == b
        for a, b in (kept_completions(row, max_length) for row in trainer.train_dataset)
    )
    trainer.train()
    logs = [row for row in trainer.state.log_history if "rewards/margins" in row]
    return logs, identical


def check(seed: int = 0) -> str:
    tokenized = trainer_for(None, seed).train_dataset
    # every prompt fits: no row is dropped
    stuck_length = max(len(row["prompt_ids"]) for row in tokenized) + 1
    safe_length = shortest_safe_max_length(tokenized)
    assert stuck_length < safe_length, (
        f"claim: the helper flags max_length={stuck_length} (needs {safe_length})"
    )

    stuck, stuck_identical = run(stuck_length, seed)
    fixed, fixed_identical = run(None, seed)
    assert stuck_identical, (
        "claim: after truncation chosen and rejected are the same tokens"
    )
    assert all(abs(row["loss"] - math.log(2)) < 1e-4 for row in stuck), (
        "claim: the loss sits at ln 2 every step"
    )
    assert all(row["rewards/margins"] == 0.0 for row in stuck), (
        "claim: rewards/margins is exactly 0 every step"
    )
    stuck_grad = max(row["grad_norm"] for row in stuck)
    fixed_grad = min(row["grad_norm"] for row in fixed)
    assert stuck_grad < 1e-3 * fixed_grad, (
        f"claim: no gradient, only round-off: {stuck_grad:.2g} vs {fixed_grad:.2g}"
    )
    assert not fixed_identical, "claim: without truncation the answers differ"
    assert fixed[-1]["loss"] < 0.69 and fixed[-1]["rewards/margins"] > 0, (
        "claim: the fixed run learns"
    )

    prompt_lengths = sorted(len(row["prompt_ids"]) for row in tokenized)
    with_short = Dataset.from_list(
        list(PAIRS) + [{"prompt": "Hi", "chosen": " Yes.", "rejected": " No."}]
    )
    kept_rows = len(trainer_for(prompt_lengths[0], seed, data=with_short).train_dataset)
    # TRL 1.9 added the filter; older TRL keeps every row
    drops = Version(trl.__version__) >= Version("1.9")
    assert kept_rows == (1 if drops else 3), (
        "claim: rows whose prompt fills max_length are dropped since "
        f"TRL 1.9, kept {kept_rows} of 3"
    )
    return (
        f"max_length={stuck_length}: loss {stuck[-1]['loss']:.4f}, "
        f"margins 0, grad_norm <= {stuck_grad:.1g}; max_length=None: "
        f"loss {fixed[-1]['loss']:.4f}, grad_norm >= "
        f"{fixed_grad:.2g}; helper says >= {safe_length}"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
