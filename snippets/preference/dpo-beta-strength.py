"""What beta really changes in DPO: the reward scale and how fast the loss saturates, far more than how far
the policy moves (log-ratio drift) in a short Adam run.

Page: docs/preference/dpo-beta-strength.md (中文: docs/preference/dpo-beta-strength.zh.md)
Run:  python snippets/preference/dpo-beta-strength.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# two short DPO runs per seed (~2 s): two seeds keep the suite inside its budget
SEEDS = (0, 1)

from handbook.toydata import PREFERENCE_PAIRS as PAIRS  # (prompt, chosen, rejected)


def train_dpo(seed: int, beta: float) -> dict:
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import DPOConfig, DPOTrainer

    runner.setup(seed)
    path = runner.model_path(seed)
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path).to(runner.device())
    data = Dataset.from_list([{"prompt": p, "chosen": c, "rejected": r} for p, c, r in PAIRS])
    args = runner.config(DPOConfig, seed, beta=beta, per_device_train_batch_size=len(PAIRS))
    trainer = DPOTrainer(model=model, args=args, train_dataset=data, processing_class=tokenizer)
    trainer.train()
    margins = runner.last(trainer, "rewards/margins")
    return {
        "loss": runner.history(trainer, "loss"),
        "margins": margins,  # = beta * (chosen log-ratio - rejected log-ratio)
        "logratio_gap": margins / beta,  # how far the policy really moved, beta divided out
    }


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    """A large beta (2.0): the run a user would call 'barely changes' / 'gap grows slowly' under the folklore."""
    return train_dpo(seed, beta=2.0)
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """The default beta 0.1. Compare log-ratios (rewards / beta), not raw rewards, across betas."""
    return train_dpo(seed, beta=0.1)
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    big, small = symptom(seed), fix(seed)
    # rewards/margins is scaled by beta: large beta shows a much LARGER gap, not a slower one
    assert big["margins"] > 5 * small["margins"], "rewards/margins should scale with beta"
    # large beta drives the loss to ~0 quickly; small beta keeps it near ln 2 longer
    assert big["loss"][-1] < 0.1 < 0.4 < small["loss"][-1], "large beta should saturate the sigmoid loss fast"
    # ...yet the policy's actual movement from the reference (log-ratio gap) is of the same order
    ratio = big["logratio_gap"] / small["logratio_gap"]
    assert 0.6 < ratio <= 1.0, f"log-ratio drift should be similar, slightly smaller for large beta: ratio {ratio:.2f}"
    return (
        f"beta 2.0 vs 0.1: rewards/margins {big['margins']:.2f} vs {small['margins']:.2f}, final loss "
        f"{big['loss'][-1]:.3f} vs {small['loss'][-1]:.3f}, log-ratio gap {big['logratio_gap']:.2f} vs {small['logratio_gap']:.2f}"
    )
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
