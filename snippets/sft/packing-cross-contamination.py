"""Packing in TRL (0.29 to 1.16): bfd + padding-free + per-sequence position_ids keep
packed samples apart, even on CPU.

Page: docs/sft/packing-cross-contamination.md
中文: docs/sft/packing-cross-contamination.zh.md
"""

# --8<-- [start:fix]
import torch
from trl import SFTConfig


def packed_config(seed=0, **overrides):
    """packing=True, packing_strategy left at "bfd", no data_collator: TRL
    switches padding-free on by itself."""
    return SFTConfig(
        packing=True,
        max_length=64,
        seed=seed,
        bf16=torch.cuda.is_available(),
        save_strategy="no",
        **overrides,
    )


# --8<-- [end:fix]


# --8<-- [start:evidence]
import os

from datasets import Dataset
from transformers import set_seed
from trl import SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

TEXTS = [
    "The quick brown fox jumps over the lazy dog.",
    "Two plus two equals four.",
    "Answer yes or no. Yes.",
    "What is the capital of France? Paris.",
]


def packed_row(seed, **overrides):
    """Build the trainer (nothing is trained) and collate its first packed
    row, as the training loop would."""
    set_seed(seed)
    dataset = Dataset.from_list([{"text": text} for text in TEXTS])
    trainer = SFTTrainer(
        model=MODEL, args=packed_config(seed, **overrides), train_dataset=dataset
    )
    batch = trainer.data_collator([trainer.train_dataset[0]])
    return trainer, {
        k: v.to(trainer.model.device) if torch.is_tensor(v) else v
        for k, v in batch.items()
    }


def leak(model, batch, attention_mask=None):
    """Max |logit difference| between the packed row and each of its
    samples run alone (0 = no leak)."""
    ids, positions = batch["input_ids"], batch["position_ids"]
    starts = (positions[0] == 0).nonzero().flatten().tolist() + [ids.shape[1]]
    inputs = (
        {"attention_mask": attention_mask}
        if attention_mask is not None
        else {"position_ids": positions}
    )
    with torch.no_grad():
        packed = model(input_ids=ids, use_cache=False, **inputs).logits.float()
        alone = [
            model(input_ids=ids[:, a:b], use_cache=False).logits.float()
            for a, b in zip(starts, starts[1:])
        ]
    return (packed - torch.cat(alone, dim=1)).abs().max().item()


def check(seed: int = 0) -> str:
    trainer, batch = packed_row(seed)
    positions, labels = batch["position_ids"][0], batch["labels"][0]
    assert trainer.args.packing_strategy == "bfd" and trainer.padding_free, (
        "claim: packing=True turns padding-free on"
    )
    assert "attention_mask" not in batch and "position_ids" in batch, (
        f"claim: position_ids, no mask: {sorted(batch)}"
    )
    assert (positions == 0).sum() >= 2, "claim: one row holds several packed samples"
    assert set(labels[positions == 0].tolist()) == {-100}, (
        "claim: no sample's first token is a target"
    )
    model = trainer.model.eval()
    clean = leak(model, batch)
    assert clean < 1e-3, (
        "claim: packed samples do not see each other on "
        f"{model.config._attn_implementation}: {clean}"
    )

    leaky = leak(model, batch, attention_mask=torch.ones_like(batch["input_ids"]))
    assert leaky > 1e-2, (
        f"claim: a 2-D all-ones mask lets packed samples see each other: {leaky}"
    )
    wrapped, wrapped_batch = packed_row(seed, packing_strategy="wrapped")
    assert not wrapped.padding_free and "attention_mask" in wrapped_batch, (
        "claim: 'wrapped' emits a 2-D mask"
    )
    return (
        f"packing=True -> bfd + padding-free, {int((positions == 0).sum())} samples in "
        f"the row, max |Δlogit| {clean:.1e} on {model.config._attn_implementation}; a "
        f"2-D all-ones mask: {leaky:.2f}; 'wrapped': mask, no padding-free"
    )


def check_gpu(seed: int = 0) -> str:
    """With flash-attn installed: the same packed row through
    FlashAttention-2 (varlen kernel, cu_seq_lens)."""
    flash = {"attn_implementation": "flash_attention_2", "dtype": torch.bfloat16}
    trainer, batch = packed_row(seed, model_init_kwargs=flash)
    model = trainer.model.eval()
    clean = leak(model, batch)
    leaky = leak(model, batch, attention_mask=torch.ones_like(batch["input_ids"]))
    assert clean < leaky / 10, (
        "claim: flash-attention keeps packed samples apart: "
        f"{clean} vs {leaky} with a 2-D mask"
    )
    return (
        f"flash_attention_2 (bf16) packed vs alone: max |Δlogit| {clean:.1e}; with "
        f"a 2-D all-ones mask {leaky:.2f}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
