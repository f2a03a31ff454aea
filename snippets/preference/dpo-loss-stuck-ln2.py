"""DPO loss frozen at 0.6931 (= ln 2) with every reward 0: truncation leaves chosen and rejected identical.

Page: docs/preference/dpo-loss-stuck-ln2.md (中文: docs/preference/dpo-loss-stuck-ln2.zh.md)
Run:  python snippets/preference/dpo-loss-stuck-ln2.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# two short DPO runs per seed (~2 s): two seeds keep the suite inside its budget
SEEDS = (0, 1)

# long prompts; the two answers agree on a long opening and differ only at the end
PROMPT = "Write a short poem about the sea. " * 2
PAIRS = [
    (PROMPT, " The sea is wide, the waves are blue, the gulls fly high. Yes.", " The sea is wide, the waves are blue, the gulls fly high. No."),
    (PROMPT + "Two plus two?", " The sea is wide, the waves are blue, the answer is four.", " The sea is wide, the waves are blue, the answer is nine."),
]


def train_dpo(seed: int, max_length: int | None) -> dict:
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import DPOConfig, DPOTrainer

    runner.setup(seed)
    path = runner.model_path(seed)
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path).to(runner.device())
    data = Dataset.from_list([{"prompt": p, "chosen": c, "rejected": r} for p, c, r in PAIRS])
    args = runner.config(DPOConfig, seed, max_length=max_length, max_steps=5, per_device_train_batch_size=len(PAIRS))
    trainer = DPOTrainer(model=model, args=args, train_dataset=data, processing_class=tokenizer)
    batch = trainer.data_collator([trainer.train_dataset[i] for i in range(len(PAIRS))])
    ids, mask = batch["input_ids"], batch["completion_mask"]
    n = len(PAIRS)
    kept_chosen = [ids[i][mask[i].bool()].tolist() for i in range(n)]
    kept_rejected = [ids[n + i][mask[n + i].bool()].tolist() for i in range(n)]
    trainer.train()
    return {
        "prompt_tokens": max(len(x) for x in trainer.train_dataset["prompt_ids"]),
        "identical_after_truncation": all(c == r for c, r in zip(kept_chosen, kept_rejected)),
        "loss": runner.history(trainer, "loss"),
        "margins": runner.history(trainer, "rewards/margins"),
        "chosen": runner.history(trainer, "rewards/chosen"),
    }


def kept_rows(seed: int, max_length: int) -> int:
    """TRL 1.16 drops rows whose prompt alone reaches max_length (the old way to get an empty completion)."""
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import DPOConfig, DPOTrainer

    path = runner.model_path(seed)
    rows = [{"prompt": p, "chosen": c, "rejected": r} for p, c, r in PAIRS] + [{"prompt": "Hi", "chosen": " Yes.", "rejected": " No."}]
    args = runner.config(DPOConfig, seed, max_length=max_length, max_steps=1)
    trainer = DPOTrainer(
        model=AutoModelForCausalLM.from_pretrained(path), args=args, train_dataset=Dataset.from_list(rows),
        processing_class=AutoTokenizer.from_pretrained(path),
    )
    return len(trainer.train_dataset)


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    """max_length cuts every sequence inside the part chosen and rejected share."""
    return train_dpo(seed, max_length=64)
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """max_length large enough to keep the tokens where the answers differ (or None: no truncation)."""
    return train_dpo(seed, max_length=None)
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    import math

    bad, good = symptom(seed), fix(seed)
    assert bad["prompt_tokens"] < 64, "the prompt alone must fit, otherwise TRL 1.16 drops the example instead"
    assert bad["identical_after_truncation"], "after truncation chosen and rejected should be the same tokens"
    assert all(abs(x - math.log(2)) < 1e-4 for x in bad["loss"]), f"loss should sit at ln 2: {bad['loss']}"
    assert all(m == 0.0 for m in bad["margins"]), "rewards/margins should stay exactly 0"
    assert any(c != 0.0 for c in bad["chosen"]), "rewards/chosen itself still moves (shared tokens are trained)"
    assert not good["identical_after_truncation"] and good["loss"][-1] < 0.69, "the fix should let the loss fall"
    assert good["margins"][-1] > 0
    assert kept_rows(seed, max_length=30) == 1, "rows whose prompt fills max_length should be dropped, not kept empty"
    return f"loss {bad['loss'][-1]:.4f} (max_length=64, margins 0) vs {good['loss'][-1]:.4f} (max_length=None)"
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
