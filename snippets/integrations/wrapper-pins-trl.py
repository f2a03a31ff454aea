"""A framework built on TRL (ms-swift, LLaMA-Factory, axolotl, unsloth) run on a TRL
release it was not written for: its subclasses hit the config fields, trainer
attributes and column names that release removed. check_pins() compares the TRL
range the framework declares with the installed TRL.

Page: docs/integrations/wrapper-pins-trl.md
中文: docs/integrations/wrapper-pins-trl.zh.md
"""

# --8<-- [start:symptom]
from dataclasses import dataclass

import torch
from trl import DPOTrainer, GRPOConfig


# Stand-ins named after the classes in the reports: a framework extends TRL's
# config with fields of its own and passes it what the TRL it was written for took.
@dataclass
class AxolotlGRPOConfig(GRPOConfig):
    framework_option: int = 1


class CustomDPOTrainer(DPOTrainer):
    # framework code that reads an attribute TRL's own __init__ used to set
    def uses_reference_model(self) -> bool:
        return not self.reference_free


try:
    AxolotlGRPOConfig(max_prompt_length=512, bf16=torch.cuda.is_available())
except TypeError as error:  # TRL >= 0.28
    print(f"TypeError: {error}")
# --8<-- [end:symptom]


# --8<-- [start:fix]
import importlib.metadata

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

BOUNDED = {"<", "<=", "==", "===", "~="}  # operators that set a ceiling


def check_pins(dist, packages=("trl", "transformers")):
    """The TRL (and transformers) range a framework release declares, against the
    installed versions, one line each; a last FIX line when one is outside.
    `dist` is the framework's pip name."""
    release = importlib.metadata.version(dist)
    report, wanted = [], []
    for line in importlib.metadata.requires(dist) or []:
        pin = Requirement(line)
        name = canonicalize_name(pin.name)
        if name not in packages:
            continue
        if pin.marker and not pin.marker.evaluate({"extra": ""}):
            continue  # an optional extra, or another Python
        try:
            have = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            have = None
        if have is None or not pin.specifier.contains(have, prereleases=True):
            found = have or "not installed"
            report.append(f"MISMATCH {name} {found}: {dist} {release} requires {pin}")
            wanted.append(f'"{pin}"')
        elif not {spec.operator for spec in pin.specifier} & BOUNDED:
            report.append(f"OK {name} {have}: {dist} {release} sets no ceiling ({pin})")
        else:
            report.append(f"OK {name} {have}: {dist} {release} requires {pin}")
    if wanted:
        report.append(f'FIX: pip install "{dist}=={release}" ' + " ".join(wanted))
    return report


framework = "ms-swift"  # or llamafactory, axolotl, unsloth, ...
try:
    print("\n".join(check_pins(framework)))
except importlib.metadata.PackageNotFoundError:
    print(f"{framework} is not installed in this environment")
# --8<-- [end:fix]


# --8<-- [start:evidence]
import inspect
import os
import pathlib
import sys
import tempfile

import trl
from datasets import Dataset
from packaging.version import Version
from transformers import set_seed
from trl import DPOConfig, GRPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
TRL = Version(trl.__version__)
TRANSFORMERS_MAIN = "git+https://github.com/huggingface/transformers.git@main"
PAIRS = Dataset.from_list(
    [
        {"prompt": "The sky is", "chosen": " blue.", "rejected": " green."},
        {"prompt": "Two plus two is", "chosen": " four.", "rejected": " five."},
    ]
)


def error_of(call):
    """The AttributeError or TypeError a call raises, as Python prints it."""
    try:
        call()
    except (AttributeError, TypeError) as error:
        return f"{type(error).__name__}: {error}"
    return None


def fake_dist(root, name, requires):
    """An installed distribution as pip leaves one: a dist-info folder with METADATA."""
    info = pathlib.Path(root, f"{name}-1.0.dist-info")
    info.mkdir()
    lines = ["Metadata-Version: 2.1", f"Name: {name}", "Version: 1.0"]
    lines += [f"Requires-Dist: {pin}" for pin in requires]
    (info / "METADATA").write_text("\n".join(lines) + "\n")


