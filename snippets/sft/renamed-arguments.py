"""Old SFTTrainer arguments after an upgrade: the TypeErrors TRL 1.16 raises and where each argument went.

Page: docs/sft/renamed-arguments.md (中文: docs/sft/renamed-arguments.zh.md)
Run:  python snippets/sft/renamed-arguments.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# fact checks: signatures and the errors raised before any model work
SEEDS = (0, 1, 2)

# old call -> where it lives in TRL 1.16
MAPPING = {
    ("SFTTrainer", "tokenizer"): ("SFTTrainer", "processing_class"),
    ("SFTConfig", "max_seq_length"): ("SFTConfig", "max_length"),
    ("SFTTrainer", "max_seq_length"): ("SFTConfig", "max_length"),
    ("SFTTrainer", "dataset_text_field"): ("SFTConfig", "dataset_text_field"),
    ("SFTTrainer", "packing"): ("SFTConfig", "packing"),
    ("SFTTrainer", "dataset_kwargs"): ("SFTConfig", "dataset_kwargs"),
    ("SFTTrainer", "dataset_num_proc"): ("SFTConfig", "dataset_num_proc"),
}


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    """Call TRL 1.16 the old way and collect the error messages users paste."""
    from trl import SFTConfig, SFTTrainer

    runner.setup(seed)
    errors = {}
    for (where, name), _ in MAPPING.items():
        try:
            if where == "SFTConfig":
                SFTConfig(output_dir="/tmp/handbook-renamed", use_cpu=True, bf16=False, **{name: 512})
            else:
                SFTTrainer(model=runner.model_path(seed), **{name: None})
        except TypeError as e:
            errors[(where, name)] = str(e)
    return errors
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """Where each argument lives now (read from the installed signatures)."""
    import dataclasses
    import inspect

    from trl import SFTConfig, SFTTrainer

    homes = {
        "SFTConfig": {f.name for f in dataclasses.fields(SFTConfig)},
        "SFTTrainer": set(inspect.signature(SFTTrainer.__init__).parameters),
    }
    found = {new: new[1] in homes[new[0]] for new in MAPPING.values()}
    found[("SFTTrainer", "formatting_func")] = "formatting_func" in homes["SFTTrainer"]  # stayed on the trainer
    found[("SFTTrainer", "peft_config")] = "peft_config" in homes["SFTTrainer"]
    found[("default", "dataset_text_field=text")] = SFTConfig.__dataclass_fields__["dataset_text_field"].default == "text"
    found[("default", "max_length=1024")] = SFTConfig.__dataclass_fields__["max_length"].default == 1024
    return found
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    bad, good = symptom(seed), fix(seed)
    for (where, name) in MAPPING:
        msg = bad.get((where, name), "")
        assert f"got an unexpected keyword argument '{name}'" in msg, f"{where}({name}=...) no longer raises: {msg!r}"
    assert all(good.values()), f"a new home is missing: {good}"
    return f"{len(bad)} old spellings raise TypeError; processing_class / SFTConfig.max_length etc. exist"
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
