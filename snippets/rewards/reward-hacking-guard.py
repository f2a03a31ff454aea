"""Reward hacking: a reward with an exploitable feature pushes the policy toward
it; a guarded reward pushes away.

Page: docs/rewards/reward-hacking-guard.md
中文: docs/rewards/reward-hacking-guard.zh.md
"""


# --8<-- [start:symptom]
def repetition(text):
    """The hacked statistic: the share of characters that repeat an
    earlier one (0 = all distinct)."""
    return 1 - len(set(text)) / max(len(text), 1)


def proxy_rm(completions, **kwargs):
    """A learned reward with a blind spot (a stand-in): it scores text
    higher the more characters repeat."""
    return [len(completion) - len(set(completion)) for completion in completions]


# --8<-- [end:symptom]


# --8<-- [start:fix]
import torch
from trl import GRPOConfig


def proxy_rm_capped(completions, **kwargs):
    """Guard 1: cap the exploitable score, so more of the feature stops paying."""
    return [min(score, 2.0) for score in proxy_rm(completions)]


def repetition_penalty(completions, **kwargs):
    """Guard 2: an independent term that measures the hack directly and penalises it."""
    return [-10.0 * repetition(completion) for completion in completions]


# Guard 3: lower the proxy's weight. Each function is logged
# as rewards/<function name>/mean.
# Use: GRPOTrainer(reward_funcs=guarded_rewards, ...)
guarded_rewards = [proxy_rm_capped, repetition_penalty]
grpo_config = GRPOConfig(reward_weights=[0.5, 1.0], bf16=torch.cuda.is_available())
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os
import statistics

from datasets import Dataset
from transformers import set_seed
from trl import GRPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")


class RecordingGRPOTrainer(GRPOTrainer):
    """GRPOTrainer that also keeps every completion and its
    advantage; it changes nothing else."""

    def _generate_and_score_completions(self, inputs):
        out = super()._generate_and_score_completions(inputs)
        self.advantages.extend(out["advantages"].flatten().tolist())
        texts = self.processing_class.batch_decode(
            out["completion_ids"], skip_special_tokens=True
        )
        self.completions.extend(texts)
        return out


def grpo_step(seed, reward_funcs, config):
    """One GRPO step on 4 prompts x 4 completions; the correlation of
    repetition with advantage, and the logs."""
    set_seed(seed)
    args = dataclasses.replace(
        config,  # the user's config, made small enough for one CPU step
        num_generations=4,
        per_device_train_batch_size=16,
        # both derived by __post_init__: reset them, or replace() refuses the config
        generation_batch_size=None,
        steps_per_generation=None,
        max_completion_length=12,
        max_steps=1,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
    )
    prompts = Dataset.from_list(
        [{"prompt": f"Write a line about topic {i}:"} for i in range(8)]
    )
    trainer = RecordingGRPOTrainer(
        model=MODEL, reward_funcs=reward_funcs, args=args, train_dataset=prompts
    )
    trainer.advantages, trainer.completions = [], []
    trainer.train()
    push = statistics.correlation(
        [repetition(text) for text in trainer.completions], trainer.advantages
    )
    return push, trainer.state.log_history[0]


def check(seed: int = 0) -> str:
    hacked, hacked_logs = grpo_step(
        seed, [proxy_rm], GRPOConfig(bf16=torch.cuda.is_available())
    )
    guarded, guarded_logs = grpo_step(seed, guarded_rewards, grpo_config)
    # The advantage is the direction the policy is pushed: toward repetition with
    # the proxy, away with the guards.
    assert hacked > 0.3, (
        "claim: the proxy reward pushes toward repetition, "
        f"corr(repetition, advantage) {hacked:.2f}"
    )
    assert guarded < 0.0, (
        f"claim: cap + penalty + weights push away from it, corr {guarded:.2f}"
    )
    logged = {"rewards/proxy_rm_capped/mean", "rewards/repetition_penalty/mean"}
    assert logged <= set(guarded_logs), (
        f"claim: each guard is logged on its own, got {sorted(guarded_logs)}"
    )
    # "Raise the KL coefficient": GRPO's KL term is off by default, so
    # multiplying it changes nothing.
    beta = {f.name: f.default for f in dataclasses.fields(GRPOConfig)}["beta"]
    assert beta == 0.0 and "kl" not in hacked_logs, (
        f"claim: by default GRPO has no KL term (beta {beta})"
    )
    return (
        f"corr(repetition, advantage): {hacked:+.2f} with the proxy, {guarded:+.2f} "
        "guarded; default beta 0.0, no kl"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
