"""`DPOTrainer.__init__() got an unexpected keyword argument 'beta'`: training knobs
live on DPOConfig, and `max_prompt_length` is gone from DPOConfig since TRL 0.29.

Page: docs/preference/dpo-unexpected-keyword-beta.md
中文: docs/preference/dpo-unexpected-keyword-beta.zh.md
"""

# --8<-- [start:fix]
import torch
from trl import DPOConfig

args = DPOConfig(
    beta=0.1,  # was DPOTrainer(beta=...)
    # caps prompt + completion together; there is no max_prompt_length any more
    max_length=512,
    loss_type=["sigmoid"],
    save_strategy="no",
    bf16=torch.cuda.is_available(),
)
# then: DPOTrainer(model=..., args=args, train_dataset=...,
# processing_class=tokenizer)  # was tokenizer=...
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import inspect
import os

from datasets import Dataset
from transformers import AutoTokenizer, set_seed
from trl import DPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

PAIRS = Dataset.from_list(
    [
        {
            "prompt": "What is the capital of France?",
            "chosen": " Paris, a city on the Seine.",
            "rejected": " I do not know.",
        }
    ]
    * 2
)


def old_style_errors(tokenizer):
    """The calls older tutorials make; return the TypeError message of each."""
    errors = {}
    old_kwargs = {
        "beta": 0.1,
        "max_length": 512,
        "max_prompt_length": 128,
        "tokenizer": tokenizer,
    }
    for kwarg, value in old_kwargs.items():
        try:
            DPOTrainer(model=MODEL, args=args, train_dataset=PAIRS, **{kwarg: value})
        except TypeError as e:
            errors[f"DPOTrainer({kwarg}=...)"] = str(e)
    try:
        DPOConfig(max_prompt_length=128, bf16=torch.cuda.is_available())
    except TypeError as e:
        errors["DPOConfig(max_prompt_length=...)"] = str(e)
    return errors


def check(seed: int = 0) -> str:
    set_seed(seed)
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    errors = old_style_errors(tokenizer)
    assert len(errors) == 5, (
        f"claim: each of the 5 old-style calls raises TypeError, got {sorted(errors)}"
    )
    assert "unexpected keyword argument 'beta'" in errors["DPOTrainer(beta=...)"], (
        "claim: beta is not a trainer arg"
    )
    assert (
        "unexpected keyword argument 'max_prompt_length'"
        in errors["DPOConfig(max_prompt_length=...)"]
    ), "claim: DPOConfig has no max_prompt_length"
    fields = {f.name for f in dataclasses.fields(DPOConfig)}
    assert {
        "beta",
        "max_length",
        "loss_type",
        "label_smoothing",
        "precompute_ref_log_probs",
    } <= fields, "claim: the training knobs are DPOConfig fields"
    assert not {"max_prompt_length", "max_completion_length"} & fields, (
        "claim: no separate prompt/completion cap"
    )
    params = set(inspect.signature(DPOTrainer.__init__).parameters)
    assert {
        "model",
        "ref_model",
        "args",
        "train_dataset",
        "processing_class",
        "peft_config",
    } <= params, "claim: the tokenizer goes in processing_class"

    # the Fix, as is
    trainer = DPOTrainer(
        model=MODEL, args=args, train_dataset=PAIRS, processing_class=tokenizer
    )
    prompt_len = len(trainer.train_dataset[0]["prompt_ids"])
    short = DPOConfig(
        max_length=prompt_len + 2, save_strategy="no", bf16=torch.cuda.is_available()
    )
    trainer = DPOTrainer(
        model=MODEL,
        args=short,
        train_dataset=PAIRS,
        eval_dataset=PAIRS,
        processing_class=tokenizer,
    )
    # the sequence width the model really sees (where the cut
    # happens differs between TRL releases)
    widths = []
    embed = trainer.model.get_input_embeddings().register_forward_hook(
        lambda m, i, out: widths.append(out.shape[1])
    )
    trainer.evaluate()  # forward passes only
    embed.remove()
    assert len(trainer.train_dataset[0]["chosen_ids"]) > 2 and set(widths) == {
        prompt_len + 2
    }, f"claim: max_length caps prompt + completion together: widths {set(widths)}"
    return (
        f"{len(errors)} old-style calls raise TypeError; the DPOConfig version "
        f"builds; max_length={prompt_len + 2} keeps the {prompt_len}-token "
        "prompt and 2 completion tokens"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
