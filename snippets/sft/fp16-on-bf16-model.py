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


def forward(dtype, peak=2e5):
    """One forward pass in `dtype` after scaling the embeddings so that
    their largest entry is `peak`.

    The scaling plants what bf16-trained checkpoints can carry:
    activations far above 65504 on a few channels (bf16 has float32's
    exponent range, float16 stops at 65504).
    """
    model = AutoModelForCausalLM.from_pretrained(MODEL, dtype=torch.float32).eval()
    with torch.no_grad():
        weight = model.get_input_embeddings().weight
        weight.mul_(peak / weight.abs().max())
    model.to(dtype)
    ids = AutoTokenizer.from_pretrained(MODEL)(TEXT, return_tensors="pt").input_ids
    with torch.no_grad():
        out = model(input_ids=ids, labels=ids, output_hidden_states=True)
    hidden = torch.stack([h.float() for h in out.hidden_states])
    return {
        "inf": bool(torch.isinf(hidden).any()),
        "peak": float(hidden.abs().max()),
        "loss": float(out.loss),
    }


def check(seed: int = 0) -> str:
    set_seed(seed)
    fp16, bf16, fp32 = (
        forward(torch.float16),
        forward(torch.bfloat16),
        forward(torch.float32),
    )
    assert bf16["peak"] > torch.finfo(torch.float16).max, (
        f"set-up: activations must exceed 65504, got {bf16}"
    )
    assert fp16["inf"], (
        f"claim: activations above 65504 overflow to inf in float16, got {fp16}"
    )
    assert not math.isfinite(fp16["loss"]), (
        f"claim: the float16 loss is not finite, got {fp16['loss']}"
    )
    for name, run in (("bfloat16", bf16), ("float32", fp32)):
        assert not run["inf"], f"claim: the same activations fit in {name}, got {run}"
        assert math.isfinite(run["loss"]), (
            f"claim: the {name} loss is finite, got {run['loss']}"
        )
    return (
        f"activations up to {bf16['peak']:.3g}: float16 (max "
        f"{torch.finfo(torch.float16).max:.0f}) -> inf, loss {fp16['loss']}; bfloat16 "
        f"loss {bf16['loss']:.3g}, float32 loss {fp32['loss']:.3g}"
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
