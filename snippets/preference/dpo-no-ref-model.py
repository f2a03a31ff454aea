"""DPO with neither `ref_model` nor PEFT: no NaN in TRL 1.16, but the reference is reloaded from disk.

Page: docs/preference/dpo-no-ref-model.md (中文: docs/preference/dpo-no-ref-model.zh.md)
Run:  python snippets/preference/dpo-no-ref-model.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

SEEDS = (0, 1, 2)


# --8<-- [start:run]
def pairs():
    from datasets import Dataset

    return Dataset.from_list(
        [
            {"prompt": "What is two plus two?", "chosen": " Four.", "rejected": " Five."},
            {"prompt": "Capital of France?", "chosen": " Paris.", "rejected": " Rome."},
        ]
        * 4
    )


def first_step(model, seed: int = 0, **trainer_kwargs) -> dict:
    """One DPO step; return the first logged loss/margin and the trainer."""
    from trl import DPOConfig, DPOTrainer

    args = runner.config(DPOConfig, seed, max_steps=1)
    trainer = DPOTrainer(model=model, args=args, train_dataset=pairs(), **trainer_kwargs)
    trainer.train()
    return {
        "loss": runner.last(trainer, "loss"),
        "margin": runner.last(trainer, "rewards/margins"),
        "has_ref_copy": trainer.ref_model is not None,
    }
# --8<-- [end:run]


# --8<-- [start:fact]
def no_ref_no_peft(seed: int = 0) -> dict:
    """What the seed says is NaN: a fresh model, no ref_model, no peft_config."""
    runner.setup(seed)
    return first_step(runner.model_path(seed), seed)
# --8<-- [end:fact]


# --8<-- [start:symptom]
def edited_in_memory(seed: int = 0) -> dict:
    """The real trap: the policy was changed in this process (an SFT step you did not save, a merge, a
    patch) and DPO builds its reference by reloading `config._name_or_path` from disk."""
    import torch
    from transformers import AutoModelForCausalLM

    runner.setup(seed)
    model = AutoModelForCausalLM.from_pretrained(runner.model_path(seed))
    with torch.no_grad():  # stand-in for "I fine-tuned it a bit before DPO, in the same script"
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.05)
    return first_step(model, seed)
# --8<-- [end:symptom]


# --8<-- [start:fix]
def saved_first(seed: int = 0) -> dict:
    """Save the edited policy and hand DPO the path: policy and reference now start identical."""
    import tempfile

    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    runner.setup(seed)
    model = AutoModelForCausalLM.from_pretrained(runner.model_path(seed))
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.05)
    path = tempfile.mkdtemp(prefix="sft-out-")
    model.save_pretrained(path)
    AutoTokenizer.from_pretrained(runner.model_path(seed)).save_pretrained(path)
    return first_step(path, seed)


def same_object_is_refused(seed: int = 0) -> str:
    """Passing the policy as its own reference is refused up front."""
    from transformers import AutoModelForCausalLM

    runner.setup(seed)
    model = AutoModelForCausalLM.from_pretrained(runner.model_path(seed))
    try:
        first_step(model, seed, ref_model=model)
    except ValueError as e:
        return str(e)
    return ""
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    import math

    fresh, edited, saved = no_ref_no_peft(seed), edited_in_memory(seed), saved_first(seed)
    ln2 = math.log(2)
    assert fresh["has_ref_copy"], "without PEFT, TRL 1.16 should build a separate reference model"
    assert math.isfinite(fresh["loss"]) and abs(fresh["loss"] - ln2) < 1e-4, f"first loss {fresh['loss']}, not ln 2"
    assert abs(fresh["margin"]) < 1e-4, "policy == reference at step 1, so the reward margin must be 0"
    assert abs(edited["loss"] - ln2) > 10 * abs(saved["loss"] - ln2), "reloaded reference should differ"
    assert abs(edited["margin"]) > 10 * max(abs(saved["margin"]), 1e-6)
    assert abs(saved["loss"] - ln2) < 1e-4
    assert "cannot be the same object" in same_object_is_refused(seed)
    return (
        f"no ref, no PEFT: first loss {fresh['loss']:.4f} (= ln 2, finite); edited in memory: "
        f"first loss {edited['loss']:.4f}, margin {edited['margin']:+.3g}; saved then passed by path: "
        f"{saved['loss']:.4f}, margin {saved['margin']:+.1g}"
    )
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
