"""A custom reward class (an nn.Module that scores texts) passed as `reward_funcs`:
GRPOTrainer and RLOOTrainer take every nn.Module for a transformers reward model and
fail on `.config`; a plain function around the module works.

Page: docs/online-rl/grpo-custom-reward-module.md
中文: docs/online-rl/grpo-custom-reward-module.zh.md
"""

# --8<-- [start:symptom]
import torch


class TextScorer(torch.nn.Module):
    """Your own reward model class: it scores whole texts, not token ids."""

    def __init__(self, target_chars=40):
        super().__init__()
        self.target_chars = target_chars

    def forward(self, texts):
        n = torch.tensor([len(t) for t in texts], dtype=torch.float32)
        return -(n - self.target_chars).abs() / self.target_chars


# GRPOTrainer(model=..., reward_funcs=TextScorer(), ...)
# AttributeError: 'TextScorer' object has no attribute 'config'
# --8<-- [end:symptom]


# --8<-- [start:fix]
scorer = TextScorer()  # your reward class, unchanged


def scorer_reward(completions, **kwargs):
    """GRPO and RLOO call a plain function with keyword arguments; the module
    stays inside it."""
    texts = [c[-1]["content"] if isinstance(c, list) else c for c in completions]
    with torch.no_grad():
        return scorer(texts).float().tolist()


# GRPOTrainer(model=..., reward_funcs=scorer_reward, ...)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import math
import os

from datasets import Dataset
from transformers import (
    AutoModelForCausalLM,
    AutoModelForSequenceClassification,
    set_seed,
)
from trl import GRPOConfig, GRPOTrainer, RLOOConfig, RLOOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

PROMPTS = [
    [{"role": "user", "content": "Describe the sea in one short sentence."}],
    [{"role": "user", "content": "Name a colour and say why you like it."}],
]


def config(cls, seed, steps):
    return cls(
        num_generations=4,
        per_device_train_batch_size=4,
        max_completion_length=12,
        max_steps=steps,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )


def run(reward_funcs, seed, steps=1, trainer_cls=GRPOTrainer, config_cls=GRPOConfig):
    """Build the trainer and train; return the logs, or the error and where it came."""
    set_seed(seed)
    try:
        trainer = trainer_cls(
            model=MODEL,
            reward_funcs=reward_funcs,
            args=config(config_cls, seed, steps),
            train_dataset=Dataset.from_dict({"prompt": PROMPTS * 2}),
        )
    except Exception as e:
        return f"at construction: {type(e).__name__}: {e}"
    try:
        trainer.train()
    except Exception as e:
        return f"at the first step: {type(e).__name__}: {e}"
    return [log for log in trainer.state.log_history if "loss" in log]


def check(seed: int = 0) -> str:
    # 1. Your class as reward_funcs: GRPO and RLOO read .config at construction.
    no_config = "AttributeError: 'TextScorer' object has no attribute 'config'"
    grpo = run(TextScorer(), seed)
    rloo = run(TextScorer(), seed, trainer_cls=RLOOTrainer, config_cls=RLOOConfig)
    for got in (grpo, rloo):
        assert got == f"at construction: {no_config}", f"claim: {no_config}: {got}"

    # 2. A causal LM as the reward model builds, then fails on its first scores:
    # logits[:, 0] is one row of vocabulary logits per completion, not one number.
    causal = run(AutoModelForCausalLM.from_pretrained(MODEL), seed)
    assert causal.startswith("at the first step: RuntimeError: expand("), causal
    assert "size=[4]" in causal, f"claim: 4 rewards expected: {causal}"

    # Fix: the same module inside a function trains, and its rewards are logged.
    fixed = run(scorer_reward, seed, steps=2)
    assert isinstance(fixed, list) and len(fixed) == 2, f"claim: it trains: {fixed}"
    means = [log["rewards/scorer_reward/mean"] for log in fixed]
    assert all(-5 < m <= 0 for m in means), f"claim: TextScorer's values: {means}"

    # The other route: a sequence-classification model with one label.
    head = AutoModelForSequenceClassification.from_pretrained(MODEL, num_labels=1)
    classified = run(head, seed)
    assert isinstance(classified, list), f"claim: a 1-label model works: {classified}"
    keys = [
        k for k in classified[0] if k.startswith("rewards/") and k.endswith("/mean")
    ]
    assert len(keys) == 1 and math.isfinite(classified[0][keys[0]]), keys
    return (
        f"TextScorer(): '{no_config}' (GRPO and RLOO); causal LM: RuntimeError "
        f"expand(...) at the first step; scorer_reward: rewards/scorer_reward/mean "
        f"{means[0]:.3f}, {means[1]:.3f}; 1-label classifier: {keys[0]}"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
