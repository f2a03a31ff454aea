"""TRL installed out of step with transformers (or accelerate, datasets, peft): read
TRL's own Requires-Dist and name every installed package outside it.

Page: docs/integrations/trl-transformers-out-of-step.md
中文: docs/integrations/trl-transformers-out-of-step.zh.md
"""

# --8<-- [start:fix]
import importlib.metadata

from packaging.requirements import Requirement
from packaging.version import Version


def check_stack(requires=None, versions=None, extras=("peft", "vllm", "deepspeed")):
    """Every installed package outside the range the installed TRL declares.

    `requires` and `versions` default to the installed TRL and packages; pass
    them to test another release's requirements or another stack.
    """
    if requires is None:
        requires = importlib.metadata.requires("trl") or []
    problems = []
    for line in requires:
        req = Requirement(line)
        envs = [{"extra": e} for e in ("", *extras)]
        if req.marker and not any(req.marker.evaluate(env) for env in envs):
            continue  # an extra you did not ask for, or another Python
        optional = req.marker is not None and "extra" in str(req.marker)
        try:
            if versions is not None:
                installed = versions[req.name]
            else:
                installed = importlib.metadata.version(req.name)
        except (KeyError, importlib.metadata.PackageNotFoundError):
            if not optional:
                problems.append(f"{req.name} is missing: TRL requires {req}")
            continue
        if not req.specifier.contains(Version(installed), prereleases=True):
            problems.append(
                f"{req.name} {installed} is outside TRL's range {req.specifier}"
            )
    return problems


for problem in check_stack():  # at the top of a training script, or in a notebook
    print(problem)  # nothing printed: the stack is inside what TRL declares
# --8<-- [end:fix]


# --8<-- [start:evidence]
import transformers
import trl
from transformers import Trainer, TrainingArguments

# TRL's core Requires-Dist for transformers, accelerate, datasets and its `peft` extra,
# read in the METADATA file of each release's wheel (pip download --no-deps).
DECLARED = {
    "0.11.4": ["transformers>=4.40.0", "accelerate", "datasets", "peft>=0.8.0"],
    "0.12.1": [
        "transformers>=4.46.0",
        "accelerate>=0.34.0",
        "datasets>=2.21.0",
        "peft>=0.8.0",
    ],
    "0.12.2": [
        "transformers<4.47.0",
        "accelerate>=0.34.0",
        "datasets>=2.21.0",
        "peft>=0.8.0",
    ],
    "0.14.0": [
        "transformers>=4.46.0",
        "accelerate>=0.34.0",
        "datasets>=2.21.0",
        "peft>=0.8.0",
    ],
    "0.19.1": [
        "transformers>=4.51.0",
        "accelerate>=1.4.0",
        "datasets>=3.0.0",
        "peft>=0.8.0",
    ],
    "0.29.1": [
        "transformers>=4.56.2",
        "accelerate>=1.4.0",
        "datasets>=3.0.0",
        "peft>=0.8.0",
    ],
    "1.16.0": [
        "transformers>=4.56.2",
        "accelerate>=1.10.1",
        "datasets>=4.7.0",
        "peft>=0.13.0",
    ],
}
# the stack of shibing624/MedicalGPT#444 (transformers 4.45.2 with TRL 0.14.0)
OLD_STACK = {
    "transformers": "4.45.2",
    "accelerate": "1.2.0",
    "datasets": "3.2.0",
    "peft": "0.9.0",
}
PEFT_EXTRA = ("peft",)


def as_extra(lines):
    """The DECLARED lines as they stand in METADATA: peft under its extra."""
    return [f'{x}; extra == "peft"' if x.startswith("peft") else x for x in lines]


def error_of(factory, **kwargs):
    """What a transformers class raises when called with these keywords."""
    try:
        factory(**kwargs)
    except Exception as e:  # noqa: BLE001 - the error text is the observation
        return f"{type(e).__name__}: {e}"
    return None


def check(seed: int = 0) -> str:
    # 1. The installed stack is inside what the installed TRL declares.
    here = check_stack()
    assert here == [], f"claim: the installed stack is in TRL's range: {here}"
    mine = [r for r in importlib.metadata.requires("trl") if "extra" not in r]
    if trl.__version__ in DECLARED:
        for line in DECLARED[trl.__version__]:
            name = Requirement(line).name
            read = [r for r in importlib.metadata.requires("trl") if r.startswith(name)]
            assert line in [r.split(";")[0] for r in read], f"claim: {line} in {read}"
    assert any(r.startswith("transformers>=") for r in mine), f"floor: {mine}"

    # 2. An out-of-step stack is named, with the range: TRL 0.14.0 on 4.45.2.
    old = check_stack(as_extra(DECLARED["0.14.0"]), OLD_STACK, PEFT_EXTRA)
    expected = "transformers 4.45.2 is outside TRL's range >=4.46.0"
    assert old == [expected], f"claim: only transformers is named, with range: {old}"
    fresh = dict(OLD_STACK, transformers="4.46.0")
    fixed = check_stack(as_extra(DECLARED["0.14.0"]), fresh, PEFT_EXTRA)
    assert fixed == [], f"claim: transformers 4.46.0 satisfies TRL 0.14.0: {fixed}"
    too_old_peft = dict(OLD_STACK, peft="0.12.0")
    peft_report = check_stack(as_extra(DECLARED["1.16.0"]), too_old_peft, PEFT_EXTRA)
    assert "peft 0.12.0 is outside TRL's range >=0.13.0" in peft_report, peft_report

    # 3. What metadata cannot see: TRL 0.12.2 declares no transformers floor, and
    # no TRL release declares a ceiling that excludes transformers 5.
    hole = check_stack(as_extra(DECLARED["0.12.2"]), OLD_STACK, PEFT_EXTRA)
    assert hole == [], f"claim: 0.12.2 accepts transformers 4.45.2: {hole}"
    here_versions = {
        n: importlib.metadata.version(n)
        for n in ("transformers", "accelerate", "datasets", "peft")
    }
    for release in ("0.11.4", "0.19.1", "0.29.1"):
        old_trl = check_stack(as_extra(DECLARED[release]), here_versions, PEFT_EXTRA)
        assert old_trl == [], f"claim: TRL {release}'s metadata accepts: {old_trl}"

    # 4. The symptom's mechanism on the installed transformers: a keyword the
    # installed Trainer / TrainingArguments does not have is a TypeError at the call.
    # Without a model, a keyword Trainer knows gets past the call to its own check.
    known = error_of(Trainer, processing_class=None)
    assert known.startswith("RuntimeError: `Trainer` requires"), f"known: {known}"
    trainer_error = error_of(Trainer, tokenizer=None)
    assert trainer_error == (
        "TypeError: Trainer.__init__() got an unexpected keyword argument 'tokenizer'"
    ), f"claim: transformers 5 refuses tokenizer=: {trainer_error}"
    args_error = error_of(
        TrainingArguments, output_dir="out", evaluation_strategy="steps"
    )
    assert args_error == (
        "TypeError: TrainingArguments.__init__() got an unexpected keyword argument "
        "'evaluation_strategy'"
    ), f"claim: a removed field is the same TypeError: {args_error}"
    return (
        f"TRL {trl.__version__} on transformers {transformers.__version__}: "
        f"{len(here)} problems; TRL 0.14.0 on 4.45.2: {old}; TRL 0.12.2 on 4.45.2: "
        f"{hole} (no floor declared); {trainer_error}"
    )


SEEDS = (0,)  # one seed: package metadata and signatures, no training

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
