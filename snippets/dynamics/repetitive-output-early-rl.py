"""A GRPO learning rate far too high collapses completions into repetition within a few steps; warmup and cosine
decay at the same peak only delay it, a lower peak learning rate prevents it.

Page: docs/dynamics/repetitive-output-early-rl.md (中文: docs/dynamics/repetitive-output-early-rl.zh.md)
"""


# --8<-- [start:fix]
def repeated_bigram_share(token_ids):
    """Share of a completion's token bigrams that already occurred earlier in it: ~0 for varied text, near 1 for
    "the the the ..."."""
    bigrams = list(zip(token_ids, token_ids[1:]))
    return (len(bigrams) - len(set(bigrams))) / max(len(bigrams), 1)


SYMPTOM = {"learning_rate": 3e-1, "lr_scheduler_type": "constant"}
SCHEDULE_ONLY = {"learning_rate": 3e-1, "lr_scheduler_type": "cosine", "warmup_steps": 2}
# The fix: a 30x lower peak learning rate (with the same warmup and cosine decay). These values are sized for the
# tiny test model; on a real 0.5B-7B model the same move is from ~1e-4 down to 1e-6 - 1e-5 (GRPOConfig's default
# learning_rate is 1e-6).
FIX = {"learning_rate": 1e-2, "lr_scheduler_type": "cosine", "warmup_steps": 2}
# --8<-- [end:fix]


# --8<-- [start:evidence]
import os

import torch
from datasets import Dataset
from transformers import TrainerCallback, set_seed
from trl import GRPOConfig, GRPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

TOPICS = ["the weather", "a cat", "your day", "music", "the sea", "a book", "coffee", "trains"]
PROMPTS = Dataset.from_list([{"prompt": [{"role": "user", "content": f"Tell me about {t}."}]} for t in TOPICS * 2])


def lowercase_reward(completions, **kwargs):
    """A simple style reward: the share of lowercase letters."""
    return [sum(ch.islower() for ch in c[0]["content"]) / max(len(c[0]["content"]), 1) for c in completions]


class RepetitionTrackingGRPOTrainer(GRPOTrainer):
    """GRPOTrainer that also records the repeated-bigram share of each step's completions; it changes nothing else."""

    def _generate_and_score_completions(self, inputs):
        out = super()._generate_and_score_completions(inputs)
        ids, mask = out["completion_ids"], out["completion_mask"]
        shares = [repeated_bigram_share(row[m.bool()].tolist()) for row, m in zip(ids, mask)]
        self.repetition.append(sum(shares) / len(shares))
        return out


class StopAfter(TrainerCallback):
    """Ends the run after `steps` optimizer steps, so the schedule is planned for a longer run (early training)."""

    def __init__(self, steps):
        self.steps = steps

    def on_step_end(self, args, state, control, **kwargs):
        control.should_training_stop = state.global_step >= self.steps


def train(seed, **lr_settings):
    """The first 8 steps of a 60-step GRPO run; return the per-step repeated-bigram share and the logged entropy."""
    set_seed(seed)
    args = GRPOConfig(
        num_generations=4,
        per_device_train_batch_size=8,
        max_completion_length=16,
        max_steps=60,  # the horizon the cosine schedule is planned for; StopAfter(8) ends the run early
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        bf16=torch.cuda.is_available(),
        **lr_settings,
    )
    trainer = RepetitionTrackingGRPOTrainer(
        model=MODEL, reward_funcs=lowercase_reward, args=args, train_dataset=PROMPTS, callbacks=[StopAfter(8)]
    )
    trainer.repetition = []
    trainer.train()
    entropy = [row["entropy"] for row in trainer.state.log_history if "entropy" in row]
    return trainer.repetition, entropy


def check(seed: int = 0) -> str:
    rep, ent = train(seed, **SYMPTOM)
    assert rep[-1] > 0.5, f"claim: a far too high lr makes completions repetitive within 8 steps: {rep}"
    assert ent[-1] < 0.3 * ent[0], f"claim: the logged entropy collapses with it: {ent}"

    _, sched_ent = train(seed, **SCHEDULE_ONLY)
    assert sched_ent[-1] < 0.5 * sched_ent[0], (
        f"claim: warmup + cosine at the same peak lr does not stop the collapse: entropy {sched_ent}"
    )

    fix_rep, fix_ent = train(seed, **FIX)
    assert max(fix_rep) < 0.1, f"claim: at a 30x lower peak lr completions stay varied: {fix_rep}"
    assert fix_ent[-1] > 0.9 * fix_ent[0], f"claim: at a 30x lower peak lr entropy holds: {fix_ent}"
    return (
        f"lr 3e-1: repeated bigrams {rep[-1]:.2f}, entropy {ent[0]:.2f} -> {ent[-1]:.2f}; "
        f"same peak + warmup/cosine: entropy -> {sched_ent[-1]:.2f}; "
        f"lr 1e-2: repeated bigrams {max(fix_rep):.2f}, entropy -> {fix_ent[-1]:.2f}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
