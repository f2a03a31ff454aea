"""label_smoothing only acts through loss_type="robust" (or exo_pair/aot) in TRL 1.16; with the default
"sigmoid" loss it is silently ignored. Noisy pairs show on a trusted eval split, not on train accuracy.

Page: docs/preference/dpo-label-smoothing-noisy-pairs.md (中文: docs/preference/dpo-label-smoothing-noisy-pairs.zh.md)
Run:  python snippets/preference/dpo-label-smoothing-noisy-pairs.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# training runs cost > 1 s per seed, so the suite runs two seeds (seeds 0-2 pass; re-checked 2026-12-02)
SEEDS = (0, 1)

CLEAN = [
    ("What is the capital of France?", " The capital of France is Paris.", " I do not know."),
    ("Two plus two equals", " four.", " nine maybe."),
    ("Answer yes or no.", " Yes.", " Maybe. I do not know."),
    ("Write a short poem about the sea.", " The sea is wide, the waves are blue.", " No."),
    ("Three times three is", " nine.", " twenty."),
    ("Say hello.", " Hello world.", " I do not know."),
]
# one third of the pairs have chosen/rejected swapped: the "noisy preferences" of the folklore
NOISY = [(p, r, c) if i % 3 == 0 else (p, c, r) for i, (p, c, r) in enumerate(CLEAN)]


def train_dpo(seed: int, pairs, **overrides) -> dict:
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import DPOConfig, DPOTrainer

    runner.setup(seed)
    path = runner.model_path(seed)
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path).to(runner.device())

    def to_ds(rows):
        return Dataset.from_list([{"prompt": p, "chosen": c, "rejected": r} for p, c, r in rows])

    args = runner.config(DPOConfig, seed, per_device_train_batch_size=len(pairs), max_steps=6, **overrides)
    trainer = DPOTrainer(
        model=model, args=args, train_dataset=to_ds(pairs), eval_dataset=to_ds(CLEAN), processing_class=tokenizer
    )
    trainer.train()
    ev = trainer.evaluate()
    return {
        "loss": runner.history(trainer, "loss"),
        "train_accuracies": runner.history(trainer, "rewards/accuracies"),
        "eval_accuracies": ev["eval_rewards/accuracies"],
    }


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    """The folklore fix as usually typed: label_smoothing=0.1 with the default loss_type ("sigmoid")."""
    return {
        "plain": train_dpo(seed, NOISY),
        "smoothed": train_dpo(seed, NOISY, label_smoothing=0.1),  # loss_type stays ["sigmoid"]
    }
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """Robust DPO: label_smoothing is the assumed flip rate, read only by loss_type="robust" (and exo_pair/aot*)."""
    return train_dpo(seed, NOISY, loss_type="robust", label_smoothing=0.1)
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    bad, robust = symptom(seed), fix(seed)
    # 1. with "sigmoid", label_smoothing changes nothing: the loss curves are identical
    assert bad["plain"]["loss"] == bad["smoothed"]["loss"], "label_smoothing should be ignored by loss_type='sigmoid'"
    # 2. with "robust" it does change the objective
    assert robust["loss"] != bad["plain"]["loss"], "loss_type='robust' should read label_smoothing"
    # 3. the first logged rewards/accuracies is 0.0 (policy == reference, ties count as wrong), so
    #    "below the starting point" cannot be read off the first log line
    assert bad["plain"]["train_accuracies"][0] == 0.0
    # 4. noisy pairs are memorised like clean ones (train accuracy 1.0); the trusted split shows the damage
    assert bad["plain"]["train_accuracies"][-1] == 1.0, "the flipped pairs should be learned as labelled"
    assert bad["plain"]["eval_accuracies"] <= 0.75, "the trusted split should expose the flipped third"
    return (
        f"sigmoid loss with/without label_smoothing identical ({bad['plain']['loss'][-1]:.4f}); robust "
        f"{robust['loss'][-1]:.4f}; trusted eval accuracy sigmoid {bad['plain']['eval_accuracies']:.2f} vs "
        f"robust {robust['eval_accuracies']:.2f}"
    )
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
