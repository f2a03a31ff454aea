"""Flipped preference data looks healthy on the training metrics; only a trusted eval set shows margins < 0.

Page: docs/preference/dpo-rewards-both-move.md (中文: docs/preference/dpo-rewards-both-move.zh.md)
Run:  python snippets/preference/dpo-rewards-both-move.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# two short DPO runs per seed (~2 s): two seeds keep the suite inside its budget
SEEDS = (0, 1)

from handbook.toydata import PREFERENCE_PAIRS as PAIRS  # (prompt, chosen, rejected)


def train_dpo(seed: int, train_pairs, trusted_pairs) -> dict:
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import DPOConfig, DPOTrainer

    runner.setup(seed)
    path = runner.model_path(seed)
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path).to(runner.device())

    def to_ds(pairs):
        return Dataset.from_list([{"prompt": p, "chosen": c, "rejected": r} for p, c, r in pairs])

    args = runner.config(DPOConfig, seed, per_device_train_batch_size=len(train_pairs))
    trainer = DPOTrainer(
        model=model, args=args, train_dataset=to_ds(train_pairs), eval_dataset=to_ds(trusted_pairs),
        processing_class=tokenizer,
    )
    trainer.train()
    ev = trainer.evaluate()  # logs eval_rewards/* on the trusted (correctly labelled) pairs
    return {
        "train_margins": runner.history(trainer, "rewards/margins"),
        "train_accuracies": runner.last(trainer, "rewards/accuracies"),
        "train_chosen": runner.last(trainer, "rewards/chosen"),
        "train_rejected": runner.last(trainer, "rewards/rejected"),
        "eval_margins": ev["eval_rewards/margins"],
        "eval_accuracies": ev["eval_rewards/accuracies"],
    }


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    """Every pair has chosen and rejected swapped (a column mix-up during data preparation)."""
    flipped = [(p, r, c) for p, c, r in PAIRS]
    return train_dpo(seed, flipped, trusted_pairs=PAIRS)
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """Correct labels. Health is judged on rewards/margins + rewards/accuracies of a trusted eval split,
    not on whether rewards/chosen goes up."""
    return train_dpo(seed, PAIRS, trusted_pairs=PAIRS)
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    bad, good = symptom(seed), fix(seed)
    for run in (bad, good):
        # on the TRAINING metrics both runs look the same: margin grows, accuracy 1.0, chosen up, rejected down
        assert run["train_margins"][-1] > run["train_margins"][1] > 0, "train margin should grow in both runs"
        assert run["train_accuracies"] == 1.0, "train rewards/accuracies should reach 1.0 in both runs"
        assert run["train_chosen"] > 0 > run["train_rejected"], "the train-metric picture should be identical"
    # only the trusted eval split tells them apart
    assert bad["eval_margins"] < 0 and bad["eval_accuracies"] <= 0.25, f"flipped data: eval margin {bad['eval_margins']:.3f}"
    assert good["eval_margins"] > 0 and good["eval_accuracies"] >= 0.75, f"clean data: eval margin {good['eval_margins']:.3f}"
    return (
        f"train margins {bad['train_margins'][-1]:.2f} (flipped) vs {good['train_margins'][-1]:.2f} (clean), "
        f"but eval_rewards/margins {bad['eval_margins']:+.2f} vs {good['eval_margins']:+.2f}, "
        f"eval_rewards/accuracies {bad['eval_accuracies']:.2f} vs {good['eval_accuracies']:.2f}"
    )
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
