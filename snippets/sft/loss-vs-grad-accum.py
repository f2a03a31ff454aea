"""Does the logged SFT loss scale with gradient_accumulation_steps in TRL 1.16? Measure it.

Page: docs/sft/loss-vs-grad-accum.md (中文: docs/sft/loss-vs-grad-accum.zh.md)
Run:  python snippets/sft/loss-vs-grad-accum.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# training runs cost > 1 s per seed, so the suite runs two seeds (seeds 0-2 pass; re-checked 2026-12-02)
SEEDS = (0, 1)

TEXTS = [  # different lengths on purpose: per-token averaging across micro-batches matters
    "The quick brown fox jumps over the lazy dog.",
    "Two plus two equals four.",
    "Answer yes or no. Yes.",
    "What is the capital of France? The capital of France is Paris.",
]


def _run(seed: int, batch_size: int, grad_accum: int) -> list[float]:
    from datasets import Dataset
    from transformers import AutoTokenizer
    from trl import SFTConfig, SFTTrainer

    runner.setup(seed)
    path = runner.model_path(seed)
    tok = AutoTokenizer.from_pretrained(path)
    args = runner.config(SFTConfig, seed, per_device_train_batch_size=batch_size,
                         gradient_accumulation_steps=grad_accum, max_steps=1, learning_rate=0.0)
    ds = Dataset.from_list([{"text": t} for t in TEXTS])
    trainer = SFTTrainer(model=path, args=args, train_dataset=ds, processing_class=tok)
    trainer.train()
    return runner.history(trainer, "loss")


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    """The reported setup: 4 micro-batches of 1, accumulated (effective batch 4)."""
    return {"loss": _run(seed, batch_size=1, grad_accum=4)}
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """The reference: one batch of 4, no accumulation (same effective batch, same examples)."""
    return {"loss": _run(seed, batch_size=4, grad_accum=1)}
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    ga, ref = symptom(seed)["loss"][0], fix(seed)["loss"][0]
    ratio = ga / ref
    assert abs(ratio - 1) < 1e-3, f"logged loss with GA=4 is {ratio:.3f}x the GA=1 loss (would be ~4x if scaled)"
    return f"GA=4×bs1 logs {ga:.4f}, GA=1×bs4 logs {ref:.4f} (ratio {ratio:.4f}): no scaling in TRL 1.16"
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
