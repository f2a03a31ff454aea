"""What the three "verbose" env vars really switch on, and how to read trainer.state.log_history.

Page: docs/debugging/verbose-logging-and-log-history.md (中文: docs/debugging/verbose-logging-and-log-history.zh.md)
Run:  python snippets/debugging/verbose-logging-and-log-history.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# one 3-step SFT run (~0.5 s); the env-var checks are free
SEEDS = (0, 1)

import os


def _with_env(name: str, value: str, fn):
    old = os.environ.get(name)
    os.environ[name] = value
    try:
        return fn()
    finally:
        if old is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = old


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    """What each variable is read by (checked against the installed libraries)."""
    import inspect
    import logging

    import torch.distributed as dist
    from accelerate.utils import operations, parse_flag_from_env
    from transformers.utils import logging as hf_logging

    out = {
        # transformers reads it when its root logger is first configured
        "TRANSFORMERS_VERBOSITY=info": _with_env("TRANSFORMERS_VERBOSITY", "info",
                                                 hf_logging._get_default_logging_level) == logging.INFO,
        # accelerate: PartialState.debug -> shape checks before gather/reduce, skipped in a single process
        "ACCELERATE_DEBUG_MODE=1": _with_env("ACCELERATE_DEBUG_MODE", "1",
                                             lambda: parse_flag_from_env("ACCELERATE_DEBUG_MODE")),
        "accelerate_debug_skipped_single_process": "distributed_type == DistributedType.NO or not PartialState().debug"
        in inspect.getsource(operations.verify_operation),
        # torch.distributed: extra collective checks / logs once a process group exists
        "TORCH_DISTRIBUTED_DEBUG=DETAIL": _with_env("TORCH_DISTRIBUTED_DEBUG", "DETAIL", lambda: (
            dist.set_debug_level_from_env(), str(dist.get_debug_level()))[1]),
    }
    dist.set_debug_level_from_env()  # back to the level of the real environment
    return out
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """Read the run's own record: one dict per logging step, then one summary dict."""
    from datasets import Dataset
    from transformers import AutoTokenizer
    from trl import SFTConfig, SFTTrainer

    runner.setup(seed)
    path = runner.model_path(seed)
    trainer = SFTTrainer(
        model=path, args=runner.config(SFTConfig, seed, max_steps=3),
        train_dataset=Dataset.from_list([{"text": "Two plus two equals four."}] * 6),
        processing_class=AutoTokenizer.from_pretrained(path),
    )
    trainer.train()
    history = trainer.state.log_history
    steps = [row for row in history if "loss" in row]  # the per-step rows
    return {"rows": len(history), "step_rows": len(steps), "step_keys": sorted(steps[-1]),
            "last_row_keys": sorted(history[-1])}
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    env, hist = symptom(seed), fix(seed)
    assert env["TRANSFORMERS_VERBOSITY=info"], "transformers no longer reads TRANSFORMERS_VERBOSITY"
    assert env["ACCELERATE_DEBUG_MODE=1"] and env["accelerate_debug_skipped_single_process"], env
    assert env["TORCH_DISTRIBUTED_DEBUG=DETAIL"].endswith("DETAIL"), env
    want = {"loss", "grad_norm", "learning_rate", "entropy", "mean_token_accuracy", "num_tokens", "epoch", "step"}
    assert want <= set(hist["step_keys"]), f"SFT step rows lack {want - set(hist['step_keys'])}"
    assert hist["rows"] == hist["step_rows"] + 1, hist
    assert "train_runtime" in hist["last_row_keys"] and "loss" not in hist["last_row_keys"], hist
    return (f"3 steps -> {hist['rows']} log_history rows (last is the summary without 'loss'); "
            "TRANSFORMERS_VERBOSITY works, ACCELERATE_DEBUG_MODE only checks shapes across processes")
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
