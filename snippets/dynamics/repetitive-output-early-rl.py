"""A GRPO learning rate far too high collapses completions into repetition within a
few steps; warmup and cosine decay at the same peak only delay it, a peak learning
rate in the RL range prevents it.

Page: docs/dynamics/repetitive-output-early-rl.md
中文: docs/dynamics/repetitive-output-early-rl.zh.md
"""

# --8<-- [start:fix]
import torch
from trl import GRPOConfig


def repeated_bigram_share(token_ids):
    """Share of a completion's token bigrams that already occurred earlier in it: ~0 for
    varied text, near 1 for "the the the ..."."""
    bigrams = list(zip(token_ids, token_ids[1:]))
    return (len(bigrams) - len(set(bigrams))) / max(len(bigrams), 1)


# Peak learning rate in the RL range: 1e-6 (GRPOConfig's default) to about 1e-5 for
# full fine-tuning, not 1e-4 and up. Warm-up and cosine decay can stay; they do not
# make a peak that is too high safe.
grpo_config = GRPOConfig(
    learning_rate=1e-5,
    lr_scheduler_type="cosine",
    warmup_steps=2,
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os

from datasets import Dataset
from transformers import TrainerCallback, set_seed
from trl import GRPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
# 1 on a real model; the handbook's 2-layer test model
# needs ~300x the rate to move in a few steps
LR_SCALE = float(os.environ.get("HANDBOOK_LR_SCALE", "1"))

TOO_HIGH = 3e-3  # an SFT-from-scratch-size rate, 300x the fix's peak
TOPICS = [
    "the weather",
    "a cat",
    "your day",
    "music",
    "the sea",
    "a book",
    "coffee",
    "trains",
]
PROMPTS = Dataset.from_list(
    [
        {"prompt": [{"role": "user", "content": f"Tell me about {t}."}]}
        for t in TOPICS * 2
    ]
)


def lowercase_reward(completions, **kwargs):
    """A simple style reward: the share of lowercase letters."""
    return [
        sum(ch.islower() for ch in c[0]["content"]) / max(len(c[0]["content"]), 1)
        for c in completions
    ]


class RepetitionTrackingGRPOTrainer(GRPOTrainer):
    """GRPOTrainer that also records the repeated-bigram share of each step's
    completions; it changes nothing else."""

    def _generate_and_score_completions(self, inputs):
        out = super()._generate_and_score_completions(inputs)
        ids, mask = out["completion_ids"], out["completion_mask"]
        shares = [
            repeated_bigram_share(row[m.bool()].tolist()) for row, m in zip(ids, mask)
        ]
        self.repetition.append(sum(shares) / len(shares))
        return out


class StopAfter(TrainerCallback):
    """Ends the run after `steps` optimizer steps, so the schedule is planned for
    a longer run (early training)."""

    def __init__(self, steps):
        self.steps = steps

    def on_step_end(self, args, state, control, **kwargs):
        control.should_training_stop = state.global_step >= self.steps


def train(seed, learning_rate, **schedule):
    """The first 5 steps of a 60-step GRPO run from grpo_config at
    `learning_rate` (and `schedule` if given); return the per-step
    repeated-bigram share and the logged entropy."""
    set_seed(seed)
    args = dataclasses.replace(
        grpo_config,
        learning_rate=learning_rate * LR_SCALE,
        **schedule,
        # sized down for a CPU check: one group of 4 short completions per step
        num_generations=4,
        per_device_train_batch_size=4,
        # derived by __post_init__: reset, or replace() refuses the config
        generation_batch_size=None,
        steps_per_generation=None,
        max_completion_length=12,
        # the horizon the cosine schedule is planned for;
        # StopAfter(5) ends the run early
        max_steps=60,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
    )
    trainer = RepetitionTrackingGRPOTrainer(
        model=MODEL,
        reward_funcs=lowercase_reward,
        args=args,
        train_dataset=PROMPTS,
        callbacks=[StopAfter(5)],
    )
    trainer.repetition = []
    trainer.train()
    entropy = [row["entropy"] for row in trainer.state.log_history if "entropy" in row]
    return trainer.repetition, entropy


def check(seed: int = 0) -> str:
    rep, ent = train(seed, TOO_HIGH, lr_scheduler_type="constant")
    assert max(rep) >= 0.4, (
        f"claim: a far too high lr makes completions repetitive within 5 steps: {rep}"
    )
    assert ent[-1] < 0.3 * ent[0], f"claim: the logged entropy collapses with it: {ent}"

    # the fix's warm-up and cosine decay, at the too-high peak
    _, sched_ent = train(seed, TOO_HIGH)
    assert sched_ent[-1] < 0.5 * sched_ent[0], (
        "claim: warmup + cosine at the same too-high peak does not stop "
        f"the collapse: entropy {sched_ent}"
    )

    fix_rep, fix_ent = train(seed, grpo_config.learning_rate)
    assert max(fix_rep) < 0.2, (
        f"claim: at an RL-size peak lr completions stay varied: {fix_rep}"
    )
    assert min(fix_ent) > 0.5 * fix_ent[0], (
        f"claim: at an RL-size peak lr entropy holds: {fix_ent}"
    )
    return (
        f"lr {TOO_HIGH:g} constant: repeated bigrams up to {max(rep):.2f}, entropy "
        f"{ent[0]:.2f} -> {ent[-1]:.2f}; same peak + warmup/cosine: entropy -> "
        f"{sched_ent[-1]:.2f}; peak {grpo_config.learning_rate:g}: repeated bigrams "
        f"{max(fix_rep):.2f}, entropy -> {fix_ent[-1]:.2f}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
