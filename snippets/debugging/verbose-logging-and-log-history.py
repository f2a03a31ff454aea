"""What the three "verbose" env vars really switch on, and how to
read trainer.state.log_history.

Page: docs/debugging/verbose-logging-and-log-history.md
中文: docs/debugging/verbose-logging-and-log-history.zh.md
"""


# --8<-- [start:fix]
def logged(trainer, key):
    """Every logged value of `key`, step by step; rows without it (the final
    summary, eval rows) are skipped."""
    return [row[key] for row in trainer.state.log_history if key in row]


# --8<-- [end:fix]


# --8<-- [start:evidence]
import logging
import os
import subprocess
import sys

import torch
import torch.distributed as dist
from datasets import Dataset
from transformers import set_seed
from trl import SFTConfig, SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")


def transformers_level_with(verbosity):
    """The transformers log level a fresh Python process starts with under
    TRANSFORMERS_VERBOSITY=<verbosity>."""
    code = "from transformers.utils import logging; print(logging.get_verbosity())"
    env = {**os.environ, "TRANSFORMERS_VERBOSITY": verbosity}
    return int(
        subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True
        ).stdout
    )


def torch_debug_level_with(value):
    """What torch.distributed parses from TORCH_DISTRIBUTED_DEBUG=<value> (the
    real setting is restored after)."""
    old = os.environ.get("TORCH_DISTRIBUTED_DEBUG")
    os.environ["TORCH_DISTRIBUTED_DEBUG"] = value
    try:
        dist.set_debug_level_from_env()
        return dist.get_debug_level()
    finally:
        if old is None:
            del os.environ["TORCH_DISTRIBUTED_DEBUG"]
        else:
            os.environ["TORCH_DISTRIBUTED_DEBUG"] = old
        dist.set_debug_level_from_env()


def check(seed: int = 0) -> str:
    assert transformers_level_with("info") == logging.INFO, (
        "claim: TRANSFORMERS_VERBOSITY=info sets level INFO"
    )
    level = torch_debug_level_with("DETAIL")
    assert level == dist.DebugLevel.DETAIL, (
        f"claim: torch reads TORCH_DISTRIBUTED_DEBUG=DETAIL, got {level}"
    )

    set_seed(seed)
    args = SFTConfig(
        max_steps=3,
        logging_steps=1,
        seed=seed,
        bf16=torch.cuda.is_available(),
        save_strategy="no",
    )
    dataset = Dataset.from_list([{"text": "Two plus two equals four."}] * 6)
    trainer = SFTTrainer(model=MODEL, args=args, train_dataset=dataset)
    trainer.train()
    history = trainer.state.log_history
    losses = logged(trainer, "loss")
    assert len(history) == len(losses) + 1 == 4, (
        f"claim: 3 steps give 3 step rows + 1 summary, got {len(history)}"
    )
    step_keys = {
        "loss",
        "grad_norm",
        "learning_rate",
        "entropy",
        "mean_token_accuracy",
        "num_tokens",
        "epoch",
        "step",
    }
    assert step_keys <= set(history[0]), (
        f"claim: SFT step rows carry {sorted(step_keys - set(history[0]))}"
    )
    assert "train_runtime" in history[-1] and "loss" not in history[-1], (
        "claim: the last row is the run summary"
    )
    return (
        "TRANSFORMERS_VERBOSITY=info -> INFO; TORCH_DISTRIBUTED_DEBUG=DETAIL -> "
        f"{level}; 3 steps -> {len(history)} log_history rows, losses "
        f"{[round(x, 3) for x in losses]}, last row keys {sorted(history[-1])}"
    )


MISMATCHED_GATHER = """
import torch
from accelerate import PartialState, debug_launcher
from accelerate.utils import gather

def mismatched_gather():
    state = PartialState(cpu=True)
    gather(torch.zeros(state.process_index + 1))  # process 0 sends 1 value, \
process 1 sends 2

debug_launcher(mismatched_gather, num_processes=2)  # two CPU processes, gloo
"""


def check_multiprocess(seed: int = 0) -> str:
    """Two processes gather tensors of different shapes, without
    and with ACCELERATE_DEBUG_MODE=1."""
    runs = {}
    for debug in ("0", "1"):
        env = {**os.environ, "ACCELERATE_DEBUG_MODE": debug}
        cmd = [sys.executable, "-c", MISMATCHED_GATHER]
        runs[debug] = subprocess.run(
            cmd, env=env, capture_output=True, text=True, timeout=300
        )
    plain, debug = runs["0"], runs["1"]
    assert plain.returncode != 0 and "shape mismatches" not in plain.stderr, (
        "claim: without it the crash is opaque"
    )
    assert "shape mismatches" in debug.stderr and "Process 1: [2]" in debug.stderr, (
        "claim: ACCELERATE_DEBUG_MODE=1 names the operation and each process's shape"
    )
    return (
        "mismatched gather: opaque crash without ACCELERATE_DEBUG_MODE, "
        "DistributedOperationException with it"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
