"""Reward never rises: probe the starting model with best-of-n sampling; if no sample
ever scores, GRPO has no signal.

Page: docs/rewards/reward-ceiling-probe.md
中文: docs/rewards/reward-ceiling-probe.zh.md
"""

# --8<-- [start:symptom]
PROMPTS = [
    "What is the capital of France?",
    "Name a colour.",
    "Say something.",
    "Count to three.",
]


def secret_code(completions, **kwargs):
    """A task beyond the model: 1 only if the completion contains a
    code it has no way of knowing."""
    return [1.0 if "7x9q-kappa" in completion else 0.0 for completion in completions]


# --8<-- [end:symptom]


# --8<-- [start:fix]
import os

from transformers import AutoModelForCausalLM, AutoTokenizer, set_seed

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")


def best_of_n(reward_func, seed, n=16):
    """Sample n completions per prompt from the *starting* model and score
    them: the best score per prompt."""
    set_seed(seed)
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    model = AutoModelForCausalLM.from_pretrained(MODEL)
    best = []
    for prompt in PROMPTS:
        inputs = tokenizer(prompt, return_tensors="pt")
        out = model.generate(
            **inputs,
            do_sample=True,
            max_new_tokens=8,
            num_return_sequences=n,
            pad_token_id=tokenizer.pad_token_id,
        )
        texts = tokenizer.batch_decode(
            out[:, inputs["input_ids"].shape[1] :], skip_special_tokens=True
        )
        best.append(max(reward_func(texts)))
    # 0 on every prompt: the task is out of reach, and RL on it cannot start
    return best


def vowel_share(completions, **kwargs):
    """A graded reward within reach of any model: the share of letters
    that are vowels (partial credit)."""
    letters = [
        [ch for ch in completion.lower() if ch.isalpha()] for completion in completions
    ]
    return [
        sum(ch in "aeiou" for ch in chars) / max(len(chars), 1) for chars in letters
    ]


# --8<-- [end:fix]


# --8<-- [start:evidence]
import torch
from datasets import Dataset
from trl import GRPOConfig, GRPOTrainer


def grpo_step(reward_func, seed):
    """One GRPO step on the same prompts (4 completions each); its logged metrics."""
    set_seed(seed)
    args = GRPOConfig(
        num_generations=4,
        per_device_train_batch_size=16,
        max_completion_length=8,
        max_steps=1,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    prompts = Dataset.from_list([{"prompt": prompt} for prompt in PROMPTS])
    trainer = GRPOTrainer(
        model=MODEL, reward_funcs=reward_func, args=args, train_dataset=prompts
    )
    trainer.train()
    return trainer.state.log_history[0]


def check(seed: int = 0) -> str:
    out_of_reach, out_run = best_of_n(secret_code, seed), grpo_step(secret_code, seed)
    assert max(out_of_reach) == 0.0, (
        f"claim: the probe finds no scoring sample for the task, got {out_of_reach}"
    )
    assert out_run["reward"] == 0.0, (
        f"claim: GRPO's reward is 0 from the first step, got {out_run['reward']}"
    )
    assert out_run["frac_reward_zero_std"] == 1.0, (
        "claim: every group has identical rewards (frac_reward_zero_std 1)"
    )
    assert out_run["grad_norm"] == 0.0, (
        f"claim: zero advantages give zero gradient, got {out_run['grad_norm']}"
    )

    reachable, run = best_of_n(vowel_share, seed), grpo_step(vowel_share, seed)
    assert min(reachable) > 0.0, (
        f"claim: a reward within reach scores on every prompt, got {reachable}"
    )
    assert run["frac_reward_zero_std"] < 1.0, (
        "claim: then groups have different rewards"
    )
    assert run["grad_norm"] > 0.0, "claim: and GRPO gets a gradient"
    return (
        f"out of reach: best-of-16 {out_of_reach}, frac_reward_zero_std 1.0, "
        "grad_norm 0; within reach: best-of-16 "
        f"{[round(b, 2) for b in reachable]}, frac_reward_zero_std "
        f"{run['frac_reward_zero_std']:.2f}, grad_norm {run['grad_norm']:.3g}"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
