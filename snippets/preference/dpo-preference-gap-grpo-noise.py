"""DPO learns only from the tokens where chosen and rejected differ: near-identical pairs give a much smaller
log-ratio gap than clearly different ones. GRPO, by contrast, consumes reward functions, not pairs.

Page: docs/preference/dpo-preference-gap-grpo-noise.md (中文: docs/preference/dpo-preference-gap-grpo-noise.zh.md)
Run:  python snippets/preference/dpo-preference-gap-grpo-noise.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# two short DPO runs per seed (~2 s): two seeds keep the suite inside its budget
SEEDS = (0, 1)

CLEAR = [
    ("What is the capital of France?", " The capital of France is Paris.", " I do not know."),
    ("Two plus two equals", " four.", " nine maybe."),
    ("Answer yes or no.", " Yes.", " Maybe. I do not know."),
    ("Write a short poem about the sea.", " The sea is wide, the waves are blue.", " No."),
]
# same prompts, chosen and rejected differ by one word at the end
NEAR_IDENTICAL = [
    ("What is the capital of France?", " The capital of France is Paris.", " The capital of France is Rome."),
    ("Two plus two equals", " Two plus two equals four.", " Two plus two equals nine."),
    ("Answer yes or no.", " Answer: yes.", " Answer: no."),
    ("Write a short poem about the sea.", " The sea is wide, the waves are blue.", " The sea is wide, the waves are red."),
]


def train_dpo(seed: int, pairs) -> dict:
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import DPOConfig, DPOTrainer

    runner.setup(seed)
    path = runner.model_path(seed)
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path).to(runner.device())
    data = Dataset.from_list([{"prompt": p, "chosen": c, "rejected": r} for p, c, r in pairs])
    args = runner.config(DPOConfig, seed, per_device_train_batch_size=len(pairs))
    trainer = DPOTrainer(model=model, args=args, train_dataset=data, processing_class=tokenizer)
    trainer.train()
    return {
        "logratio_gap": runner.last(trainer, "rewards/margins") / args.beta,
        "loss": runner.last(trainer, "loss"),
        "accuracies": runner.last(trainer, "rewards/accuracies"),
    }


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    """Pairs whose answers are almost the same: the shared tokens cancel exactly in chosen - rejected."""
    return train_dpo(seed, NEAR_IDENTICAL)
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """Pairs with a clear difference (after filtering out near-ties, e.g. by a reward-model score gap)."""
    return train_dpo(seed, CLEAR)
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    import inspect

    from trl import GRPOTrainer

    near, clear = symptom(seed), fix(seed)
    assert near["accuracies"] == clear["accuracies"] == 1.0, "both sets are learned in the direction of the labels"
    assert near["logratio_gap"] < 0.6 * clear["logratio_gap"], (
        f"near-identical pairs should move the policy less: {near['logratio_gap']:.2f} vs {clear['logratio_gap']:.2f}"
    )
    assert near["loss"] > clear["loss"], "and leave more loss on the table after the same steps"
    # GRPO is fed prompts and reward functions; there is no chosen/rejected input to be noisy
    assert "reward_funcs" in inspect.signature(GRPOTrainer.__init__).parameters
    return (
        f"log-ratio gap after 8 steps: near-identical {near['logratio_gap']:.2f} vs clear {clear['logratio_gap']:.2f}; "
        f"loss {near['loss']:.3f} vs {clear['loss']:.3f}"
    )
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
