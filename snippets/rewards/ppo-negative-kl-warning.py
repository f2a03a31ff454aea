"""PPO's "KL divergence is starting to become negative" warning: gone with the old
PPOTrainer; GRPO logs a k3 KL.

Page: docs/rewards/ppo-negative-kl-warning.md
中文: docs/rewards/ppo-negative-kl-warning.zh.md
"""

# --8<-- [start:symptom]
import pathlib

import trl

WARNING = "KL divergence is starting to become negative"


def files_with(text):
    """The .py files of the installed TRL that contain `text` (TRL < 0.12 had it
    in trl/trainer/ppo_trainer.py)."""
    root = pathlib.Path(trl.__file__).parent
    return [
        str(p.relative_to(root))
        for p in root.rglob("*.py")
        if text in p.read_text(encoding="utf-8")
    ]


print(f"trl {trl.__version__}: {files_with(WARNING)}")
# --8<-- [end:symptom]


# --8<-- [start:fix]
import torch
from trl import GRPOConfig

grpo_config = GRPOConfig(
    # temperature, top_p and top_k at their defaults: sample
    # from the policy's own distribution
    temperature=1.0,
    top_p=1.0,
    top_k=0,
    beta=0.04,  # default 0.0: no KL term, no reference model, no `kl` metric
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os

from datasets import Dataset
from transformers import set_seed
from trl import GRPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")


def length_reward(completions, **kwargs):
    return [min(len(completion[0]["content"]), 32) / 32 for completion in completions]


def logged_kl(seed, config):
    """Two GRPO steps with the KL term on; the `kl` logged at each step."""
    set_seed(seed)
    prompts = Dataset.from_list(
        [{"prompt": [{"role": "user", "content": f"Count to {i}."}]} for i in range(8)]
    )
    args = dataclasses.replace(
        config,  # the user's config, made small enough for two CPU steps
        # 10x TRL's default 1e-6, so that a single update moves the policy measurably
        learning_rate=1e-5,
        num_generations=4,
        per_device_train_batch_size=8,
        # both derived by __post_init__: reset them, or replace() refuses the config
        generation_batch_size=None,
        steps_per_generation=None,
        max_completion_length=8,
        max_steps=2,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
    )
    trainer = GRPOTrainer(
        model=MODEL, reward_funcs=length_reward, args=args, train_dataset=prompts
    )
    trainer.train()
    return [row["kl"] for row in trainer.state.log_history if "kl" in row]


def check(seed: int = 0) -> str:
    hits = files_with(WARNING)
    assert hits == [], (
        "claim: the negative-KL warning is in no file of trl "
        f"{trl.__version__}, found in {hits}"
    )

    truncated = dataclasses.replace(
        grpo_config, top_k=5, top_p=0.8, temperature=1.5, generation_batch_size=None
    )
    runs = {
        "pure": logged_kl(seed, grpo_config),
        "truncated": logged_kl(seed, truncated),
    }
    for name, kl in runs.items():
        assert len(kl) == 2, (
            f"claim: with beta > 0 GRPO logs `kl` at every step ({name}: {kl})"
        )
        assert kl[1] > kl[0], (
            "claim: `kl` measures drift from the reference and grows "
            f"after an update ({name}: {kl})"
        )
    pure, truncated = ([f"{k:.2g}" for k in kl] for kl in runs.values())
    return (
        f"trl {trl.__version__}: warning text in no file; GRPO kl per step {pure} "
        f"(pure), {truncated} (truncated)"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
