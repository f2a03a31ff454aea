"""DPO on an SFT LoRA adapter: the reference must be the SFT model, not the base
model.

Page: docs/integrations/dpo-sft-adapter-reference.md
中文: docs/integrations/dpo-sft-adapter-reference.zh.md
"""

# --8<-- [start:fix]
from peft import PeftModel
from transformers import AutoModelForCausalLM
from trl import DPOTrainer


def dpo_on_sft_adapter(base_model_id, sft_adapter_dir, dpo_config, train_dataset):
    """Keep training the SFT adapter with DPO, against a frozen copy of it."""
    base = AutoModelForCausalLM.from_pretrained(base_model_id)
    policy = PeftModel.from_pretrained(base, sft_adapter_dir, is_trainable=True)
    return DPOTrainer(
        model=policy,
        ref_model=None,  # not the base model: TRL >= 0.29 copies the adapter as "ref"
        args=dpo_config,
        train_dataset=train_dataset,
    )


def dpo_on_merged_sft(merged_dir, dpo_config, train_dataset, lora_config):
    """Or: a new adapter on the merged SFT model; the reference is that model."""
    return DPOTrainer(
        model=merged_dir,
        args=dpo_config,
        train_dataset=train_dataset,
        peft_config=lora_config,
    )


# --8<-- [end:fix]


# --8<-- [start:evidence]
import math
import os
import tempfile

import torch
from datasets import Dataset
from peft import LoraConfig
from transformers import AutoTokenizer, set_seed
from trl import DPOConfig, SFTConfig, SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
# 1 on a real model; the handbook's 2-layer test model
# needs ~300x the rate to move in a few steps
LR_SCALE = float(os.environ.get("HANDBOOK_LR_SCALE", "1"))

LORA = LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "v_proj"])
PAIRS = [
    ("What is 2+2?", "The answer is 4.", "9 8 7 6 5."),
    ("Name a colour.", "Blue is a colour.", "9 8 7 6 5."),
    ("Say hello.", "Hello there, friend.", "9 8 7 6 5."),
    ("Count to three.", "One, two, three.", "9 8 7 6 5."),
]


def common(seed, steps):
    return dict(
        output_dir=tempfile.mkdtemp(),
        per_device_train_batch_size=4,
        max_steps=steps,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )


def sft_adapter(seed, folder):
    """Stage 1: SFT with LoRA on the preferred answers, then save the adapter."""
    set_seed(seed)
    rows = [
        {
            "prompt": [{"role": "user", "content": p}],
            "completion": [{"role": "assistant", "content": chosen}],
        }
        for p, chosen, _ in PAIRS
    ]
    args = SFTConfig(**common(seed, 16), learning_rate=2e-4 * LR_SCALE, max_length=64)
    trainer = SFTTrainer(
        model=MODEL,
        args=args,
        train_dataset=Dataset.from_list(rows),
        peft_config=LORA,
    )
    trainer.train()
    trainer.save_model(folder)


def preference_rows():
    rows = [
        {
            "prompt": [{"role": "user", "content": p}],
            "chosen": [{"role": "assistant", "content": chosen}],
            "rejected": [{"role": "assistant", "content": rejected}],
        }
        for p, chosen, rejected in PAIRS
    ]
    return Dataset.from_list(rows)


def first_step(trainer):
    """DPO's first logged step: the policy has not moved yet, only the reference."""
    trainer.train()
    return next(h for h in trainer.state.log_history if "loss" in h)


def check(seed: int = 0) -> str:
    sft_dir, merged_dir = tempfile.mkdtemp(), tempfile.mkdtemp()
    sft_adapter(seed, sft_dir)
    dpo_config = DPOConfig(
        **common(seed, 2),
        learning_rate=5e-6 * LR_SCALE,
        beta=0.1,
        max_length=64,
    )
    data = preference_rows()

    # What TRL <= 0.28 and LLaMA-Factory do with a PeftModel: the reference is the
    # base model (adapter disabled). On TRL 1.16 the same happens with ref_model=base.
    set_seed(seed)
    base = AutoModelForCausalLM.from_pretrained(MODEL)
    policy = PeftModel.from_pretrained(base, sft_dir, is_trainable=True)
    vs_base = first_step(
        DPOTrainer(
            model=policy,
            ref_model=AutoModelForCausalLM.from_pretrained(MODEL),
            args=dpo_config,
            train_dataset=data,
        )
    )

    set_seed(seed)
    vs_sft = first_step(dpo_on_sft_adapter(MODEL, sft_dir, dpo_config, data))

    base = AutoModelForCausalLM.from_pretrained(MODEL)
    merged = PeftModel.from_pretrained(base, sft_dir).merge_and_unload()
    merged.save_pretrained(merged_dir)
    AutoTokenizer.from_pretrained(MODEL).save_pretrained(merged_dir)
    set_seed(seed)
    vs_merged = first_step(dpo_on_merged_sft(merged_dir, dpo_config, data, LORA))

    ln2 = math.log(2)
    for name, step in (("adapter copy", vs_sft), ("merged SFT", vs_merged)):
        assert abs(step["loss"] - ln2) < 1e-3, f"claim: {name}: step-1 loss ln 2 {step}"
        assert abs(step["rewards/margins"]) < 1e-3, f"claim: {name}: margin 0 {step}"
    assert vs_base["loss"] < ln2 - 0.005, f"claim: vs base: loss < ln 2 {vs_base}"
    assert vs_base["rewards/margins"] > 0.01, f"claim: vs base: margin > 0 {vs_base}"
    won = vs_base["rewards/accuracies"]
    assert won > 0.5, f"claim: vs base: most pairs count as won at step 1 {vs_base}"
    return (
        f"step 1 against the base model: loss {vs_base['loss']:.4f}, margin "
        f"{vs_base['rewards/margins']:.3f}, accuracy {vs_base['rewards/accuracies']}; "
        f"against the SFT adapter copy: loss {vs_sft['loss']:.4f}; against the merged "
        f"SFT model: loss {vs_merged['loss']:.4f} (ln 2 = {ln2:.4f})"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
