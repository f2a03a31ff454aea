"""Continuing a saved LoRA adapter: PeftModel.from_pretrained loads it frozen
unless is_trainable=True.

Page: docs/integrations/peft-adapter-loaded-frozen.md
中文: docs/integrations/peft-adapter-loaded-frozen.zh.md
"""

# --8<-- [start:fix]
from peft import PeftModel
from transformers import AutoModelForCausalLM


def load_adapter_to_continue(base_model_id, adapter_dir):
    """The base model with a saved LoRA adapter whose weights train further."""
    base = AutoModelForCausalLM.from_pretrained(base_model_id)
    policy = PeftModel.from_pretrained(base, adapter_dir, is_trainable=True)
    trainable = sum(p.numel() for p in policy.parameters() if p.requires_grad)
    assert trainable > 0, "the adapter is frozen: load it with is_trainable=True"
    return policy  # pass it as model=..., with peft_config=None


# --8<-- [end:fix]


# --8<-- [start:evidence]
import os
import tempfile

import torch
from datasets import Dataset
from peft import LoraConfig
from transformers import set_seed
from trl import DPOConfig, DPOTrainer, GRPOConfig, GRPOTrainer, SFTConfig, SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
# 1 on a real model; the handbook's 2-layer test model
# needs ~300x the rate to move in a few steps
LR_SCALE = float(os.environ.get("HANDBOOK_LR_SCALE", "1"))

LORA = LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "v_proj"])
PROMPTS = ["What is 2+2?", "Name a colour.", "Say hello.", "Count to three."]


def common(seed):
    return dict(
        output_dir=tempfile.mkdtemp(),
        per_device_train_batch_size=4,
        max_steps=2,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )


def sft_adapter(seed, folder):
    """Stage 1, as users run it: SFT with a LoRA peft_config, then save the adapter."""
    set_seed(seed)
    rows = [
        {
            "prompt": [{"role": "user", "content": p}],
            "completion": [{"role": "assistant", "content": "Sure: " + p}],
        }
        for p in PROMPTS
    ]
    args = SFTConfig(**common(seed), learning_rate=2e-4 * LR_SCALE, max_length=64)
    trainer = SFTTrainer(
        model=MODEL,
        args=args,
        train_dataset=Dataset.from_list(rows),
        peft_config=LORA,
    )
    trainer.train()
    trainer.save_model(folder)


def length_reward(completions, **kwargs):
    return [float(len(c[0]["content"])) for c in completions]


def grpo(seed, policy, beta):
    """Stage 2: GRPO on the loaded adapter. What changed in the adapter's weights?"""
    set_seed(seed)
    rows = [{"prompt": [{"role": "user", "content": p}]} for p in PROMPTS]
    args = GRPOConfig(
        **common(seed),
        learning_rate=1e-5 * LR_SCALE,
        beta=beta,
        num_generations=4,
        max_completion_length=8,
    )
    lora = [(n, p) for n, p in policy.named_parameters() if "lora_" in n]
    before = {n: p.detach().clone() for n, p in lora}
    trainer = GRPOTrainer(
        model=policy,
        reward_funcs=length_reward,
        args=args,
        train_dataset=Dataset.from_list(rows),
    )
    trainer.train()
    after = dict(trainer.model.named_parameters())
    moved = max((after[n] - before[n]).abs().max().item() for n in before)
    groups = trainer.optimizer.param_groups
    in_optimizer = sum(p.numel() for g in groups for p in g["params"])
    logs = [h for h in trainer.state.log_history if "grad_norm" in h]
    grads = [h["grad_norm"] for h in logs]
    kls = [h.get("kl") for h in logs]
    return {"moved": moved, "in_optimizer": in_optimizer, "grad_norm": grads, "kl": kls}


def sft_again(seed, policy):
    """SFT continued on the loaded adapter (e.g. a second SFT stage)."""
    set_seed(seed)
    rows = [{"text": f"{p} Sure: {p}"} for p in PROMPTS]
    args = SFTConfig(**common(seed), learning_rate=2e-4 * LR_SCALE, max_length=64)
    trainer = SFTTrainer(model=policy, args=args, train_dataset=Dataset.from_list(rows))
    trainer.train()
    logs = [h for h in trainer.state.log_history if "grad_norm" in h]
    return [h["grad_norm"] for h in logs], [h["loss"] for h in logs]


