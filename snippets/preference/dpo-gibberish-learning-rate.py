"""DPO with a far-too-high learning rate: held-out log-likelihood collapses (the "gibberish" symptom); a sane lr keeps it.

Page: docs/preference/dpo-gibberish-learning-rate.md (中文: docs/preference/dpo-gibberish-learning-rate.zh.md)
Run:  python snippets/preference/dpo-gibberish-learning-rate.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# two short DPO runs per seed (~2 s): two seeds keep the suite inside its budget
SEEDS = (0, 1)

from handbook.toydata import PREFERENCE_PAIRS as PAIRS  # (prompt, chosen, rejected)
HELD_OUT = "The quick brown fox jumps over the lazy dog. RLHF trains a policy with a reward signal."


def held_out_nll(model, tokenizer) -> float:
    """Mean per-token negative log-likelihood of text the preference data never shows."""
    import torch

    ids = tokenizer(HELD_OUT, return_tensors="pt").input_ids.to(model.device)
    with torch.no_grad():
        return model(ids, labels=ids).loss.item()


def train_dpo(seed: int, learning_rate: float) -> dict:
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import DPOConfig, DPOTrainer

    runner.setup(seed)
    path = runner.model_path(seed)
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path).to(runner.device())
    before = held_out_nll(model, tokenizer)
    data = Dataset.from_list([{"prompt": p, "chosen": c, "rejected": r} for p, c, r in PAIRS])
    args = runner.config(DPOConfig, seed, learning_rate=learning_rate, per_device_train_batch_size=len(PAIRS))
    trainer = DPOTrainer(model=model, args=args, train_dataset=data, processing_class=tokenizer)
    trainer.train()
    return {
        "nll_before": before,
        "nll_after": held_out_nll(trainer.model, tokenizer),
        "loss": runner.history(trainer, "loss"),
        "margins": runner.last(trainer, "rewards/margins"),
    }


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    """A learning rate ~30x the one the tiny model tolerates (on a 7B model: 1e-4 instead of 1e-6)."""
    return train_dpo(seed, learning_rate=3e-2)
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """Same data, same steps, learning rate lowered ~30x (on a real model: DPOConfig's default 1e-6, or 5e-7..5e-6)."""
    return train_dpo(seed, learning_rate=1e-3)
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    import dataclasses

    from trl import DPOConfig

    default_lr = {f.name: f.default for f in dataclasses.fields(DPOConfig)}["learning_rate"]
    assert default_lr == 1e-6, "DPOConfig's default learning rate is no longer 1e-6"
    bad, good = symptom(seed), fix(seed)
    bad_drift = bad["nll_after"] - bad["nll_before"]
    good_drift = good["nll_after"] - good["nll_before"]
    # the symptom: text the pairs never mention becomes much less likely (generations turn to noise)
    assert bad_drift > 0.5, f"high lr should wreck held-out likelihood, NLL moved only {bad_drift:+.2f}"
    assert abs(good_drift) < 0.1, f"sane lr should leave held-out likelihood alone, NLL moved {good_drift:+.2f}"
    # both runs 'learn' the preference: the training metrics alone do not reveal the damage
    assert bad["margins"] > 0 and good["margins"] > 0, "both runs should separate chosen from rejected"
    return (
        f"held-out NLL {bad['nll_before']:.2f}->{bad['nll_after']:.2f} at lr 3e-2 vs "
        f"{good['nll_before']:.2f}->{good['nll_after']:.2f} at lr 1e-3; margins {bad['margins']:.2f} vs {good['margins']:.2f}"
    )
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
