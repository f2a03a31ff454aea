"""The warnings a TRL 1.x run prints, where each comes from, and what silences it.

Page: docs/scale/v1-warnings-silence.md (中文: docs/scale/v1-warnings-silence.zh.md)
"""

# --8<-- [start:symptom]
import os
import subprocess
import sys


def fresh_process_warnings(code, **env):
    """The warning lines a fresh Python, with default
    warning filters, prints for `code`."""
    environment = {
        k: v for k, v in os.environ.items() if k != "TRL_EXPERIMENTAL_SILENCE"
    }
    environment |= {"PYTHONWARNINGS": "default", **env}
    run = subprocess.run(
        [sys.executable, "-c", code], env=environment, capture_output=True, text=True
    )
    return [line for line in run.stderr.splitlines() if "Warning:" in line]


# TRLExperimentalWarning: You are importing from ...
print(fresh_process_warnings("import trl.experimental"))
# --8<-- [end:symptom]


# --8<-- [start:fix]
import warnings

# before TRL is imported; exactly "1" (see Why)
os.environ["TRL_EXPERIMENTAL_SILENCE"] = "1"

from trl.import_utils import TRLExperimentalWarning  # noqa: E402

# the same for the import notice, from Python
warnings.filterwarnings("ignore", category=TRLExperimentalWarning)

# transformers >= 5.23 renamed gradient_checkpointing to activation_checkpointing and
# warns about the old name, which TRL's configs set by default. Older transformers has
# only the old name (activation_checkpointing=... is a TypeError).
import dataclasses  # noqa: E402

import torch  # noqa: E402
from transformers import TrainingArguments  # noqa: E402
from trl import SFTConfig  # noqa: E402

if "activation_checkpointing" in {
    f.name for f in dataclasses.fields(TrainingArguments)
}:
    # on, and no warning
    sft_config = SFTConfig(
        activation_checkpointing=True, bf16=torch.cuda.is_available()
    )
else:
    # nothing to warn about
    sft_config = SFTConfig(gradient_checkpointing=True, bf16=torch.cuda.is_available())
# --8<-- [end:fix]


# --8<-- [start:evidence]
import importlib

from datasets import Dataset
from trl import GRPOConfig, GRPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")


def import_notice(value):
    """Re-run trl.experimental's import-time check with
    TRL_EXPERIMENTAL_SILENCE=value (None: unset)."""
    import trl.experimental

    os.environ.pop("TRL_EXPERIMENTAL_SILENCE", None)
    if value is not None:
        os.environ["TRL_EXPERIMENTAL_SILENCE"] = value
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        importlib.reload(trl.experimental)  # a fresh import, without a fresh process
    return [w for w in caught if issubclass(w.category, TRLExperimentalWarning)]


def rollout_func_notice(value):
    """Warnings GRPOTrainer emits for an experimental rollout_func with
    TRL_EXPERIMENTAL_SILENCE=value."""
    os.environ["TRL_EXPERIMENTAL_SILENCE"] = value
    args = GRPOConfig(
        num_generations=2,
        per_device_train_batch_size=2,
        max_completion_length=4,
        max_steps=1,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        bf16=torch.cuda.is_available(),
    )
    prompts = Dataset.from_list([{"prompt": "Hi"}] * 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        GRPOTrainer(
            model=MODEL,
            reward_funcs=lambda completions, **kwargs: [0.0] * len(completions),
            args=args,
            train_dataset=prompts,
            rollout_func=lambda prompts, trainer: {},
        )
    return [w for w in caught if "rollout_func" in str(w.message)]


def check(seed: int = 0) -> str:
    # Stable trainers import trl.experimental themselves, with the notice
    # suppressed: later imports print nothing.
    assert "trl.experimental" in sys.modules, (
        "claim: importing stable TRL trainers loads trl.experimental quietly"
    )

    first = fresh_process_warnings("import trl.experimental")
    assert any("TRLExperimentalWarning" in line for line in first), (
        f"claim: a first import warns, got {first}"
    )
    silenced = fresh_process_warnings(
        "import trl.experimental", TRL_EXPERIMENTAL_SILENCE="1"
    )
    assert not silenced, (
        f"claim: TRL_EXPERIMENTAL_SILENCE=1 silences the import notice, got {silenced}"
    )

    assert import_notice(None), (
        "claim: with the variable unset, (re-)importing trl.experimental warns"
    )
    assert not import_notice("1"), "claim: '1' silences the import notice"
    assert not import_notice("0"), (
        "claim: any non-empty value, even '0', silences the import notice"
    )
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=TRLExperimentalWarning)
        os.environ.pop("TRL_EXPERIMENTAL_SILENCE", None)
        with warnings.catch_warnings(record=True) as caught:
            importlib.reload(importlib.import_module("trl.experimental"))
    assert not caught, "claim: a category filter silences the import notice too"

    assert rollout_func_notice("true"), (
        "claim: the rollout_func notice ignores values other than '1'"
    )
    assert not rollout_func_notice("1"), (
        "claim: TRL_EXPERIMENTAL_SILENCE=1 silences the rollout_func notice"
    )

    assert sft_config.gradient_checkpointing, "claim: the Fix keeps checkpointing on"
    fields = {f.name for f in dataclasses.fields(TrainingArguments)}
    # transformers >= 5.23, where the old name warns
    if "activation_checkpointing" in fields:
        with warnings.catch_warnings(record=True) as default_run:
            warnings.simplefilter("always")
            default = SFTConfig(bf16=torch.cuda.is_available())
        with warnings.catch_warnings(record=True) as fixed_run:
            warnings.simplefilter("always")
            # the Fix's line
            fixed = SFTConfig(
                activation_checkpointing=True, bf16=torch.cuda.is_available()
            )
        assert any("gradient_checkpointing" in str(w.message) for w in default_run), (
            "claim: TRL's default warns"
        )
        assert not any("checkpointing" in str(w.message) for w in fixed_run), (
            "claim: the new name does not"
        )
        assert default.gradient_checkpointing and fixed.activation_checkpointing, (
            "claim: checkpointing stays on"
        )
    else:  # older transformers: the new name does not exist, so the Fix must not use it
        try:
            SFTConfig(activation_checkpointing=True, bf16=torch.cuda.is_available())
            unknown = False
        except TypeError:
            unknown = True
        assert unknown, (
            "claim: before transformers 5.23, "
            "activation_checkpointing is an unexpected keyword"
        )
    os.environ["TRL_EXPERIMENTAL_SILENCE"] = "1"  # back to the Fix setting
    return (
        "import notice: unset warns, '1' and '0' silence; rollout_func "
        "notice: 'true' warns, '1' silences"
    )


SEEDS = (0,)  # warnings do not depend on the seed: one run is enough

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
