"""Loss stuck at ln(vocab size) means "predicting uniformly"; pad = eos does not cause it in TRL 1.16.

Page: docs/sft/loss-near-ln-vocab.md (中文: docs/sft/loss-near-ln-vocab.zh.md)
Run:  python snippets/sft/loss-near-ln-vocab.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# training runs cost > 1 s per seed, so the suite runs two seeds (seeds 0-2 pass; re-checked 2026-12-02)
SEEDS = (0, 1)

import math

QA = [
    {"text": "What is the capital of France? The capital of France is Paris."},
    {"text": "Two plus two equals four."},
]


def _train(seed: int, learning_rate: float, steps: int) -> dict:
    from datasets import Dataset
    from transformers import AutoTokenizer
    from trl import SFTConfig, SFTTrainer

    runner.setup(seed)
    path = runner.model_path(seed)
    tok = AutoTokenizer.from_pretrained(path)
    args = runner.config(SFTConfig, seed, learning_rate=learning_rate, max_steps=steps, lr_scheduler_type="constant")
    trainer = SFTTrainer(model=path, args=args, train_dataset=Dataset.from_list(QA * 4), processing_class=tok)
    trainer.train()
    return {"loss": runner.history(trainer, "loss"), "entropy": runner.history(trainer, "entropy"),
            "ln_vocab": math.log(len(tok))}


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    """A model that does not learn (here: learning_rate=0) sits at ln(V) from the first to the last step."""
    return _train(seed, learning_rate=0.0, steps=2)
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """The same run with a working optimizer: the loss leaves ln(V) within a few steps."""
    return _train(seed, learning_rate=1e-2, steps=8)
# --8<-- [end:fix]


# --8<-- [start:pad-eos]
def pad_is_eos_labels(seed: int = 0) -> dict:
    """With pad_token = eos_token, does the EOS at the end of each example keep its label?"""
    from datasets import Dataset
    from transformers import AutoTokenizer
    from transformers import DataCollatorForLanguageModeling as HFCollator
    from trl import SFTConfig, SFTTrainer

    runner.setup(seed)
    path = runner.model_path(seed)
    tok = AutoTokenizer.from_pretrained(path)
    tok.pad_token = tok.eos_token  # the folklore "fix"
    trainer = SFTTrainer(
        model=path, args=runner.config(SFTConfig, seed), train_dataset=Dataset.from_list(QA), processing_class=tok
    )
    rows = [trainer.train_dataset[i] for i in range(len(QA))]
    trl_batch = trainer.data_collator([{"input_ids": r["input_ids"], "labels": r["labels"]} for r in rows])
    # The older recipe: transformers' LM collator builds labels from input_ids and masks every pad id
    hf_batch = HFCollator(tok, mlm=False)([{"input_ids": r["input_ids"]} for r in rows])
    eos = tok.eos_token_id
    return {
        "examples": len(rows),
        "eos_labelled_trl": int((trl_batch["labels"] == eos).sum()),
        "eos_labelled_hf_collator": int((hf_batch["labels"] == eos).sum()),
    }
# --8<-- [end:pad-eos]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    bad, good, pad = symptom(seed), fix(seed), pad_is_eos_labels(seed)
    ln_v = bad["ln_vocab"]
    assert all(abs(x - ln_v) / ln_v < 0.05 for x in bad["loss"]), f"lr=0 loss {bad['loss']} is not ~ln(V)={ln_v:.3f}"
    assert all(abs(h - ln_v) / ln_v < 0.05 for h in bad["entropy"]), f"entropy {bad['entropy']} is not ~ln(V)"
    assert min(good["loss"][-3:]) < 0.8 * ln_v, f"a learning run should leave ln(V): {good['loss']}"
    assert pad["eos_labelled_trl"] == pad["examples"], f"TRL masked EOS when pad=eos: {pad}"
    assert pad["eos_labelled_hf_collator"] == 0, f"transformers' collator kept EOS labels: {pad}"
    return (
        f"loss with lr=0 stays at {bad['loss'][-1]:.3f} ≈ ln(V)={ln_v:.3f}, a learning run reaches "
        f"{min(good['loss'][-3:]):.3f}; pad=eos keeps EOS labels in TRL ({pad['eos_labelled_trl']}/{pad['examples']}) "
        f"but transformers' LM collator masks them ({pad['eos_labelled_hf_collator']})"
    )
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
