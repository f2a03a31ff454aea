"""fp16 on a model trained in bf16: activations beyond float16's range turn into inf, then NaN.

Page: docs/sft/fp16-on-bf16-model.md (中文: docs/sft/fp16-on-bf16-model.zh.md)
Run:  python snippets/sft/fp16-on-bf16-model.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# three forward passes of the tiny model, no training
SEEDS = (0, 1, 2)


def _forward(seed: int, dtype_name: str, peak: float) -> dict:
    """Forward the tiny model in `dtype_name` after scaling the embeddings so their largest entry is `peak`.

    Scaling the embeddings stands in for what bf16-trained checkpoints carry: hidden states in the
    hundreds of thousands on some channels (bf16 shares float32's exponent range, fp16 stops at 65504).
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    runner.setup(seed)
    path = runner.model_path(seed)
    tok = AutoTokenizer.from_pretrained(path)
    dtype = getattr(torch, dtype_name)
    model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32).eval()
    with torch.no_grad():
        weight = model.get_input_embeddings().weight
        weight.mul_(peak / weight.abs().max())
    model = model.to(dtype)
    ids = tok("The quick brown fox jumps over the lazy dog.", return_tensors="pt").input_ids
    with torch.no_grad():
        out = model(input_ids=ids, labels=ids, output_hidden_states=True)
    hidden = torch.stack([h.float() for h in out.hidden_states])
    return {
        "dtype": dtype_name,
        "max_abs_hidden": float(hidden.abs().max()),
        "inf_in_hidden": bool(torch.isinf(hidden).any()),
        "loss": float(out.loss),
        "finfo_max": float(torch.finfo(dtype).max),
    }


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    """Large activations, computed in float16."""
    return _forward(seed, "float16", peak=2e5)
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """The same activations in bfloat16 (what the checkpoint was trained in)."""
    return _forward(seed, "bfloat16", peak=2e5)
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    import math

    bad, good = symptom(seed), fix(seed)
    assert bad["finfo_max"] == 65504.0 and good["finfo_max"] > 1e38, (bad["finfo_max"], good["finfo_max"])
    assert bad["inf_in_hidden"] and not math.isfinite(bad["loss"]), f"fp16 did not overflow: {bad}"
    assert not good["inf_in_hidden"] and math.isfinite(good["loss"]), f"bf16 overflowed: {good}"
    assert good["max_abs_hidden"] > bad["finfo_max"], "the test activations must exceed float16's range"
    return (f"activations up to {good['max_abs_hidden']:.3g} are finite in bf16 (loss {good['loss']:.3g}) but "
            f"overflow fp16's max 65504 -> loss {bad['loss']}")
# --8<-- [end:verify]


# --8<-- [start:verify_gpu]
def verify_gpu(seed: int = 0) -> str:
    """On a GPU with a real bf16 checkpoint (HANDBOOK_MODEL): 3 SFT steps with fp16=True vs bf16=True."""
    import math

    from datasets import Dataset
    from transformers import AutoTokenizer
    from trl import SFTConfig, SFTTrainer

    path = runner.model_path(seed)
    data = Dataset.from_list([{"text": "The quick brown fox jumps over the lazy dog."}] * 8)
    logs = {}
    for mode in ("fp16", "bf16"):
        args = runner.config(SFTConfig, seed, max_steps=3, bf16=mode == "bf16", fp16=mode == "fp16",
                             model_init_kwargs={"dtype": "float32"})
        trainer = SFTTrainer(model=path, args=args, train_dataset=data,
                             processing_class=AutoTokenizer.from_pretrained(path))
        trainer.train()
        logs[mode] = (runner.history(trainer, "loss"), runner.history(trainer, "grad_norm"))
    assert all(math.isfinite(g) for g in logs["bf16"][1]), f"bf16 run not finite: {logs['bf16']}"
    return f"fp16 loss/grad_norm {logs['fp16']}; bf16 {logs['bf16']}"
# --8<-- [end:verify_gpu]


if __name__ == "__main__":
    runner.verdict(True, verify())
