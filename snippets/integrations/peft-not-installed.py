"""peft_config with peft missing, broken or installed too late: TRL fails when the
trainer is built (which error depends on the release) and never trains without the
adapter; a guard at the top of the script fails first, with the cause.

Page: docs/integrations/peft-not-installed.md
中文: docs/integrations/peft-not-installed.zh.md
"""

# --8<-- [start:fix]
# The first lines of the training script, above any import of trl:
from peft import LoraConfig  # peft missing, or too old/new for transformers: fails here
from transformers.utils import is_peft_available  # the check TRL's trainers use

if not is_peft_available():  # peft was installed after TRL was imported
    raise RuntimeError("TRL was imported without peft: restart Python, then rerun")

peft_config = LoraConfig(
    r=16,
    lora_alpha=32,
    lora_dropout=0.05,
    target_modules="all-linear",
    task_type="CAUSAL_LM",
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import inspect
import json
import os
import subprocess
import sys
import tempfile

import torch
import trl
from datasets import Dataset
from packaging.version import Version
from transformers import set_seed
from trl import DPOConfig, DPOTrainer, GRPOConfig, GRPOTrainer, SFTConfig, SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

# TRL >= 1.4 (huggingface/trl#5664): the same error from SFT, DPO and GRPO
NOT_INSTALLED = (
    "ImportError: You passed `peft_config` but the `peft` library is not installed. "
    "Install it with `pip install trl[peft]`."
)


def build_trainers(model_id, peft_config):
    """SFTTrainer, DPOTrainer and GRPOTrainer on model_id, each given peft_config:
    {name: the trainer, or the error its constructor raised}."""
    rows = ["Name a colour.", "Say hello.", "Count to three.", "What is 2+2?"]
    common = dict(
        output_dir=tempfile.mkdtemp(),
        per_device_train_batch_size=2,
        save_strategy="no",
        report_to="none",
        bf16=torch.cuda.is_available(),
    )
    builders = {
        "SFT": lambda: SFTTrainer(
            model=model_id,
            args=SFTConfig(**common, max_length=32),
            train_dataset=Dataset.from_dict({"text": rows}),
            peft_config=peft_config,
        ),
        "DPO": lambda: DPOTrainer(
            model=model_id,
            args=DPOConfig(**common, max_length=32),
            train_dataset=Dataset.from_dict(
                {"prompt": rows, "chosen": [" Yes."] * 4, "rejected": [" No."] * 4}
            ),
            peft_config=peft_config,
        ),
        "GRPO": lambda: GRPOTrainer(
            model=model_id,
            reward_funcs=lambda completions, **kwargs: [0.0] * len(completions),
            args=GRPOConfig(**common, num_generations=2, max_completion_length=8),
            train_dataset=Dataset.from_dict({"prompt": rows}),
            peft_config=peft_config,
        ),
    }
    built = {}
    for name, build in builders.items():
        try:
            built[name] = build()
        except Exception as error:  # what the user sees, whatever its class
            built[name] = f"{type(error).__name__}: {error}"
    return built


# A fresh Python in which peft cannot be imported (a None entry in sys.modules makes
# `import peft` fail, as if it were not installed) before anything imports trl; it
# runs the same build_trainers as this process.
WITHOUT_PEFT = f"""
import json, sys, tempfile
sys.modules["peft"] = None
import torch
from datasets import Dataset
from transformers.utils import is_peft_available
from trl import DPOConfig, DPOTrainer, GRPOConfig, GRPOTrainer, SFTConfig, SFTTrainer
from trl import ModelConfig, get_peft_config

seen = {{"trl_sees_peft": is_peft_available()}}
try:  # what `trl sft --use_peft` and TRL's example scripts call
    get_peft_config(ModelConfig(model_name_or_path=sys.argv[1], use_peft=True))
except Exception as error:
    seen["get_peft_config"] = f"{{type(error).__name__}}: {{error}}"
try:
    from peft import LoraConfig
except ImportError as error:
    seen["user_import"] = type(error).__name__

del sys.modules["peft"]  # `pip install peft` in the running notebook: importable now
from peft import LoraConfig
seen["trl_sees_peft_after_install"] = is_peft_available()
{inspect.getsource(build_trainers)}
peft_config = LoraConfig(
    r=16, lora_alpha=32, lora_dropout=0.05, target_modules="all-linear",
    task_type="CAUSAL_LM",
)
built = build_trainers(sys.argv[1], peft_config)
seen["trainers"] = {{
    name: got if isinstance(got, str) else "built" for name, got in built.items()
}}
print(json.dumps(seen))
"""


def without_peft():
    """What the child process saw (one JSON line on its stdout)."""
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_PEFT, MODEL], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def check(seed: int = 0) -> str:
    set_seed(seed)
    seen = without_peft()
    assert seen["trl_sees_peft"] is False, f"claim: TRL sees no peft: {seen}"
    assert seen["user_import"] == "ModuleNotFoundError", seen
    assert seen["get_peft_config"] == (
        "ValueError: You need to have PEFT library installed in your environment, "
        "make sure to install `peft`. Make sure to run `pip install -U peft`."
    ), f"claim: --use_peft without peft is a ValueError: {seen}"
    assert seen["trl_sees_peft_after_install"] is False, (
        f"claim: installing peft in the running process changes nothing: {seen}"
    )
    errors = seen["trainers"]
    for name, error in errors.items():
        assert error != "built" and "peft" in error.lower(), (
            f"claim: {name}Trainer refuses the peft_config, naming peft: {error}"
        )
    if Version(trl.__version__) >= Version("1.4"):
        assert set(errors.values()) == {NOT_INSTALLED}, (
            f"claim: one ImportError from all three trainers: {errors}"
        )

    # The fix: peft importable before trl. The same trainers build with the adapter.
    counts = {}
    for name, trainer in build_trainers(MODEL, peft_config).items():
        assert not isinstance(trainer, str), f"{name}: {trainer}"
        params = list(trainer.model.named_parameters())
        trainable = sum(p.numel() for _, p in params if p.requires_grad)
        lora = sum(p.numel() for n, p in params if ".default." in n and "lora_" in n)
        assert trainable == lora > 0, (
            f"claim: {name} trains the LoRA weights and only them: {trainable} {lora}"
        )
        counts[name] = f"{trainable} of {sum(p.numel() for _, p in params)}"
    return (
        f"without peft: get_peft_config -> ValueError; trainers -> {errors}; "
        f"with peft: trainable = LoRA parameters {counts}"
    )


SEEDS = (0,)  # one seed: the claim is an error at construction, not training dynamics

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
