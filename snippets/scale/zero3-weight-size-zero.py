"""Under DeepSpeed ZeRO-3 a weight is an empty torch.Size([0]) placeholder outside
DeepSpeed's gather: a model the trainer did not wrap, or code that reads a weight,
fails with size-0 shape errors. Hand the model to the trainer, or gather first.

Page: docs/scale/zero3-weight-size-zero.md
中文: docs/scale/zero3-weight-size-zero.zh.md
"""

# --8<-- [start:fix]
from trl import DPOTrainer


def build_dpo_trainer(policy, reference, dpo_config, dataset, tokenizer):
    """Under ZeRO-3, give the trainer every model the loss calls: it wraps each
    one in a DeepSpeed engine, which gathers the weights for every forward."""
    return DPOTrainer(
        model=policy,
        ref_model=reference,  # not called from your own code
        args=dpo_config,
        train_dataset=dataset,
        processing_class=tokenizer,
    )


def full_weight(param):
    """A full copy of one weight (a ZeRO-3 weight is torch.Size([0]) outside a
    gather). Call it on every rank: gathering is a collective."""
    import deepspeed

    with deepspeed.zero.GatheredParameters(param):
        return param.detach().clone()


# --8<-- [end:fix]


# --8<-- [start:evidence]
import contextlib
import gc
import os
import socket

import torch
from accelerate.state import AcceleratorState
from datasets import Dataset
from transformers import AutoModelForCausalLM, AutoTokenizer, set_seed
from transformers.integrations import (
    is_deepspeed_zero3_enabled,
    unset_hf_deepspeed_config,
)
from trl import DPOConfig

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
# what TRL's zero3.yaml asks of DeepSpeed; "auto" takes the DPOConfig values
ZERO3 = {
    "zero_optimization": {"stage": 3},
    "train_micro_batch_size_per_gpu": "auto",
    "train_batch_size": "auto",
    "gradient_accumulation_steps": "auto",
    "bf16": {"enabled": "auto"},
}


@contextlib.contextmanager
def one_process_on_cpu():
    """What `accelerate launch --config_file zero3.yaml` sets up on each GPU,
    shrunk to this one CPU process (gloo); everything is undone on exit."""
    with socket.socket() as s:  # a free port for the one-process group
        s.bind(("127.0.0.1", 0))
        port = str(s.getsockname()[1])
    env = dict(DS_ACCELERATOR="cpu", MASTER_ADDR="127.0.0.1", MASTER_PORT=port)
    env.update(RANK="0", WORLD_SIZE="1", LOCAL_RANK="0")
    saved = dict(os.environ)  # accelerate and DeepSpeed set more variables
    os.environ.update(env)
    import deepspeed

    # DeepSpeed's CPU back end JIT-compiles a shared-memory all-reduce kernel at
    # start-up unless its op table says the op is unavailable; then it uses
    # torch.distributed (gloo). One process reduces nothing, and partitioning
    # and gathering never use that kernel, so skip the compile.
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


def error_of(call, *args, **kwargs):
    """The error text a call raises, or None when it runs."""
    try:
        call(*args, **kwargs)
    except (RuntimeError, AssertionError, ValueError) as e:
        return str(e)
    return None


