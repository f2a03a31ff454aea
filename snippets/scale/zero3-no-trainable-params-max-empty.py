"""Under DeepSpeed ZeRO-3, a model with no trainable parameter that gets an
optimizer (the "optimizer" block of the DeepSpeed config) fails at start-up:
max() arg is an empty sequence. Wrap frozen models without an optimizer.

Page: docs/scale/zero3-no-trainable-params-max-empty.md
中文: docs/scale/zero3-no-trainable-params-max-empty.zh.md
"""

# --8<-- [start:fix]
import copy


def count_trainable(model):
    """Parameters that will train. Count tensors, not p.numel(): under ZeRO-3 a
    partitioned weight reads numel() == 0."""
    return sum(p.requires_grad for p in model.parameters())


def inference_engine(model, ds_config):
    """Under ZeRO-3, wrap a model that does not train (reference, reward model,
    teacher) without an optimizer: it has no parameter to optimize."""
    import deepspeed

    assert count_trainable(model) == 0, "this one trains: give it to the trainer"
    config = copy.deepcopy(ds_config)
    config.pop("optimizer", None)  # else DeepSpeed builds one from the config
    config.pop("scheduler", None)
    config["zero_optimization"].pop("offload_optimizer", None)
    engine, *_ = deepspeed.initialize(model=model, config=config)
    engine.eval()
    return engine


# --8<-- [end:fix]


# --8<-- [start:evidence]
import contextlib
import gc
import os
import socket
import traceback
from importlib.metadata import version

import torch
from accelerate.state import AcceleratorState
from datasets import Dataset
from packaging.version import Version
from transformers import AutoModelForCausalLM, AutoTokenizer, set_seed
from transformers.integrations import (
    is_deepspeed_zero3_enabled,
    unset_hf_deepspeed_config,
)
from trl import DPOConfig, DPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
# A ZeRO-3 config with an optimizer block, as in many shared DeepSpeed JSON
# files. torch_adam: DeepSpeed's fused Adam would need a C++ build on a CPU.
ZERO3 = {
    "zero_optimization": {"stage": 3, "offload_param": {"device": "cpu"}},
    "optimizer": {
        "type": "AdamW",
        "params": {"lr": "auto", "weight_decay": "auto", "torch_adam": True},
    },
    "train_micro_batch_size_per_gpu": "auto",
    "train_batch_size": "auto",
    "gradient_accumulation_steps": "auto",
    "bf16": {"enabled": "auto"},
}
# the first release whose trl.models.prepare_deepspeed drops the optimizer block
TRL_DROPS_OPTIMIZER = Version(version("trl")) >= Version("1.9.1")


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
    # torch.distributed (gloo). One process reduces nothing, and building an
    # optimizer never uses that kernel, so skip the compile.
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


def failure(call, *args, **kwargs):
    """(error, innermost function, its line) of a call that raises, or None."""
    try:
        call(*args, **kwargs)
    except (ValueError, AssertionError) as e:
        frame = traceback.extract_tb(e.__traceback__)[-1]
        return f"{type(e).__name__}: {e}", frame.name, frame.line
    return None


