"""GRPO has no `ref_model` argument: it reloads the reference from the
policy's path, not from memory.

Page: docs/online-rl/grpo-reference-reloaded-from-path.md
中文: docs/online-rl/grpo-reference-reloaded-from-path.zh.md
"""


# --8<-- [start:fix]
def save_sft_checkpoint(model, tokenizer, path):
    """Write the SFT model out; start GRPO from this path, so its
    reference reloads these same weights."""
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path  # GRPOTrainer(model=path, ...)


# --8<-- [end:fix]


# --8<-- [start:evidence]
import inspect
import os
import tempfile

import torch
from datasets import Dataset
from transformers import AutoModelForCausalLM, AutoTokenizer, set_seed
from trl import GRPOConfig, GRPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")


def sft_in_memory(seed):
    """Stand-in for 'I fine-tuned the model in this process': the weights
    change in memory, nothing is saved."""
    model, tokenizer = (
        AutoModelForCausalLM.from_pretrained(MODEL),
        AutoTokenizer.from_pretrained(MODEL),
    )
    torch.manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.05)
    return model, tokenizer


def length_reward(completions, **kwargs):
    return [float(len(completion[0]["content"])) for completion in completions]


def first_step(model, tokenizer, seed):
    """One GRPO step with a KL term (beta > 0); return the logged kl and where
    the reference was loaded from."""
    set_seed(seed)
    prompts = Dataset.from_list(
        [{"prompt": [{"role": "user", "content": "Say hi."}]}] * 4
    )
    args = GRPOConfig(
        beta=0.04,
        num_generations=4,
        per_device_train_batch_size=4,
        max_completion_length=8,
        max_steps=1,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    trainer = GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        reward_funcs=length_reward,
        args=args,
        train_dataset=prompts,
    )
    trainer.train()
    kl = [row["kl"] for row in trainer.state.log_history if "kl" in row]
    return kl[0], trainer.ref_model.config._name_or_path


def check(seed: int = 0) -> str:
    assert "ref_model" not in inspect.signature(GRPOTrainer.__init__).parameters, (
        "claim: GRPOTrainer takes no ref_model"
    )

    model, tokenizer = sft_in_memory(seed)
    kl, ref_path = first_step(model, tokenizer, seed)
    assert ref_path == MODEL, (
        "claim: the reference is reloaded from the "
        f"policy's original path, got {ref_path}"
    )
    assert kl > 1e-3, (
        "claim: in-memory SFT weights vs the reloaded "
        f"reference differ at step 1: kl={kl}"
    )

    # the same SFT weights, this time saved first
    model, tokenizer = sft_in_memory(seed)
    with tempfile.TemporaryDirectory() as tmp:
        fixed_kl, fixed_ref_path = first_step(
            save_sft_checkpoint(model, tokenizer, tmp), tokenizer, seed
        )
    assert fixed_ref_path == tmp, (
        "claim: started from the checkpoint, the reference "
        f"comes from it: {fixed_ref_path}"
    )
    assert fixed_kl == 0.0, (
        "claim: policy and reference from the same checkpoint give "
        f"kl 0 at step 1, got {fixed_kl}"
    )
    return (
        f"in-memory SFT weights: step-1 kl {kl:.4f} (reference from the original "
        "path); saved checkpoint: kl 0.0"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed (two training runs per seed)

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
