"""A project's own TrainingArguments subclass passed as `args=` to a TRL trainer:
SFTTrainer rebuilds it as an SFTConfig (TypeError on the project's fields, settings
attached as plain attributes dropped), DPOTrainer and GRPOTrainer stop on the TRL
fields it lacks. Subclass the TRL config, or build one from your arguments.

Page: docs/integrations/training-arguments-subclass-trl-config.md
中文: docs/integrations/training-arguments-subclass-trl-config.zh.md
"""

# --8<-- [start:symptom]
from dataclasses import dataclass, field

from transformers import TrainingArguments


@dataclass
class ProjectArguments(TrainingArguments):
    """What the project had: its own fields on top of transformers' arguments."""

    cache_dir: str | None = field(default=None, metadata={"help": "HF cache folder"})


# --8<-- [end:symptom]


# --8<-- [start:fix]
import dataclasses
from dataclasses import dataclass, field

import torch
from trl import SFTConfig


@dataclass
class ProjectSFTConfig(SFTConfig):  # was: ProjectArguments(TrainingArguments)
    """The project's own fields on top of TRL's SFT fields."""

    cache_dir: str | None = field(default=None, metadata={"help": "HF cache folder"})


sft_config = ProjectSFTConfig(
    output_dir="sft-out",
    cache_dir="/data/hf-cache",
    max_length=1024,
    learning_rate=2e-5,
    bf16=torch.cuda.is_available(),
)


def trl_config_from(args, config_cls, **trl_fields):
    """A TRL config (SFTConfig, DPOConfig, GRPOConfig ...) built from a
    TrainingArguments or a subclass: the fields TRL knows, nothing else. Pass
    the TRL-only settings (max_length, beta ...) as trl_fields."""
    names = {f.name for f in dataclasses.fields(config_cls) if f.init}
    values = {k: v for k, v in args.to_dict().items() if k in names}
    # to_dict() hides tokens ("<HUB_TOKEN>"): copy the real ones
    values.update({k: getattr(args, k) for k in values if k.endswith("_token")})
    return config_cls(**{**values, **trl_fields})


# --8<-- [end:fix]


# --8<-- [start:evidence]
import os
import tempfile

from datasets import Dataset
from transformers import set_seed
from trl import DPOConfig, DPOTrainer, GRPOTrainer, SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

TEXT = Dataset.from_dict({"text": ["The quick brown fox jumps over the dog. " * 6] * 4})
PAIRS = Dataset.from_dict(
    {
        "prompt": ["The capital of France is"],
        "chosen": [" Paris."],
        "rejected": [" Rome."],
    }
)
PROMPTS = Dataset.from_dict({"prompt": ["Say hello."]})
SHORT = 16  # the truncation length the project asks for


def length_reward(completions, **kwargs):
    return [float(len(c)) for c in completions]


def run_args(seed):
    """The same run settings for every config the check builds."""
    return dict(
        output_dir=tempfile.mkdtemp(),
        per_device_train_batch_size=2,
        max_steps=2,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )


def error_of(build):
    try:
        build()
    except (TypeError, AttributeError) as e:
        return f"{type(e).__name__}: {e}"
    return None


def longest(trainer):
    """Tokens per row in the first batch the model would see."""
    return next(iter(trainer.get_train_dataloader()))["input_ids"].shape[1]


def check(seed: int = 0) -> str:
    set_seed(seed)
    project_args = ProjectArguments(cache_dir="/data/hf-cache", **run_args(seed))

    # 1. SFTTrainer turns any TrainingArguments that is not an SFTConfig into one
    # through to_dict(): the project's own field is an unknown keyword there.
    sft_error = error_of(
        lambda: SFTTrainer(MODEL, args=project_args, train_dataset=TEXT)
    )
    assert sft_error == (
        "TypeError: SFTConfig.__init__() got an unexpected keyword argument 'cache_dir'"
    ), f"claim: SFTTrainer refuses the project's field: {sft_error}"

    # 2. DPOTrainer and GRPOTrainer convert nothing: they read TRL fields it lacks.
    dpo_error = error_of(
        lambda: DPOTrainer(MODEL, args=project_args, train_dataset=PAIRS)
    )
    grpo_error = error_of(
        lambda: GRPOTrainer(
            MODEL, reward_funcs=length_reward, args=project_args, train_dataset=PROMPTS
        )
    )
    missing = (
        "AttributeError: 'ProjectArguments' object has no attribute 'model_init_kwargs'"
    )
    assert dpo_error == grpo_error == missing, (
        f"claim: DPO and GRPO stop on a missing TRL field: {dpo_error} | {grpo_error}"
    )

    # 3. Silent: a TRL setting attached to plain TrainingArguments as an attribute
    # is not a dataclass field, so to_dict() drops it and SFTConfig's default wins.
    plain = TrainingArguments(**run_args(seed))
    plain.max_length = SHORT
    converted = SFTTrainer(MODEL, args=plain, train_dataset=TEXT)
    assert converted.args is not plain and type(converted.args) is SFTConfig, (
        "claim: the trainer works on a new SFTConfig, not on the object passed"
    )
    lost = longest(converted)
    assert converted.args.max_length == 1024 and lost > SHORT, (
        f"claim: max_length={SHORT} is lost, rows keep {lost} tokens"
    )
    # the shared fields keep transformers' values, not SFTConfig's own defaults
    default_sft = SFTConfig(bf16=torch.cuda.is_available())
    shared = (converted.args.learning_rate, converted.args.gradient_checkpointing)
    assert (
        shared
        == (5e-5, False)
        != (
            default_sft.learning_rate,
            default_sft.gradient_checkpointing,
        )
    ), f"claim: transformers' learning_rate and gradient_checkpointing: {shared}"

    # 4. Fix: the project's config subclasses SFTConfig. The trainer keeps the very
    # object, the project's field and the truncation length, and trains.
    config = dataclasses.replace(sft_config, max_length=SHORT, **run_args(seed))
    trainer = SFTTrainer(MODEL, args=config, train_dataset=TEXT)
    assert trainer.args is config and trainer.args.cache_dir == "/data/hf-cache", (
        "claim: the subclass is used as it is, cache_dir included"
    )
    kept = longest(trainer)
    assert kept <= SHORT, f"claim: rows cut to {SHORT}: {kept}"
    trainer.train()
    losses = [row["loss"] for row in trainer.state.log_history if "loss" in row]
    assert len(losses) == 2, f"claim: the fixed run trains: {losses}"

    # 5. Fix for a project that keeps one arguments class for several trainers:
    # build each TRL config from it. DPOTrainer accepts the result.
    dpo_config = trl_config_from(project_args, DPOConfig, beta=0.1)
    dpo = DPOTrainer(MODEL, args=dpo_config, train_dataset=PAIRS)
    assert type(dpo.args) is DPOConfig and dpo.args.beta == 0.1, "claim: DPO builds"
    assert dpo.args.max_steps == project_args.max_steps == 2, "claim: settings kept"
    return (
        f"{sft_error}; DPO/GRPO: {dpo_error}; attribute max_length={SHORT} lost "
        f"(rows {lost} tokens); fix: subclass keeps cache_dir, rows "
        f"<= {kept}, losses {[round(x, 3) for x in losses]}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
