"""SimPO/CPO (trl.experimental.cpo) with a prompt that fills max_length: empty
completion, NaN loss and rewards, while the logged loss reads 0.0.

Page: docs/preference/simpo-cpo-nan-prompt-fills-max-length.md (中文:
docs/preference/simpo-cpo-nan-prompt-fills-max-length.zh.md)
"""


# --8<-- [start:fix]
def roomy_max_length(dataset, tokenizer, completion_room=64):
    """A CPOConfig max_length (prompt + completion) that leaves every row
    `completion_room` completion tokens."""
    longest = max(
        len(tokenizer(prompt, add_special_tokens=False).input_ids)
        for prompt in dataset["prompt"]
    )
    return longest + completion_room


# --8<-- [end:fix]


# --8<-- [start:evidence]
import math
import os

import torch
from datasets import Dataset
from transformers import AutoTokenizer, set_seed
from trl.experimental.cpo import CPOConfig, CPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

PAIRS = Dataset.from_list(
    [
        {
            "prompt": "Write a short poem about the sea.",
            "chosen": " The sea is wide.",
            "rejected": " No.",
        },
        {
            "prompt": "Answer yes or no. " * 4 + "Is the sky blue?",
            "chosen": " Yes.",
            "rejected": " Maybe. I do not know.",
        },
    ]
)


def train(max_length, seed, **config):
    """Three SimPO steps on the two pairs; return the log lines and
    whether every weight is still finite."""
    set_seed(seed)
    args = CPOConfig(
        loss_type="simpo",
        cpo_alpha=0.0,  # pure SimPO, no behaviour-cloning term
        max_length=max_length,
        # sized so that a 3-step check moves the model (TRL's default is 1e-6)
        learning_rate=1e-3,
        per_device_train_batch_size=2,
        max_steps=3,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        bf16=torch.cuda.is_available(),
        **config,
    )
    trainer = CPOTrainer(model=MODEL, args=args, train_dataset=PAIRS)
    trainer.train()
    logs = [row for row in trainer.state.log_history if "rewards/chosen" in row]
    return logs, all(torch.isfinite(p).all().item() for p in trainer.model.parameters())


def check(seed: int = 0) -> str:
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    prompt_lengths = [
        len(tokenizer(p, add_special_tokens=False).input_ids) for p in PAIRS["prompt"]
    ]
    # the long prompt alone fills max_length; the short one still has room
    filled = max(prompt_lengths)

    bad, bad_finite = train(filled, seed)
    assert all(math.isnan(row["rewards/chosen"]) for row in bad), (
        "claim: an empty completion makes rewards NaN"
    )
    assert [row["loss"] for row in bad] == [0.0, 0.0, 0.0], (
        f"claim: the logged loss reads 0.0: {bad}"
    )
    raw, _ = train(filled, seed, logging_nan_inf_filter=False)
    assert all(math.isnan(row["loss"]) for row in raw), (
        "claim: the real loss is NaN (hidden by the log filter)"
    )
    assert not bad_finite, "claim: NaN gradients corrupt the weights"

    good, good_finite = train(roomy_max_length(PAIRS, tokenizer), seed)
    values = [
        row[key]
        for row in good
        for key in ("loss", "rewards/chosen", "rewards/margins")
    ]
    assert all(math.isfinite(v) for v in values) and good_finite, (
        "claim: with room for completions all is finite"
    )
    assert good[-1]["rewards/margins"] > good[0]["rewards/margins"], (
        "claim: and the SimPO margin grows"
    )
    return (
        f"prompts {prompt_lengths} tokens; max_length={filled}: loss "
        f"{[row['loss'] for row in bad]}, rewards NaN, weights NaN; "
        f"max_length={roomy_max_length(PAIRS, tokenizer)}: loss {good[-1]['loss']:.3f}"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
