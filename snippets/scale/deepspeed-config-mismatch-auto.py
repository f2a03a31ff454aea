"""A DeepSpeed config that hard-codes what the trainer also sets (batch sizes,
gradient accumulation, learning rate) fails: at train() with "Please correct the
following DeepSpeed config values", or earlier in DeepSpeed's own batch check.
"auto" lets the DPOConfig fill them in.

Page: docs/scale/deepspeed-config-mismatch-auto.md
中文: docs/scale/deepspeed-config-mismatch-auto.zh.md
"""

# --8<-- [start:fix]
import torch
from trl import DPOConfig

# ZeRO-3, every value the trainer also sets left to it as "auto"
# (the same keys in a JSON file: "auto" is a string there too)
ZERO3 = {
    "zero_optimization": {"stage": 3},
    "train_micro_batch_size_per_gpu": "auto",
    "gradient_accumulation_steps": "auto",
    "train_batch_size": "auto",
    "gradient_clipping": "auto",
    "bf16": {"enabled": "auto"},
}


def zero3_dpo_config(output_dir, deepspeed=ZERO3):
    """The numbers live here, once; transformers copies them into every "auto"."""
    return DPOConfig(
        output_dir=output_dir,
        deepspeed=deepspeed,  # the dict above, or the path of its JSON file
        per_device_train_batch_size=2,
        gradient_accumulation_steps=8,
        learning_rate=5e-7,
        max_grad_norm=1.0,
        bf16=torch.cuda.is_available(),
    )


# --8<-- [end:fix]


# --8<-- [start:evidence]
import contextlib
import dataclasses
import gc
import math
import os
import socket
import tempfile
from importlib import resources

import yaml
from accelerate.state import AcceleratorState
from datasets import Dataset
from transformers import AutoModelForCausalLM, AutoTokenizer, set_seed
from transformers.integrations import HfDeepSpeedConfig, unset_hf_deepspeed_config
from trl import DPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

# numbers copied from an SFT recipe: consistent among themselves (8 = 4 * 2 on
# one process), but not the DPOConfig's values
COPIED = {
    "zero_optimization": {"stage": 3},
    "train_micro_batch_size_per_gpu": 4,
    "gradient_accumulation_steps": 2,
    "train_batch_size": 8,
    "gradient_clipping": 1.0,  # equal to max_grad_norm: not reported
    "optimizer": {"type": "AdamW", "params": {"lr": 2e-5}},
}
# the DPOConfig's own values, with a global batch written for 8 GPUs (2 * 8 * 8)
FOR_8_GPUS = {
    "zero_optimization": {"stage": 3},
    "train_micro_batch_size_per_gpu": 2,
    "gradient_accumulation_steps": 8,
    "train_batch_size": 128,
}
FOR_8_GPUS_ZERO2 = {**FOR_8_GPUS, "zero_optimization": {"stage": 2}}
# a number written as a JSON string
AS_STRING = {**ZERO3, "gradient_accumulation_steps": "8"}
# the key left out instead of "auto"
NO_ACCUMULATION_KEY = {
    k: v for k, v in ZERO3.items() if k != "gradient_accumulation_steps"
}
# what `accelerate launch --config_file zero1.yaml` exports for TRL's own
# trl/accelerate_configs/zero1.yaml (`trl dpo --accelerate_config zero1`): its
# deepspeed_config holds `gradient_accumulation_steps: 1` (mixed_precision is
# left out: on this CPU run the DPOConfig's bf16=False decides)
TRL_ZERO1_YAML = {
    "ACCELERATE_USE_DEEPSPEED": "true",
    "ACCELERATE_DEEPSPEED_ZERO_STAGE": "1",
    "ACCELERATE_DEEPSPEED_ZERO3_INIT": "false",
    "ACCELERATE_GRADIENT_ACCUMULATION_STEPS": "1",
}
# the same yaml without that line
ZERO1_YAML_FIXED = {
    k: v
    for k, v in TRL_ZERO1_YAML.items()
    if k != "ACCELERATE_GRADIENT_ACCUMULATION_STEPS"
}


