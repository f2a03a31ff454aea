"""Where DPO's "double memory" comes from and the two ways to drop the reference copy: a
PEFT adapter (reference = adapter disabled) or precompute_ref_log_probs=True (since
TRL 1.2, outside FSDP, no reference model is ever loaded: the policy computes the
reference log-probs before training; 0.29 to 1.1 still load one).

Page: docs/preference/dpo-memory-reference-model.md
中文: docs/preference/dpo-memory-reference-model.zh.md
"""

# --8<-- [start:fix]
import torch
from peft import LoraConfig  # pip install "trl[peft]"
from trl import DPOConfig

# (a) LoRA: DPOTrainer(..., peft_config=peft_config) and no ref_model; the
# reference pass turns the adapter off
peft_config = LoraConfig(
    r=8, lora_alpha=16, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM"
)
# (b) full fine-tuning: the policy computes the reference log-probs
# once, before training (TRL >= 1.2)
dpo_config = DPOConfig(precompute_ref_log_probs=True, bf16=torch.cuda.is_available())
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import math
import os
from unittest import mock

import trl.trainer.dpo_trainer
from datasets import Dataset
from packaging.version import Version
from transformers import AutoModelForCausalLM, set_seed
from trl import DPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

PAIRS = Dataset.from_list(
    [
        {
            "prompt": "What is the capital of France?",
            "chosen": " Paris.",
            "rejected": " I do not know.",
        },
        {
            "prompt": "Two plus two equals",
            "chosen": " four.",
            "rejected": " nine maybe.",
        },
    ]
)


def build(seed, peft_config=None, precompute=False):
    """Construct a DPOTrainer; return it and how many models it loaded
    itself (the policy is passed as an object, so every model
    DPOTrainer loads is a reference model)."""
    set_seed(seed)
    args = dataclasses.replace(
        dpo_config,
        # the Fix's (b) only where asked; (a) and the baseline keep a reference
        precompute_ref_log_probs=precompute,
        # a usual LoRA rate; the 3-step LoRA check below must move the adapter
        learning_rate=1e-4,
        max_steps=3,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
    )
    policy = AutoModelForCausalLM.from_pretrained(MODEL)
    loader = trl.trainer.dpo_trainer.create_model_from_path
    with mock.patch.object(
        trl.trainer.dpo_trainer, "create_model_from_path", wraps=loader
    ) as load:
        trainer = DPOTrainer(
            model=policy, args=args, train_dataset=PAIRS, peft_config=peft_config
        )
    return trainer, load.call_count


def weight_bytes(module):
    return (
        0
        if module is None
        else sum(p.numel() * p.element_size() for p in module.parameters())
    )


def check(seed: int = 0) -> str:
    full, full_loads = build(seed)
    lora, lora_loads = build(seed, peft_config=peft_config)
    pre, pre_loads = build(seed, precompute=True)
    total = {
        name: weight_bytes(t.model) + weight_bytes(t.ref_model)
        for name, t in (("full", full), ("lora", lora))
    }
    trainable = {
        name: sum(p.numel() for p in t.model.parameters() if p.requires_grad)
        for name, t in (("full", full), ("lora", lora))
    }

    assert full_loads == 1 and weight_bytes(full.ref_model) == weight_bytes(
        full.model
    ), "claim: full fine-tuning loads a second, full-size copy as reference"
    assert lora_loads == 0 and lora.ref_model is None, (
        "claim: with a PEFT model DPOTrainer loads no reference model"
    )
    assert trainable["lora"] < 0.1 * trainable["full"], (
        "claim: LoRA trains a small fraction of the weights"
    )
    assert total["lora"] < 0.6 * total["full"], (
        f"claim: LoRA without a reference copy ~halves weight memory: {total}"
    )
    # TRL 0.29 to 1.1 load and keep the copy anyway
    drops_ref = Version(trl.__version__) >= Version("1.2")
    assert (pre_loads, pre.ref_model is None) == (
        (0, True) if drops_ref else (1, False)
    ), (
        "claim: since TRL 1.2 precompute_ref_log_probs never loads a "
        f"reference model: {pre_loads} loaded"
    )
    assert {"ref_chosen_logps", "ref_rejected_logps"} <= set(
        pre.train_dataset.column_names
    ), "claim: the reference log-probs are stored in the dataset"
    lora.train()  # three steps: the adapter-off reference pass really runs
    losses = [row["loss"] for row in lora.state.log_history if "loss" in row]
    assert abs(losses[0] - math.log(2)) < 1e-4, (
        f"claim: at step 0 policy and reference agree (ln 2): {losses}"
    )
    assert losses[-1] < math.log(2) - 1e-4, (
        f"claim: the reference stays put while the adapter learns: {losses}"
    )
    return (
        f"reference models loaded: full {full_loads}, LoRA {lora_loads}, precompute "
        f"{pre_loads}; weights in memory: full {total['full'] / 1e6:.2f} MB (policy + "
        f"ref), LoRA {total['lora'] / 1e6:.2f} MB, precompute "
        f"{(weight_bytes(pre.model) + weight_bytes(pre.ref_model)) / 1e6:.2f} MB; LoRA "
        f"loss {losses[0]:.4f} -> {losses[-1]:.4f}"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