def trl_facts(seed):
    """What the installed TRL has of the names frameworks use (each release read)."""
    config_error = error_of(
        lambda: AxolotlGRPOConfig(max_prompt_length=512, bf16=torch.cuda.is_available())
    )
    if TRL >= Version("0.28"):
        assert config_error == (
            "TypeError: AxolotlGRPOConfig.__init__() got an unexpected keyword "
            "argument 'max_prompt_length'"
        ), f"claim: GRPOConfig lost max_prompt_length in 0.28: {config_error}"
    else:
        assert config_error is None, f"claim: {TRL} takes max_prompt_length"

    set_seed(seed)
    with tempfile.TemporaryDirectory() as out:
        dpo_args = DPOConfig(
            output_dir=out,
            report_to="none",
            save_strategy="no",
            bf16=torch.cuda.is_available(),
            seed=seed,
        )
        trainer = CustomDPOTrainer(model=MODEL, args=dpo_args, train_dataset=PAIRS)
    attribute_error = error_of(trainer.uses_reference_model)
    columns = set(trainer.train_dataset.column_names)
    old_methods = [
        m for m in ("dpo_loss", "concatenated_forward") if hasattr(trainer, m)
    ]
    if TRL >= Version("0.29"):
        assert attribute_error == (
            "AttributeError: 'CustomDPOTrainer' object has no attribute "
            "'reference_free'"
        ), f"claim: DPOTrainer sets no reference_free since 0.29: {attribute_error}"
        assert {"prompt_ids", "chosen_ids", "rejected_ids"} <= columns, (
            f"claim: DPOTrainer tokenizes to prompt_ids... since 0.29: {columns}"
        )
        assert "prompt_input_ids" not in columns, f"claim: renamed in 0.29: {columns}"
        assert old_methods == [], f"claim: removed in 0.29: {old_methods}"
    else:
        assert attribute_error is None and trainer.reference_free is False, (
            f"claim: {TRL} sets reference_free: {attribute_error}"
        )
        assert "prompt_input_ids" in columns, f"claim: {TRL} tokenizes to it: {columns}"
        assert len(old_methods) == 2, f"claim: {TRL} has both: {old_methods}"
    assert not hasattr(trainer, "get_batch_logps"), (
        "claim: DPOTrainer has no get_batch_logps (0.19 and later)"
    )
    grpo_init = inspect.getsource(GRPOTrainer.__init__)
    assert "self.temperature = args.temperature" in grpo_init, (
        "claim: GRPOTrainer.__init__ sets self.temperature (0.16 and later)"
    )
    return (
        config_error,
        attribute_error,
        sorted(columns - {"prompt", "chosen", "rejected"}),
    )


def check(seed: int = 0) -> str:
    config_error, attribute_error, columns = trl_facts(seed)

    # check_pins on real installed metadata: three dist-info folders put on sys.path,
    # read by importlib.metadata exactly like a pip-installed framework's
    installed = importlib.metadata.version("trl")
    transformers_version = importlib.metadata.version("transformers")
    with tempfile.TemporaryDirectory() as root:
        fake_dist(root, "fakeframework", ["trl<0.19", "transformers<6,>=4.33", "numpy"])
        fake_dist(root, "fakeframework_ok", ["trl<2,>=0.19", 'trl[vllm]; extra == "x"'])
        fake_dist(  # ms-swift 2.5.2's TRL pin; open-r1's transformers pin (setup.py)
            root,
            "fakeframework_open",
            ["trl>=0.11.0", f"transformers @ {TRANSFORMERS_MAIN}"],
        )
        sys.path.insert(0, root)
        try:
            bad = check_pins("fakeframework")
            good = check_pins("fakeframework_ok")
            open_ended = check_pins("fakeframework_open")
        finally:
            sys.path.remove(root)
    assert bad == [
        f"MISMATCH trl {installed}: fakeframework 1.0 requires trl<0.19",
        f"OK transformers {transformers_version}: fakeframework 1.0 requires "
        "transformers<6,>=4.33",
        'FIX: pip install "fakeframework==1.0" "trl<0.19"',
    ], f"claim: check_pins names the TRL outside the declared range: {bad}"
    assert good == [
        f"OK trl {installed}: fakeframework_ok 1.0 requires trl<2,>=0.19"
    ], f"claim: a range that holds the installed TRL passes, extras skipped: {good}"
    no_ceiling = "fakeframework_open 1.0 sets no ceiling"
    assert open_ended[0] == f"OK trl {installed}: {no_ceiling} (trl>=0.11.0)", (
        f"claim: a pin with no ceiling is named as such: {open_ended}"
    )
    url_pin = open_ended[1]  # packaging releases differ in the spaces around '@'
    assert (
        url_pin.startswith(f"OK transformers {transformers_version}: {no_ceiling}")
        and TRANSFORMERS_MAIN in url_pin
        and len(open_ended) == 2
    ), f"claim: a pin on a git branch sets no ceiling either: {open_ended}"
    assert not any(str(root) in p for p in sys.path), "claim: sys.path cleaned up"
    return (
        f"TRL {TRL}: {config_error}; {attribute_error}; DPO columns {columns}; "
        f"check_pins: {bad[0]}; {bad[-1]}"
    )


SEEDS = (0,)  # one seed: names, signatures and metadata; the model is only built

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
