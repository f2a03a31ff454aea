"""GRPO rollouts shrink to empty strings: the reward makes stopping at once optimal
(no missing_eos_penalty here).

Page: docs/online-rl/grpo-empty-completions-no-eos-penalty.md (中文:
docs/online-rl/grpo-empty-completions-no-eos-penalty.zh.md)
"""

# --8<-- [start:symptom]
import string


def is_good(c):
    """What the toy task wants: capitals, digits and punctuation."""
    return c.isupper() or c.isdigit() or c in string.punctuation


def bad_char_penalty(completions, **kwargs):
    """Minus one per 'bad' character. An empty answer has none, so it scores best."""
    return [
        -float(sum(not is_good(c) for c in completion[0]["content"]))
        for completion in completions
    ]


# --8<-- [end:symptom]


# --8<-- [start:fix]
def good_share(completions, **kwargs):
    """Score the share of good characters instead; an
    empty answer scores 0, the floor."""
    texts = [completion[0]["content"] for completion in completions]
    return [sum(is_good(c) for c in t) / len(t) if t else 0.0 for t in texts]


# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os

import torch
from datasets import Dataset
from transformers import AutoTokenizer, set_seed
from trl import GRPOConfig, GRPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
# 1 on a real model; the handbook's 2-layer test model
# needs ~300x the rate to move in a few steps
LR_SCALE = float(os.environ.get("HANDBOOK_LR_SCALE", "1"))
EOS = AutoTokenizer.from_pretrained(MODEL).eos_token_id


def train(reward_func, seed):
    """Six GRPO steps; return {metric: [value per step]} for
    the completion-length metrics."""
    set_seed(seed)
    questions = ["Say hi.", "Count to three."]
    # A short system prompt keeps the prompts short (some chat
    # templates add a long default one).
    prompts = Dataset.from_list(
        [
            {
                "prompt": [
                    {"role": "system", "content": "Be brief."},
                    {"role": "user", "content": q},
                ]
            }
            for q in questions
        ]
    )
    args = GRPOConfig(
        num_generations=4,
        per_device_train_batch_size=8,  # 2 prompts x 4 completions per step
        max_completion_length=8,
        # Stand-in for a model that sometimes stops early:
        # a +3 bias on EOS when sampling.
        generation_kwargs={"sequence_bias": [[[EOS], 3.0]]},
        max_steps=6,
        # high for a 135M model, so that six steps move it; TRL's default is 1e-6
        learning_rate=2e-4 * LR_SCALE,
        lr_scheduler_type="constant",
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    trainer = GRPOTrainer(
        model=MODEL, reward_funcs=reward_func, args=args, train_dataset=prompts
    )
    trainer.train()
    keys = ("completions/mean_length", "completions/min_length")
    return {k: [row[k] for row in trainer.state.log_history if k in row] for k in keys}


def check(seed: int = 0) -> str:
    fields = {f.name: f.default for f in dataclasses.fields(GRPOConfig)}
    assert "missing_eos_penalty" not in fields, (
        "claim: GRPOConfig has no missing_eos_penalty"
    )
    try:
        GRPOConfig(missing_eos_penalty=1.0)
        raise AssertionError(
            "claim: GRPOConfig(missing_eos_penalty=...) raises "
            "TypeError, but it was accepted"
        )
    except TypeError:
        pass
    assert fields.get("mask_truncated_completions") is False, (
        "claim: mask_truncated_completions exists, default False"
    )

    bad = train(bad_char_penalty, seed)
    bad_mean, bad_min = bad["completions/mean_length"], bad["completions/min_length"]
    good_mean = train(good_share, seed)["completions/mean_length"]
    assert bad_mean[-1] < bad_mean[0] - 2, (
        f"claim: a penalty-only reward shrinks completions: {bad_mean}"
    )
    assert bad_min[-1] == 1, (
        "claim: completions/min_length reaches 1, an "
        f"EOS-only (empty) answer: {bad_min}"
    )
    assert good_mean[-1] > bad_mean[-1] + 1.5, (
        "claim: with a share-based reward the answers do not shrink to "
        f"empty: {good_mean} vs {bad_mean}"
    )
    return (
        "penalty-only reward: completions/mean_length "
        f"{bad_mean[0]} -> {bad_mean[-1]}, min_length "
        f"{bad_min[-1]}; share-of-good reward: -> {good_mean[-1]}"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