def dpo_error(seed, policy):
    """DPO on the loaded adapter: the exception its first backward pass raises."""
    set_seed(seed)
    rows = [{"prompt": p, "chosen": " Sure.", "rejected": " No."} for p in PROMPTS]
    args = DPOConfig(**common(seed), learning_rate=5e-6 * LR_SCALE, max_length=32)
    trainer = DPOTrainer(model=policy, args=args, train_dataset=Dataset.from_list(rows))
    try:
        trainer.train()
    except RuntimeError as error:  # torch's CheckpointError is a RuntimeError too
        return error
    return None


def frozen(folder):
    """What most scripts do: PeftModel.from_pretrained, default is_trainable=False."""
    base = AutoModelForCausalLM.from_pretrained(MODEL)
    return PeftModel.from_pretrained(base, folder)


def check(seed: int = 0) -> str:
    folder = tempfile.mkdtemp()
    sft_adapter(seed, folder)

    loaded = frozen(folder)
    assert not any(p.requires_grad for p in loaded.parameters()), (
        "claim: without is_trainable=True every LoRA weight is loaded frozen"
    )
    quiet = grpo(seed, loaded, beta=0.0)  # GRPOConfig's default beta
    assert quiet["moved"] == 0 and quiet["in_optimizer"] == 0, (
        f"claim: GRPO trains nothing on a frozen adapter ({quiet})"
    )
    assert all(g == 0 for g in quiet["grad_norm"]), f"claim: beta=0, grad 0 {quiet}"

    alive = grpo(seed, frozen(folder), beta=0.04)
    assert alive["moved"] == 0 and alive["in_optimizer"] == 0, (
        f"claim: with beta>0 the frozen adapter still never changes ({alive})"
    )
    assert all(g > 0 for g in alive["grad_norm"]), (
        f"claim: with beta>0, grad_norm looks alive although nothing is updated {alive}"
    )
    assert all(k == 0 for k in alive["kl"]), f"claim: kl stays exactly 0 {alive}"

    fixed = grpo(seed, load_adapter_to_continue(MODEL, folder), beta=0.04)
    assert fixed["moved"] > 0 and fixed["in_optimizer"] > 0, (
        f"claim: with is_trainable=True the adapter trains ({fixed})"
    )

    sft_grads, sft_losses = sft_again(seed, frozen(folder))
    assert all(g == 0 for g in sft_grads), f"claim: SFT grad_norm 0 {sft_grads}"
    flat = abs(sft_losses[0] - sft_losses[-1]) < 1e-4 * sft_losses[0]
    assert flat, f"claim: and a flat loss {sft_losses}"

    error = dpo_error(seed, frozen(folder))
    assert error is not None, "claim: DPO fails in its first backward"
    known = ("does not require grad", "Recomputed values for the following tensors")
    assert any(k in str(error) for k in known), f"claim: one of {known}: {error}"

    try:
        SFTTrainer(
            model=load_adapter_to_continue(MODEL, folder),
            args=SFTConfig(**common(seed)),
            train_dataset=Dataset.from_list([{"text": "hi"}] * 4),
            peft_config=LORA,
        )
        both = None
    except ValueError as e:
        both = str(e)
    refused = both and "together with a `peft_config`" in both
    assert refused, f"claim: a PeftModel plus a peft_config is refused: {both}"
    return (
        f"frozen adapter: GRPO beta=0 grad_norm {quiet['grad_norm']}, beta=0.04 "
        f"grad_norm {[round(g, 4) for g in alive['grad_norm']]} kl {alive['kl']}, "
        f"weights moved 0, optimizer holds 0 params; SFT grad_norm {sft_grads}; "
        f"DPO {type(error).__name__}; "
        f"is_trainable=True: moved {fixed['moved']:.2e}, {fixed['in_optimizer']} params"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
