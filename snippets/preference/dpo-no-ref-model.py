"""DPO with neither `ref_model` nor PEFT: no NaN in TRL 0.29 to 1.16, but the reference
is reloaded from disk, so a policy edited in memory starts against a stale reference.

Page: docs/preference/dpo-no-ref-model.md
中文: docs/preference/dpo-no-ref-model.zh.md
"""

# --8<-- [start:symptom]
import os

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")


def edited_in_memory():
    """Stand-in for "I fine-tuned it a bit before DPO, in the
    same script, and did not save it"."""
    model = AutoModelForCausalLM.from_pretrained(MODEL)
    with torch.no_grad():
        for param in model.parameters():
            param.mul_(1 + 0.1 * torch.randn_like(param))
    return model


# --8<-- [end:symptom]


# --8<-- [start:fix]
def save_for_dpo(model, tokenizer, directory):
    """Save the policy you want DPO to start from; pass the returned
    path as DPOTrainer(model=...)."""
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


# --8<-- [end:fix]


# --8<-- [start:evidence]
import math
import tempfile

from datasets import Dataset
from transformers import set_seed
from trl import DPOConfig, DPOTrainer

PAIRS = Dataset.from_list(
    [
        {"prompt": "What is two plus two?", "chosen": " Four.", "rejected": " Five."},
        {"prompt": "Capital of France?", "chosen": " Paris.", "rejected": " Rome."},
    ]
    * 4
)


def first_step(model, seed, **trainer_kwargs):
    """One DPO step; return the first logged loss and margin, and
    whether TRL built a reference copy."""
    args = DPOConfig(
        max_steps=1,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    trainer = DPOTrainer(model=model, args=args, train_dataset=PAIRS, **trainer_kwargs)
    trainer.train()
    first = trainer.state.log_history[0]
    return first["loss"], first["rewards/margins"], trainer.ref_model is not None


def check(seed: int = 0) -> str:
    ln2 = math.log(2)
    set_seed(seed)
    # no ref_model, no peft_config
    fresh_loss, fresh_margin, has_ref_copy = first_step(MODEL, seed)
    assert has_ref_copy, "claim: without PEFT, TRL builds a separate reference model"
    assert math.isfinite(fresh_loss) and abs(fresh_loss - ln2) < 1e-4, (
        f"claim: first loss is ln 2, got {fresh_loss}"
    )
    assert abs(fresh_margin) < 1e-4, (
        f"claim: policy == reference at step 1, margin 0, got {fresh_margin}"
    )

    set_seed(seed)
    edited_loss, edited_margin, _ = first_step(edited_in_memory(), seed)
    set_seed(seed)
    with tempfile.TemporaryDirectory() as directory:
        path = save_for_dpo(
            edited_in_memory(), AutoTokenizer.from_pretrained(MODEL), directory
        )
        saved_loss, saved_margin, _ = first_step(path, seed)
    assert abs(saved_loss - ln2) < 1e-4, (
        f"claim: saved and passed by path, the first loss is ln 2, got {saved_loss}"
    )
    assert abs(edited_loss - ln2) > 10 * max(abs(saved_loss - ln2), 1e-6), (
        "claim: an in-memory edit meets a stale "
        f"reference: first loss {edited_loss:.4f}"
    )
    assert abs(edited_margin) > 10 * max(abs(saved_margin), 1e-6), (
        "claim: an in-memory edit gives a non-zero margin before "
        f"any update: {edited_margin:.3g}"
    )

    model = AutoModelForCausalLM.from_pretrained(MODEL)
    try:
        first_step(model, seed, ref_model=model)
    except ValueError as e:
        refused = str(e)
    else:
        refused = ""
    assert "cannot be the same object" in refused, (
        "claim: the policy cannot be its own ref_model"
    )
    return (
        f"no ref, no PEFT: first loss {fresh_loss:.4f} (= ln 2, finite); edited in "
        f"memory: first loss {edited_loss:.4f}, margin {edited_margin:+.3g}; saved "
        f"then passed by path: {saved_loss:.4f}, margin {saved_margin:+.1g}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