def zero3_run(seed):
    set_seed(seed)
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    ids = tokenizer(["The sky is blue."], return_tensors="pt").input_ids
    # loaded before any DeepSpeed config exists: a plain model with full weights
    plain = AutoModelForCausalLM.from_pretrained(MODEL)
    expected = plain.lm_head.weight.detach().clone()
    hidden = plain.config.hidden_size
    # From here on is_deepspeed_zero3_enabled() is True (the DPOConfig holds the
    # DeepSpeed config), and from_pretrained partitions every weight it loads.
    dpo_config = DPOConfig(
        output_dir="zero3-dpo",
        deepspeed=ZERO3,
        learning_rate=5e-7,
        beta=0.1,
        per_device_train_batch_size=2,
        max_steps=2,
        max_length=32,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    assert is_deepspeed_zero3_enabled(), "claim: the config turns ZeRO-3 on"
    policy = AutoModelForCausalLM.from_pretrained(MODEL)
    reference = AutoModelForCausalLM.from_pretrained(MODEL)
    weight = reference.lm_head.weight
    found = {
        "shape": tuple(weight.shape),
        "ds_shape": tuple(weight.ds_shape),
        "plain": tuple(expected.shape),
    }
    # symptom 1: your own code calls a model the trainer never wrapped
    with torch.no_grad():
        found["forward"] = error_of(reference, input_ids=ids)
    # symptom 2: your own code does arithmetic on a weight, as a LoRA merge
    # does: the full-size update meets the empty weight
    update = torch.zeros(expected.shape)
    found["merge"] = error_of(torch.add, weight.data, update)

    # fix 2: gather, then read
    gathered = full_weight(weight)
    found["gathered_equal"] = torch.equal(gathered, expected)
    found["after_gather"] = tuple(weight.shape)
    # fix 1: the same reference model, handed to the trainer
    rows = [
        {"prompt": f"Is {w} wet?", "chosen": " Yes.", "rejected": " No."}
        for w in ("water", "rain", "the sea", "a river")
    ]
    trainer = build_dpo_trainer(
        policy, reference, dpo_config, Dataset.from_list(rows), tokenizer
    )
    found["ref_wrapper"] = type(trainer.ref_model).__name__
    trainer.train()
    found["logs"] = [r for r in trainer.state.log_history if "loss" in r]
    found["hidden"] = hidden
    del trainer, policy, reference, weight, dpo_config
    return found


def check(seed: int = 0) -> str:
    with one_process_on_cpu():
        found = zero3_run(seed)
    assert not is_deepspeed_zero3_enabled(), "claim: nothing leaks past the run"

    assert found["shape"] == (0,), f"claim: a ZeRO-3 weight reads {found['shape']}"
    assert found["ds_shape"] == found["plain"], (
        f"claim: the real shape lives in ds_shape: {found['ds_shape']}"
    )
    # torch checks a padding_idx > 0 (SmolLM2's pad_token_id is 2) against
    # the empty weight first; without one it refuses the 1-D weight
    embedding_errors = (
        "'weight' must be 2-D",
        "Padding_idx must be within num_embeddings",
    )
    assert found["forward"] in embedding_errors, (
        f"claim: an unwrapped model fails its forward: {found['forward']!r}"
    )
    merge = (
        "The size of tensor a (0) must match the size of tensor b "
        f"({found['hidden']}) at non-singleton dimension 1"
    )
    assert found["merge"] == merge, f"claim: {merge!r}, got {found['merge']!r}"
    assert found["gathered_equal"], "claim: the gathered weight is the checkpoint's"
    assert found["after_gather"] == (0,), "claim: it is released after the gather"
    assert found["ref_wrapper"] == "DeepSpeedEngine", (
        f"claim: DPOTrainer wraps the reference: {found['ref_wrapper']}"
    )
    losses = [r["loss"] for r in found["logs"]]
    chosen = [r["logps/chosen"] for r in found["logs"]]
    assert len(losses) == 2 and all(map(torch.isfinite, torch.tensor(losses))), (
        f"claim: the trainer steps with the wrapped reference: {losses}"
    )
    return (
        f"ZeRO-3 weight {found['shape']} (ds_shape {found['ds_shape']}); own "
        f"forward: {found['forward']!r}; weight + update: {found['merge'][:40]!r}; "
        f"gathered: checkpoint values; as ref_model: {found['ref_wrapper']}, "
        f"loss {losses[0]:.4f} -> {losses[1]:.4f}, logps/chosen {chosen[-1]:.2f}"
    )


SEEDS = (0, 1, 2)

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
