"""fp16 on a model trained in bf16: activations beyond float16's
range turn into inf, then NaN.

Page: docs/sft/fp16-on-bf16-model.md
中文: docs/sft/fp16-on-bf16-model.zh.md
"""

# --8<-- [start:fix]
import torch


def precision_fields():
    """SFTConfig fields: bf16 where the GPU has it, else full fp32; never fp16
    for a bf16-trained checkpoint."""
    if torch.cuda.is_available() and torch.cuda.is_bf16_supported():
        return dict(bf16=True, fp16=False)
    return dict(bf16=False, fp16=False)


# --8<-- [end:fix]


# --8<-- [start:evidence]
import math
import os

from datasets import Dataset
from transformers import AutoModelForCausalLM, AutoTokenizer, set_seed
from trl import SFTConfig, SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
TEXT = "The quick brown fox jumps over the lazy dog."


def planted(dtype, peak=2e5):
    """The model in `dtype`, with one MLP channel of its first layer
    carrying activations up to `peak`, as bf16-trained checkpoints can
    (bf16 has float32's exponent range, float16 stops at 65504).

    The channel's up projection is scaled by k and its down projection by
    1/k: in exact arithmetic the model computes the same function.
    """
    model = AutoModelForCausalLM.from_pretrained(MODEL, dtype=torch.float32)
    mlp = model.model.layers[0].mlp
    seen = {}
    hook = mlp.down_proj.register_forward_hook(
        lambda module, args, out: seen.update(act=args[0].detach())
    )
    ids = AutoTokenizer.from_pretrained(MODEL)(TEXT, return_tensors="pt").input_ids
    with torch.no_grad():
        model(input_ids=ids)
        hook.remove()
        act = seen["act"].abs().amax(dim=(0, 1))
        channel = int(act.argmax())
        k = peak / float(act[channel])
        mlp.up_proj.weight[channel].mul_(k)
        mlp.down_proj.weight[:, channel].div_(k)
    # frozen: the down projection's gradient would carry the factor k
    mlp.requires_grad_(False)
    return model.to(dtype)


def forward(model):
    """One forward pass: whether an activation of the planted channel's layer
    overflowed (inf, or NaN from inf), the peak, the loss."""
    ids = AutoTokenizer.from_pretrained(MODEL)(TEXT, return_tensors="pt").input_ids
    acts = []
    hook = model.model.layers[0].mlp.down_proj.register_forward_hook(
        lambda module, args, out: acts.append(args[0].detach().float())
    )
    with torch.no_grad():
        out = model(input_ids=ids.to(model.device), labels=ids.to(model.device))
    hook.remove()
    return {
        "overflow": not bool(torch.isfinite(acts[0]).all()),
        "peak": float(acts[0].abs().max()),
        "loss": float(out.loss),
    }


def train(dtype, seed):
    """Four SFT steps of the planted model with its weights in `dtype`."""
    set_seed(seed)
    sft_config = SFTConfig(
        max_steps=4,
        per_device_train_batch_size=2,
        learning_rate=2e-5,
        logging_steps=1,
        seed=seed,
        # transformers 5 saves a checkpoint at the last step otherwise
        save_strategy="no",
        **precision_fields(),
    )
    data = Dataset.from_list([{"text": TEXT}] * 8)
    trainer = SFTTrainer(model=planted(dtype), args=sft_config, train_dataset=data)
    trainer.train()
    return [
        (row["loss"], row["grad_norm"])
        for row in trainer.state.log_history
        if "grad_norm" in row
    ]


def check(seed: int = 0) -> str:
    set_seed(seed)
    plain = forward(AutoModelForCausalLM.from_pretrained(MODEL, dtype=torch.float32))
    fp16, bf16, fp32 = (
        forward(planted(d)) for d in (torch.float16, torch.bfloat16, torch.float32)
    )
    assert bf16["peak"] > torch.finfo(torch.float16).max, (
        f"set-up: activations must exceed 65504, got {bf16}"
    )
    assert abs(fp32["loss"] - plain["loss"]) < 1e-3 * plain["loss"], (
        f"set-up: the planted model computes the same loss: {fp32} vs {plain}"
    )
    assert fp16["overflow"], (
        f"claim: activations above 65504 overflow in float16, got {fp16}"
    )
    assert not math.isfinite(fp16["loss"]), (
        f"claim: the float16 loss is not finite, got {fp16['loss']}"
    )
    for name, run in (("bfloat16", bf16), ("float32", fp32)):
        assert not run["overflow"], f"claim: they fit in {name}, got {run}"
        assert math.isfinite(run["loss"]), (
            f"claim: the {name} loss is finite, got {run['loss']}"
        )
    # the trainer's view: weights in float16 (what loading a bf16 checkpoint
    # with dtype=torch.float16 gives) against bfloat16
    symptom, fixed = train(torch.float16, seed), train(torch.bfloat16, seed)
    assert all(not math.isfinite(g) for _, g in symptom), (
        f"claim: grad_norm is nan at every float16 step: {symptom}"
    )
    assert all(loss == 0.0 or not math.isfinite(loss) for loss, _ in symptom), (
        f"claim: the float16 loss is logged as 0.0 or nan: {symptom}"
    )
    assert all(math.isfinite(x) for step in fixed for x in step), (
        f"claim: bfloat16 trains with a finite loss and grad_norm: {fixed}"
    )
    return (
        f"activations up to {bf16['peak']:.3g}: float16 (max "
        f"{torch.finfo(torch.float16).max:.0f}) -> inf, loss {fp16['loss']}; bfloat16 "
        f"loss {bf16['loss']:.3g}, float32 loss {fp32['loss']:.3g} (unplanted "
        f"{plain['loss']:.3g}); SFT (loss, grad_norm) float16 {symptom[:2]}, "
        f"bfloat16 {fixed[:2]}"
    )


def check_gpu(seed: int = 0) -> str:
    """On a GPU with a real bf16 checkpoint (HANDBOOK_MODEL): three SFT
    steps with fp16=True vs the fix."""
    data = Dataset.from_list([{"text": TEXT}] * 8)
    logs = {}
    for name, fields in (
        ("fp16", dict(fp16=True, bf16=False)),
        ("fix", precision_fields()),
    ):
        set_seed(seed)
        args = SFTConfig(
            max_steps=3,
            logging_steps=1,
            seed=seed,
            # transformers 5 saves a checkpoint at the last step otherwise
            save_strategy="no",
            # fp16 mixed precision needs fp32 master weights
            model_init_kwargs={"dtype": "float32"},
            **fields,
        )
        trainer = SFTTrainer(model=MODEL, args=args, train_dataset=data)
        trainer.train()
        logs[name] = [
            (row["loss"], row["grad_norm"])
            for row in trainer.state.log_history
            if "grad_norm" in row
        ]
    assert all(math.isfinite(x) for step in logs["fix"] for x in step), (
        f"claim: the fix stays finite: {logs}"
    )
    return (
        f"(loss, grad_norm) per step: fp16 {logs['fp16']}; "
        f"{precision_fields()} {logs['fix']}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