def zero3_run(seed):
    import deepspeed

    set_seed(seed)
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    ids = tokenizer(["The sky is blue."], return_tensors="pt").input_ids
    with torch.no_grad():  # loaded before the config: plain, full weights
        expected = AutoModelForCausalLM.from_pretrained(MODEL)(ids).logits
    dpo_config = DPOConfig(
        output_dir="zero3-dpo",
        deepspeed=ZERO3,
        learning_rate=5e-7,
        beta=0.1,
        per_device_train_batch_size=2,
        max_steps=1,
        max_length=32,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    assert is_deepspeed_zero3_enabled(), "claim: the config turns ZeRO-3 on"
    # the config the trainer hands DeepSpeed, "auto" values filled in
    ds_config = dpo_config.deepspeed_plugin.deepspeed_config

    def frozen():  # a reference model as frameworks load it: nothing trains
        return AutoModelForCausalLM.from_pretrained(MODEL).requires_grad_(False)

    found = {"trainable": count_trainable(frozen())}
    # symptom: the frozen model with the training config, optimizer block kept
    # (what trl.models.prepare_deepspeed did before 1.9.1)
    found["offload"] = failure(
        deepspeed.initialize, model=frozen(), config=copy.deepcopy(ds_config)
    )
    no_offload = copy.deepcopy(ds_config)
    del no_offload["zero_optimization"]["offload_param"]
    found["no_offload"] = failure(
        deepspeed.initialize, model=frozen(), config=no_offload
    )
    # fix: the same frozen model as an engine without an optimizer
    engine = inference_engine(frozen(), ds_config)
    with torch.no_grad():
        logits = engine(ids).logits
    # with no optimizer, ZeRO-3's engine keeps only the part that gathers weights
    found["engine"] = (type(engine).__name__, type(engine.optimizer).__name__)
    found["logits_equal"] = torch.allclose(logits, expected, atol=1e-5)
    # the frozen model as ref_model of DPOTrainer, the same config
    rows = [
        {"prompt": f"Is {w} wet?", "chosen": " Yes.", "rejected": " No."}
        for w in ("water", "rain", "the sea", "a river")
    ]
    kwargs = dict(args=dpo_config, train_dataset=Dataset.from_list(rows))
    policy = AutoModelForCausalLM.from_pretrained(MODEL)
    found["policy_trainable"] = count_trainable(policy)
    try:
        trainer = DPOTrainer(
            model=policy, ref_model=frozen(), processing_class=tokenizer, **kwargs
        )
    except ValueError as e:
        found["trainer_error"] = str(e)
    else:
        found["ref_optimizer"] = type(trainer.ref_model.optimizer).__name__
        trainer.train()
        found["losses"] = [r["loss"] for r in trainer.state.log_history if "loss" in r]
        del trainer
    del engine, policy, dpo_config, ds_config
    return found


def check(seed: int = 0) -> str:
    with one_process_on_cpu():
        found = zero3_run(seed)
    assert not is_deepspeed_zero3_enabled(), "claim: nothing leaks past the run"

    assert found["trainable"] == 0, "claim: the reference model is frozen"
    error, where, line = found["offload"]
    assert error == "ValueError: max() arg is an empty sequence", (
        f"claim: with offload_param, ZeRO-3 fails on max(): {error!r}"
    )
    assert where == "initialize_optimizer_states" and "largest_numel" in line, (
        f"claim: it fails sizing the optimizer's buffers: {where}: {line!r}"
    )
    error2, where2, line2 = found["no_offload"]
    assert (error2, where2) == ("AssertionError: ", "defragment"), (
        f"claim: without offload_param, defragment fails: {error2!r} in {where2}"
    )
    assert line2 == "assert len(set(t.dtype for t in tensors)) == 1", (
        f"claim: over an empty list, the one-dtype assert fails: {line2!r}"
    )
    assert found["engine"] == ("DeepSpeedEngine", "DeepSpeedZeRoOffload"), (
        f"claim: inference_engine builds an engine without optimizer: {found['engine']}"
    )
    assert found["logits_equal"], "claim: the engine computes the checkpoint's logits"
    assert found["policy_trainable"] > 0, "claim: the policy has parameters to train"
    if TRL_DROPS_OPTIMIZER:
        assert found.get("ref_optimizer") == "DeepSpeedZeRoOffload", (
            f"claim: TRL wraps ref_model without an optimizer: {found}"
        )
        losses = found["losses"]
        assert len(losses) == 1 and torch.isfinite(torch.tensor(losses)).all(), (
            f"claim: DPOTrainer trains with the frozen ref_model: {losses}"
        )
        trainer = f"ref_model= trains, loss {losses[0]:.4f}"
    else:
        assert found.get("trainer_error") == "max() arg is an empty sequence", (
            f"claim: TRL < 1.9.1 gives ref_model the optimizer block: {found}"
        )
        trainer = f"TRL {version('trl')} ref_model=: {found['trainer_error']}"
    return (
        f"frozen model + optimizer: {error} in {where}; without offload_param: "
        f"AssertionError in {where2}; inference_engine: checkpoint logits; {trainer}"
    )


SEEDS = (0, 1, 2)

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