@contextlib.contextmanager
def one_process_on_cpu(launcher_env=None):
    """What `accelerate launch` sets up on each GPU, shrunk to this one CPU
    process (gloo); launcher_env adds what it exports from its yaml. Everything
    is undone on exit."""
    with socket.socket() as s:  # a free port for the one-process group
        s.bind(("127.0.0.1", 0))
        port = str(s.getsockname()[1])
    env = dict(DS_ACCELERATOR="cpu", MASTER_ADDR="127.0.0.1", MASTER_PORT=port)
    env.update(RANK="0", WORLD_SIZE="1", LOCAL_RANK="0", **(launcher_env or {}))
    saved = dict(os.environ)  # accelerate and DeepSpeed set more variables
    os.environ.update(env)
    import deepspeed

    # DeepSpeed's CPU back end JIT-compiles a shared-memory all-reduce kernel at
    # start-up unless its op table says the op is unavailable; then it uses
    # torch.distributed (gloo). One process reduces nothing: skip the compile.
    ops = deepspeed.ops.__compatible_ops__
    shm = ops.get("deepspeed_shm_comm")
    ops["deepspeed_shm_comm"] = False
    deepspeed.init_distributed(dist_backend="gloo")
    try:
        yield
    finally:
        gc.collect()
        unset_hf_deepspeed_config()
        AcceleratorState._reset_state(reset_partial_state=True)
        deepspeed.comm.destroy_process_group()
        ops["deepspeed_shm_comm"] = shm
        os.environ.clear()
        os.environ.update(saved)


def dpo_run(seed, deepspeed, train=True, accumulation=8):
    """Config, model, trainer, train(): where the first error comes, and what."""
    set_seed(seed)
    stage = "config"
    try:
        dpo_config = zero3_dpo_config(tempfile.mkdtemp(), deepspeed=deepspeed)
        dpo_config = dataclasses.replace(
            dpo_config,
            gradient_accumulation_steps=accumulation,
            max_steps=1,  # one optimizer step: the claim is which values it runs
            max_length=32,
            logging_steps=1,
            save_strategy="no",
            report_to="none",
            seed=seed,
        )
        stage = "from_pretrained"
        tokenizer = AutoTokenizer.from_pretrained(MODEL)
        model = AutoModelForCausalLM.from_pretrained(MODEL)
        stage = "DPOTrainer(...)"
        rows = [
            {"prompt": f"Is {w} wet?", "chosen": " Yes.", "rejected": " No."}
            for w in ("water", "rain", "the sea", "a river")
        ]
        trainer = DPOTrainer(
            model=model,
            args=dpo_config,
            train_dataset=Dataset.from_list(rows),
            processing_class=tokenizer,
        )
        plugin = trainer.accelerator.state.deepspeed_plugin
        found = {
            "ds_accumulation": plugin.deepspeed_config["gradient_accumulation_steps"]
        }
        if not train:
            return {"stage": "ok", **found}
        stage = "train()"
        trainer.train()
    except (ValueError, AssertionError, TypeError) as error:
        return {"stage": stage, "error": f"{type(error).__name__}: {error}"}
    engine = trainer.model_wrapped
    logs = [r for r in trainer.state.log_history if "loss" in r]
    return {
        "stage": "ok",
        **found,
        "engine": type(engine).__name__,
        "ref_engine": type(trainer.ref_model).__name__,
        "micro": engine.train_micro_batch_size_per_gpu(),
        "accumulation": engine.gradient_accumulation_steps(),
        "global": engine.train_batch_size(),
        "losses": [r["loss"] for r in logs],
    }


def bare_auto_load():
    """ "auto" with no trainer's config: a plain HfDeepSpeedConfig, the way a
    model is loaded under ZeRO-3 outside a trainer."""
    keep = HfDeepSpeedConfig(ZERO3)  # ZeRO-3 loading applies while it lives
    try:
        AutoModelForCausalLM.from_pretrained(MODEL)
    except TypeError as error:
        return f"TypeError: {error}"
    finally:
        del keep
    return "loaded"


def run_each(seed):
    runs = {}
    for name, deepspeed in (
        ("copied", COPIED),
        ("for_8_gpus", FOR_8_GPUS),
        ("for_8_gpus_zero2", FOR_8_GPUS_ZERO2),
        ("as_string", AS_STRING),
        ("no_key", NO_ACCUMULATION_KEY),
    ):
        with one_process_on_cpu():
            runs[name] = dpo_run(seed, deepspeed)
    with one_process_on_cpu(TRL_ZERO1_YAML):
        runs["yaml_gas_1"] = dpo_run(seed, None)
    with one_process_on_cpu(ZERO1_YAML_FIXED):
        runs["yaml"] = dpo_run(seed, None, train=False)
    with one_process_on_cpu():
        runs["bare_auto"] = bare_auto_load()
    with one_process_on_cpu():
        # 4 rows: one optimizer step of 2 x 2 rows on a CPU
        runs["fix"] = dpo_run(seed, ZERO3, accumulation=2)
    return runs


