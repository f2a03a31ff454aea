"""Entropy collapse in GRPO: `entropy` falls fast; GRPO has its own `entropy_coef`
since TRL 1.8 (no PPO since 1.13).

Page: docs/online-rl/grpo-entropy-collapse-entropy-coef.md (中文:
docs/online-rl/grpo-entropy-collapse-entropy-coef.zh.md)
"""

# --8<-- [start:fix]
import torch
from trl import GRPOConfig

# GRPO's own entropy bonus (TRL 1.8+): loss = policy loss - entropy_coef * mean
# token entropy (default 0.0, off).
grpo_config = GRPOConfig(
    # small: a large one pushes entropy above where it started;
    # or use_adaptive_entropy=True
    entropy_coef=0.05,
    learning_rate=1e-6,
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import importlib.util
import os
import string

import trl
from datasets import Dataset
from packaging.version import Version
from transformers import set_seed
from trl import GRPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
# 1 on a real model; the handbook's 2-layer test model
# needs ~300x the rate to move in a few steps
LR_SCALE = float(os.environ.get("HANDBOOK_LR_SCALE", "1"))


def symbol_share(completions, **kwargs):
    """A reward that favours a narrow set of outputs: the share of
    capitals, digits and punctuation."""
    texts = [completion[0]["content"] for completion in completions]
    return [
        sum(c.isupper() or c.isdigit() or c in string.punctuation for c in t)
        / max(len(t), 1)
        for t in texts
    ]


def train(seed, **overrides):
    """Six GRPO steps; return {metric: [value per step]}."""
    set_seed(seed)
    questions = ["Say hi.", "Count to three.", "Name a colour."]
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
    args = dataclasses.replace(
        grpo_config,
        num_generations=4,
        per_device_train_batch_size=12,  # 3 prompts x 4 completions per step
        # GRPOConfig derived it from the Fix's batch size: derive it again
        generation_batch_size=None,
        max_completion_length=8,
        max_steps=6,
        # 80x the Fix's rate: the collapse shows within six steps
        learning_rate=8e-5 * LR_SCALE,
        lr_scheduler_type="constant",
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        **overrides,
    )
    trainer = GRPOTrainer(
        model=MODEL, reward_funcs=symbol_share, args=args, train_dataset=prompts
    )
    trainer.train()
    return {
        k: [row[k] for row in trainer.state.log_history if k in row]
        for k in ("entropy", "entropy_coef")
    }


def check(seed: int = 0) -> str:
    assert not hasattr(trl, "PPOTrainer"), (
        "claim: trl has no top-level PPOTrainer to borrow an entropy bonus from"
    )
    # trl.experimental.ppo was removed in TRL 1.13
    ppo_gone = Version(trl.__version__) >= Version("1.13")
    assert (importlib.util.find_spec("trl.experimental.ppo") is None) == ppo_gone, (
        "claim: trl.experimental.ppo exists up to 1.12 and is gone "
        f"from 1.13 (trl {trl.__version__})"
    )
    defaults = (
        GRPOConfig.entropy_coef,
        GRPOConfig.use_adaptive_entropy,
        GRPOConfig.entropy_target,
    )
    defaults += (
        GRPOConfig.top_entropy_quantile,
        GRPOConfig.epsilon_high,
        GRPOConfig.beta,
    )
    assert defaults == (0.0, False, 0.2, 1.0, None, 0.0), (
        f"claim: the table's GRPO defaults, got {defaults}"
    )

    bad = train(seed, entropy_coef=0.0)  # the default: no bonus
    fall = bad["entropy"][0] - bad["entropy"][-1]
    assert fall > 0.3, (
        "claim: a narrow reward pulls entropy down by more "
        f"than 0.3 nats: {bad['entropy']}"
    )
    assert bad["entropy_coef"] == [], (
        "claim: entropy_coef is not logged while the bonus is off"
    )

    good = train(seed)  # the Fix as it is: entropy_coef=0.05
    assert good["entropy_coef"] == [grpo_config.entropy_coef] * 6, (
        f"claim: entropy_coef is logged at every step: {good['entropy_coef']}"
    )
    assert good["entropy"][-1] > bad["entropy"][-1] + 0.3 * fall, (
        f"claim: entropy_coef={grpo_config.entropy_coef} keeps entropy up: "
        f"{good['entropy']} vs {bad['entropy']}"
    )
    assert good["entropy"][-1] < good["entropy"][0] + 1.0, (
        f"claim: and does not overshoot far above where it started: {good['entropy']}"
    )
    return (
        f"entropy_coef=0: entropy {bad['entropy'][0]:.3f} -> {bad['entropy'][-1]:.3f}; "
        f"entropy_coef={grpo_config.entropy_coef}: -> {good['entropy'][-1]:.3f}"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
