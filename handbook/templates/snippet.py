"""TODO: one line on what this page shows.

Page: docs/{chapter}/{slug}.md
中文: docs/{chapter}/{slug}.zh.md
"""

# --8<-- [start:fix]
# TODO: the code a user types (a config call, a reward function, a template line),
# with values right for a real model and its imports; mark the changed line with
# hl_lines on the page's fence. Every line fits 88 characters: `ruff format`.
import torch
from trl import SFTConfig

sft_config = SFTConfig(
    learning_rate=2e-5,  # TODO: the changed field
    logging_steps=1,
    save_strategy="no",
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os

from transformers import set_seed

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")


def train(seed, config):
    """TODO: run the trainer for a few steps (short sequences: it also runs on a real
    model on one CPU core) and return what the claim is about (e.g. from
    trainer.state.log_history)."""
    set_seed(seed)
    args = dataclasses.replace(config, max_steps=2, seed=seed)
    raise NotImplementedError(args)


def check(seed: int = 0) -> str:
    # TODO: the symptom's setting
    symptom = train(seed, dataclasses.replace(sft_config, learning_rate=1e-3))
    fixed = train(seed, sft_config)
    assert symptom != fixed, "claim: TODO, in words a reader recognises"
    return "TODO: a one-line verdict with the measured numbers"


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