def check(seed: int = 0) -> str:
    zero1 = resources.files("trl.accelerate_configs").joinpath("zero1.yaml")
    shipped = yaml.safe_load(zero1.read_text())["deepspeed_config"]
    assert shipped["gradient_accumulation_steps"] == 1, f"claim: TRL's line: {shipped}"
    runs = run_each(seed)
    copied = runs["copied"]
    assert copied["stage"] == "train()", f"claim: train() refuses: {copied}"
    for line in (
        "ValueError: Please correct the following DeepSpeed config values that "
        "mismatch TrainingArguments values:",
        "- ds train_micro_batch_size_per_gpu=4 vs hf per_device_train_batch_size=2",
        "- ds gradient_accumulation_steps=2 vs hf gradient_accumulation_steps=8",
        "- ds train_batch_size=8 vs hf train_batch_size (calculated)=16",
        "- ds optimizer.params.lr=2e-05 vs hf learning_rate=5e-07",
        "The easiest method is to set these DeepSpeed config values to 'auto'.",
    ):
        assert line in copied["error"], f"claim: {line!r} in {copied['error']!r}"
    assert "gradient_clipping" not in copied["error"], "claim: equal is accepted"

    string_error = "TypeError: '>' not supported between instances of 'str' and 'int'"
    batch = "AssertionError: Check batch related parameters. train_batch_size is "
    batch += "not equal to micro_batch_per_gpu * gradient_acc_step * world_size "
    expected = {
        "for_8_gpus": ("from_pretrained", batch + "128 != 2 * 8 * 1"),
        "for_8_gpus_zero2": ("DPOTrainer(...)", batch + "128 != 2 * 8 * 1"),
        "as_string": ("from_pretrained", string_error),
        "no_key": ("from_pretrained", batch + "16 != 2 * 1 * 1"),
        "yaml_gas_1": ("DPOTrainer(...)", batch + "16 != 2 * 1 * 1"),
    }
    for name, (stage, error) in expected.items():
        got = runs[name]
        assert (got["stage"], got.get("error")) == (stage, error), (
            f"claim: {name} fails in {stage} with {error!r}: {got}"
        )

    assert runs["bare_auto"] == string_error, (
        f'claim: nothing fills "auto" outside a trainer: {runs["bare_auto"]}'
    )
    fixed_yaml = runs["yaml"]
    assert fixed_yaml["stage"] == "ok" and fixed_yaml["ds_accumulation"] == 8, (
        f"claim: without the yaml line, the DPOConfig's 8 is used: {fixed_yaml}"
    )
    fix = runs["fix"]
    assert fix["stage"] == "ok", f"claim: the all-auto config trains: {fix}"
    engine = (fix["engine"], fix["ref_engine"], fix["micro"], fix["accumulation"])
    assert engine == ("DeepSpeedEngine", "DeepSpeedEngine", 2, 2), (
        f"claim: DeepSpeed runs the DPOConfig's values: {fix}"
    )
    assert fix["global"] == 4, f"claim: global batch 2 x 2 x 1 process: {fix}"
    losses = fix["losses"]
    assert len(losses) == 1 and math.isfinite(losses[0]), (
        f"claim: it trains, a finite loss: {losses}"
    )
    return (
        f"numbers: {copied['stage']} refuses {copied['error'].count('- ds')} "
        "values; for 8 GPUs: 128 != 2 * 8 * 1 in from_pretrained; '8': TypeError; "
        "key left out or yaml line: 16 != 2 * 1 * 1; bare HfDeepSpeedConfig 'auto': "
        "TypeError; all auto in a DPOConfig: DeepSpeed runs "
        f"micro {fix['micro']} x accumulation {fix['accumulation']}, "
        f"loss {losses[0]:.4f}"
    )


SEEDS = (0,)  # one seed: where each config fails does not depend on it

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
