"""TODO: one line on what this page shows.

Page: docs/{chapter}/{slug}.md (中文: docs/{chapter}/{slug}.zh.md)
"""

# --8<-- [start:fix]
# TODO: only the change a user makes (a config field, a reward function, a template line), with its imports.
from trl import GRPOConfig

FIX = dict(beta=0.04)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import os

import torch
from transformers import set_seed

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")


def train(seed, **fields):
    """TODO: run the trainer (logging_steps=1, a few steps) and return what the claim is about."""
    set_seed(seed)
    args = GRPOConfig(max_steps=2, logging_steps=1, seed=seed, bf16=torch.cuda.is_available(), **fields)
    raise NotImplementedError(args)


def check(seed: int = 0) -> str:
    symptom = train(seed)
    fixed = train(seed, **FIX)
    assert symptom != fixed, "claim: TODO, in words a reader recognises"
    return "TODO: a one-line verdict with the measured numbers"


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
