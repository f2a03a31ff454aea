"""`DPOTrainer.__init__() got an unexpected keyword argument 'beta'`: training knobs live on DPOConfig, and
`max_prompt_length` is gone from DPOConfig in TRL 1.16.

Page: docs/preference/dpo-unexpected-keyword-beta.md (中文: docs/preference/dpo-unexpected-keyword-beta.zh.md)
Run:  python snippets/preference/dpo-unexpected-keyword-beta.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# no training, only constructor calls (~0.3 s)
SEEDS = (0, 1, 2)

PAIRS = [("What is the capital of France?", " Paris.", " I do not know.")] * 2


def _parts(seed: int):
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer

    runner.setup(seed)
    path = runner.model_path(seed)
    data = Dataset.from_list([{"prompt": p, "chosen": c, "rejected": r} for p, c, r in PAIRS])
    return AutoModelForCausalLM.from_pretrained(path), AutoTokenizer.from_pretrained(path), data


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    """Old-tutorial style: beta / max_length / max_prompt_length / tokenizer passed to the trainer,
    max_prompt_length to the config."""
    from trl import DPOConfig, DPOTrainer

    model, tokenizer, data = _parts(seed)
    errors = {}
    old_kwargs = {"beta": 0.1, "max_length": 512, "max_prompt_length": 128, "tokenizer": tokenizer}
    for kwarg, value in old_kwargs.items():
        try:
            DPOTrainer(model=model, train_dataset=data, **{kwarg: value})
        except TypeError as e:
            errors[f"DPOTrainer({kwarg}=...)"] = str(e)
    try:
        runner.config(DPOConfig, seed, max_prompt_length=128)
    except TypeError as e:
        errors["DPOConfig(max_prompt_length=...)"] = str(e)
    return errors
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """Everything that shapes the loss or the data goes on DPOConfig; max_length caps prompt + completion."""
    from trl import DPOConfig, DPOTrainer

    model, tokenizer, data = _parts(seed)
    args = runner.config(DPOConfig, seed, beta=0.1, max_length=512, loss_type=["sigmoid"])
    trainer = DPOTrainer(model=model, args=args, train_dataset=data, processing_class=tokenizer)
    return {"beta": trainer.beta, "max_length": trainer.args.max_length}
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    import dataclasses
    import inspect

    from trl import DPOConfig, DPOTrainer

    errors, ok = symptom(seed), fix(seed)
    assert set(errors) == {
        "DPOTrainer(beta=...)", "DPOTrainer(max_length=...)", "DPOTrainer(max_prompt_length=...)",
        "DPOTrainer(tokenizer=...)", "DPOConfig(max_prompt_length=...)",
    }, f"each old-style call should raise TypeError: {sorted(errors)}"
    assert "unexpected keyword argument 'beta'" in errors["DPOTrainer(beta=...)"]
    assert "unexpected keyword argument 'max_prompt_length'" in errors["DPOConfig(max_prompt_length=...)"]
    fields = {f.name for f in dataclasses.fields(DPOConfig)}
    assert {"beta", "max_length", "loss_type", "label_smoothing", "precompute_ref_log_probs"} <= fields
    assert not {"max_prompt_length", "max_completion_length"} & fields, "DPOConfig regained a prompt/completion cap"
    assert {"model", "ref_model", "args", "train_dataset", "processing_class", "peft_config"} <= set(
        inspect.signature(DPOTrainer.__init__).parameters
    )
    assert ok == {"beta": 0.1, "max_length": 512}
    return f"{len(errors)} old-style calls raise TypeError; DPOConfig has beta/max_length, no max_prompt_length"
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
