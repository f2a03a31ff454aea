"""SimPO/CPO (trl.experimental.cpo) with a prompt that fills max_length: empty completion, NaN loss and rewards.

Page: docs/preference/simpo-cpo-nan-prompt-fills-max-length.md (中文: docs/preference/simpo-cpo-nan-prompt-fills-max-length.zh.md)
Run:  python snippets/preference/simpo-cpo-nan-prompt-fills-max-length.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# training runs cost > 1 s per seed, so the suite runs two seeds (seeds 0-2 pass; re-checked 2026-12-02)
SEEDS = (0, 1)

PAIRS = [
    ("Write a short poem about the sea. " * 2, " The sea is wide.", " No."),
    ("Answer yes or no. " * 4, " Yes.", " Maybe. I do not know."),
]


def train_simpo(seed: int, max_length: int, **overrides) -> dict:
    import warnings

    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer

    with warnings.catch_warnings():  # importing trl.experimental warns that the API may change
        warnings.simplefilter("ignore")
        from trl.experimental.cpo import CPOConfig, CPOTrainer

    runner.setup(seed)
    path = runner.model_path(seed)
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path).to(runner.device())
    data = Dataset.from_list([{"prompt": p, "chosen": c, "rejected": r} for p, c, r in PAIRS])
    args = runner.config(
        CPOConfig, seed, loss_type="simpo", cpo_alpha=0.0, max_length=max_length, max_steps=3,
        per_device_train_batch_size=len(PAIRS), **overrides,
    )
    trainer = CPOTrainer(model=model, args=args, train_dataset=data, processing_class=tokenizer)
    trainer.train()
    import torch

    return {
        "weights_finite": all(torch.isfinite(p).all().item() for p in trainer.model.parameters()),
        "loss": runner.history(trainer, "loss"),
        "margins": runner.history(trainer, "rewards/margins"),
        "chosen": runner.history(trainer, "rewards/chosen"),
        "prompt_tokens": max(len(tokenizer(p).input_ids) for p, _, _ in PAIRS),
    }


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    """max_length (prompt + completion) no longer than the longest prompt: that completion is cut to nothing."""
    return train_simpo(seed, max_length=40)
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """max_length with room for the completions (or filter out pairs whose prompt alone is too long)."""
    return train_simpo(seed, max_length=128)
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    import math

    bad, good = symptom(seed), fix(seed)
    assert bad["prompt_tokens"] >= 40, "the symptom needs a prompt that fills max_length"
    # SimPO averages log-probs over completion tokens: 0 tokens -> 0/0 -> NaN, and NaN spreads to the batch
    assert all(math.isnan(x) for x in bad["chosen"]), f"rewards/chosen should be NaN: {bad['chosen']}"
    # the logged loss is 0.0, not NaN (the Trainer skips the non-finite step's loss), so it looks "converged"
    assert all(x == 0.0 for x in bad["loss"]), f"logged loss should read 0.0: {bad['loss']}"
    # the real loss is NaN: the Trainer's logging_nan_inf_filter=True (default) replaces it in the logs
    raw = train_simpo(seed, max_length=40, logging_nan_inf_filter=False)
    assert all(math.isnan(x) for x in raw["loss"]), f"unfiltered loss should be NaN: {raw['loss']}"
    assert not bad["weights_finite"], "NaN gradients should have corrupted the weights"
    assert not any(math.isnan(x) for x in good["loss"] + good["chosen"]), "with room for completions: finite"
    assert good["weights_finite"]
    assert good["margins"][-1] > good["margins"][0], "and the SimPO margin grows"
    return f"max_length=40: loss {bad['loss']}, rewards/chosen NaN; max_length=128: loss {good['loss'][-1]:.3f}"
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
