"""Under DeepSpeed ZeRO-3, trainable parameters of two dtypes (bf16 weights next
to float32 LoRA adapters) stop the engine at start-up, in `defragment`. Give
them one dtype before the trainer wraps the model.

Page: docs/scale/zero3-mixed-dtype-defragment.md
中文: docs/scale/zero3-mixed-dtype-defragment.zh.md
"""

# --8<-- [start:fix]
from peft import LoraConfig, get_peft_model

lora_config = LoraConfig(
    task_type="SEQ_CLS",  # a reward model: PEFT also trains the new score head
    r=16,
    lora_alpha=32,
    lora_dropout=0.05,
    target_modules="all-linear",
)


def add_lora(model, lora_config):
    """Under ZeRO-3, keep the adapters in the model's dtype: DeepSpeed flattens
    every trainable parameter into one buffer of one dtype."""
    model = get_peft_model(model, lora_config, autocast_adapter_dtype=False)
    dtypes = {p.dtype for p in model.parameters() if p.requires_grad}
    assert len(dtypes) == 1, f"ZeRO-3 needs one dtype, trainable ones are {dtypes}"
    return model


# --8<-- [end:fix]


# --8<-- [start:evidence]
import contextlib
import gc
import os
import socket
import traceback

import torch
from accelerate.state import AcceleratorState
from datasets import Dataset
from transformers import AutoModelForSequenceClassification, AutoTokenizer, set_seed
from transformers.integrations import (
    is_deepspeed_zero3_enabled,
    unset_hf_deepspeed_config,
)
from trl import RewardConfig, RewardTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
# what TRL's zero3.yaml asks of DeepSpeed; "auto" takes the RewardConfig values
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
    # torch.distributed (gloo). One process reduces nothing, and flattening the
    # parameters never uses that kernel, so skip the compile.
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


def train_reward_model(seed, wrap):
    """Two ZeRO-3 steps of a LoRA reward model; `wrap` adds the adapters."""
    set_seed(seed)
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    reward_config = RewardConfig(
        output_dir="zero3-reward",
        deepspeed=ZERO3,
        learning_rate=1e-4,
        per_device_train_batch_size=2,
        max_steps=2,
        max_length=32,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
        bf16=True,  # as on GPUs: ZeRO-3 then builds the weights in bf16
        use_cpu=not torch.cuda.is_available(),  # bf16 on a CPU needs use_cpu
    )
    assert is_deepspeed_zero3_enabled(), "claim: the config turns ZeRO-3 on"
    # loaded after the config: ZeRO-3 creates every weight in bf16 (zero.Init)
    model = AutoModelForSequenceClassification.from_pretrained(MODEL, num_labels=1)
    model.config.pad_token_id = tokenizer.pad_token_id
    model = wrap(model)
    found = {"dtypes": sorted({str(p.dtype) for p in model.parameters()})}
    for name, grad in (("trainable", True), ("frozen", False)):
        dtypes = {str(p.dtype) for p in model.parameters() if p.requires_grad == grad}
        found[name] = sorted(dtypes)
    rows = [
        {"prompt": f"Is {w} wet?", "chosen": " Yes.", "rejected": " No."}
        for w in ("water", "rain", "the sea", "a river")
    ]
    trainer = RewardTrainer(
        model=model,
        args=reward_config,
        train_dataset=Dataset.from_list(rows),
        processing_class=tokenizer,
    )
    try:
        trainer.train()
    except AssertionError as e:  # raised where DeepSpeed builds its engine
        frames = traceback.extract_tb(e.__traceback__)
        found["error"] = [(f.name, f.line) for f in frames[-2:]]
    else:
        optimizer = trainer.model_wrapped.optimizer  # ZeRO-3's own optimizer
        found["master"] = {str(t.dtype) for t in optimizer.fp32_partitioned_groups_flat}
        found["logs"] = [r for r in trainer.state.log_history if "loss" in r]
    del trainer, model, reward_config
    return found


def check(seed: int = 0) -> str:
    with one_process_on_cpu():
        # get_peft_model's default: adapters upcast to float32, score head bf16
        mixed = train_reward_model(seed, lambda m: get_peft_model(m, lora_config))
    with one_process_on_cpu():
        fixed = train_reward_model(seed, lambda m: add_lora(m, lora_config))
    assert not is_deepspeed_zero3_enabled(), "claim: nothing leaks past the runs"

    assert mixed["frozen"] == ["torch.bfloat16"], (
        f"claim: ZeRO-3 with bf16 builds the base weights in bf16: {mixed['frozen']}"
    )
    assert mixed["trainable"] == ["torch.bfloat16", "torch.float32"], (
        f"claim: the trainable parameters mix two dtypes: {mixed['trainable']}"
    )
    assert "error" in mixed, "claim: ZeRO-3 refuses mixed trainable dtypes"
    (caller, _), (where, line) = mixed["error"]
    assert where == "defragment", f"claim: it fails in defragment, not {where}"
    assert line == "assert len(set(t.dtype for t in tensors)) == 1", (
        f"claim: the one-dtype assert fails: {line!r}"
    )
    assert fixed["dtypes"] == fixed["trainable"] == ["torch.bfloat16"], (
        f"claim: after the fix every parameter is bf16: {fixed['dtypes']}"
    )
    assert "error" not in fixed, f"claim: the engine starts: {fixed.get('error')}"
    losses = [r["loss"] for r in fixed["logs"]]
    assert len(losses) == 2 and all(map(torch.isfinite, torch.tensor(losses))), (
        f"claim: the fixed model trains with a finite loss: {losses}"
    )
    assert fixed["master"] == {"torch.float32"}, (
        f"claim: ZeRO-3 keeps a float32 master copy: {fixed['master']}"
    )
    return (
        f"get_peft_model default: trainable {mixed['trainable']} -> "
        f"AssertionError in {where} ({caller}); autocast_adapter_dtype=False: "
        f"{fixed['trainable']}, loss {losses[0]:.4f} -> {losses[1]:.4f}, "
        f"optimizer master {sorted(fixed['master'])}"
    )


SEEDS = (0, 1, 2)

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
