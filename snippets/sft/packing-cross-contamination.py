"""Packing in TRL 1.16: bfd + padding-free + per-sequence position_ids keep packed samples apart, even on CPU.

Page: docs/sft/packing-cross-contamination.md (中文: docs/sft/packing-cross-contamination.zh.md)
Run:  python snippets/sft/packing-cross-contamination.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# no training: one collated batch and three forward passes
SEEDS = (0, 1, 2)

TEXTS = [
    "The quick brown fox jumps over the lazy dog.",
    "Two plus two equals four.",
    "Answer yes or no. Yes.",
    "What is the capital of France? Paris.",
]


def _packed(seed: int, **overrides):
    from datasets import Dataset
    from transformers import AutoTokenizer
    from trl import SFTConfig, SFTTrainer

    runner.setup(seed)
    path = runner.model_path(seed)
    tok = AutoTokenizer.from_pretrained(path)
    args = runner.config(SFTConfig, seed, packing=True, max_length=64, per_device_train_batch_size=1, **overrides)
    ds = Dataset.from_list([{"text": t} for t in TEXTS])
    trainer = SFTTrainer(model=path, args=args, train_dataset=ds, processing_class=tok)
    batch = trainer.data_collator([trainer.train_dataset[0]])
    return trainer, batch


def _leak(model, batch, attention_mask=None) -> float:
    """Max |logit difference| between the packed row and each sample run on its own (0 = no leak)."""
    import torch

    ids, pos = batch["input_ids"], batch["position_ids"]
    starts = (pos[0] == 0).nonzero().flatten().tolist() + [ids.shape[1]]
    with torch.no_grad():
        kwargs = {"attention_mask": attention_mask} if attention_mask is not None else {"position_ids": pos}
        packed = model(input_ids=ids, use_cache=False, **kwargs).logits
        alone = torch.cat([model(input_ids=ids[:, a:b], use_cache=False).logits for a, b in zip(starts, starts[1:])], 1)
    return float((packed - alone).abs().max())


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    """The leak the folklore fears: the same packed row, but fed with a 2-D all-ones attention_mask
    (what a custom collator or packing_strategy="wrapped" produces)."""
    import torch

    trainer, batch = _packed(seed)
    wrapped, wrapped_batch = _packed(seed, packing_strategy="wrapped")
    model = trainer.model.eval()
    return {
        "leak": _leak(model, batch, attention_mask=torch.ones_like(batch["input_ids"])),
        "wrapped_padding_free": wrapped.padding_free,
        "wrapped_keys": sorted(wrapped_batch),
    }
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """Plain `packing=True`: TRL picks "bfd", turns padding-free on and restarts position_ids per sample."""
    trainer, batch = _packed(seed)
    pos, labels = batch["position_ids"][0], batch["labels"][0]
    return {
        "strategy": trainer.args.packing_strategy,
        "padding_free": trainer.padding_free,
        "keys": sorted(batch),
        "samples_in_row": int((pos == 0).sum()),
        "labels_at_starts": labels[pos == 0].tolist(),
        "attn": trainer.model.config._attn_implementation,
        "leak": _leak(trainer.model.eval(), batch),
    }
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    bad, good = symptom(seed), fix(seed)
    assert good["strategy"] == "bfd" and good["padding_free"], f"packing=True did not enable padding-free: {good}"
    assert "attention_mask" not in good["keys"] and "position_ids" in good["keys"], good["keys"]
    assert good["samples_in_row"] >= 2, "the row should hold several packed samples"
    assert set(good["labels_at_starts"]) == {-100}, "the first token of each packed sample must not be a target"
    assert good["leak"] < 1e-4, f"packed samples attend to each other on {good['attn']}: {good['leak']}"
    assert bad["leak"] > 1e-3, f"a 2-D mask should let packed samples see each other: {bad['leak']}"
    assert not bad["wrapped_padding_free"] and "attention_mask" in bad["wrapped_keys"], bad
    return (
        f"packing=True -> bfd + padding-free, position_ids restart per sample, leak {good['leak']:.1e} on "
        f"{good['attn']} (CPU); a 2-D all-ones mask leaks ({bad['leak']:.2f}); 'wrapped' has no padding-free"
    )
# --8<-- [end:verify]


# --8<-- [start:verify_gpu]
def verify_gpu(seed: int = 0) -> str:
    """On a GPU with flash-attn installed: the same packed row through FlashAttention-2 (varlen, cu_seqlens)."""
    import torch
    from transformers import AutoModelForCausalLM

    trainer, batch = _packed(seed)
    model = AutoModelForCausalLM.from_pretrained(
        runner.model_path(seed), attn_implementation="flash_attention_2", dtype=torch.bfloat16
    ).to("cuda").eval()
    batch = {k: v.to("cuda") if hasattr(v, "to") else v for k, v in batch.items()}
    leak = _leak(model, batch)
    assert leak < 5e-2, f"flash-attention packed row differs from the samples run alone: {leak}"
    return f"flash_attention_2 packed vs alone: max |Δlogit| {leak:.1e} (bf16)"
# --8<-- [end:verify_gpu]


if __name__ == "__main__":
    runner.verdict(True, verify())
