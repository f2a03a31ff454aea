"""Reward clipping: RLOOConfig has reward_clip_range, GRPOConfig has none
(wrap the reward function instead).

Page: docs/rewards/reward-clipping.md
中文: docs/rewards/reward-clipping.zh.md
"""

# --8<-- [start:fix]
import torch
from trl import RLOOConfig

# RLOO: a config field. It clips the weighted sum of the rewards,
# before the leave-one-out baseline.
rloo_config = RLOOConfig(reward_clip_range=(-2.0, 2.0), bf16=torch.cuda.is_available())


# GRPO has no such field: clip inside the reward function. None (TRL's
# "skip this sample") passes through.
def clipped(reward_func, low=-2.0, high=2.0):
    def wrapper(completions, **kwargs):
        return [
            None if r is None else min(max(r, low), high)
            for r in reward_func(completions, **kwargs)
        ]

    # logged as rewards/clipped_<name>/mean
    wrapper.__name__ = f"clipped_{reward_func.__name__}"
    return wrapper


# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os
import statistics
import zlib

from datasets import Dataset
from transformers import set_seed
from trl import GRPOConfig, GRPOTrainer, RLOOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
GROUP = 4  # num_generations


def rm_with_outlier(completions, **kwargs):
    """A stand-in reward model: an ordinary score in [0, 2) read from a checksum of the
    text, and one absurd 100 for the longest completion of the group."""
    texts = [completion[0]["content"] for completion in completions]
    scores = [2 * zlib.crc32(text.encode()) / 2**32 for text in texts]
    lengths = [len(text) for text in texts]
    scores[lengths.index(max(lengths))] = 100.0
    rm_with_outlier.scores = scores  # kept to find the outlier's position afterwards
    return scores


class RecordAdvantages:
    """Mixin for a TRL online trainer: keep every advantage it
    computes; it changes nothing else."""

    def _generate_and_score_completions(self, inputs):
        out = super()._generate_and_score_completions(inputs)
        self.advantages.extend(out["advantages"].flatten().tolist())
        return out


class RecordingGRPOTrainer(RecordAdvantages, GRPOTrainer):
    pass


class RecordingRLOOTrainer(RecordAdvantages, RLOOTrainer):
    pass


def outlier_group(trainer_cls, config, reward_func, seed):
    """One step on 1 prompt x 4 completions: the outlier's advantage, the spread of the
    other 3 advantages in its group, and the logged mean `reward`."""
    set_seed(seed)
    prompts = Dataset.from_list(
        [
            {"prompt": [{"role": "user", "content": f"Tell me about {i}."}]}
            for i in range(4)
        ]
    )
    args = dataclasses.replace(
        config,  # the user's config, made small enough for one CPU step
        num_generations=GROUP,
        per_device_train_batch_size=GROUP,
        # both derived by __post_init__: reset them, or replace() refuses the config
        generation_batch_size=None,
        steps_per_generation=None,
        max_completion_length=8,
        max_steps=1,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
    )
    trainer = trainer_cls(
        model=MODEL, reward_funcs=reward_func, args=args, train_dataset=prompts
    )
    trainer.advantages = []
    trainer.train()
    i = rm_with_outlier.scores.index(100.0)
    others = [advantage for k, advantage in enumerate(trainer.advantages) if k != i]
    return (
        trainer.advantages[i],
        statistics.pstdev(others),
        trainer.state.log_history[0]["reward"],
    )


def check(seed: int = 0) -> str:
    grpo_fields = [
        f.name
        for f in dataclasses.fields(GRPOConfig)
        if "reward" in f.name and "clip" in f.name
    ]
    assert grpo_fields == [], (
        f"claim: GRPOConfig has no reward-clipping field, found {grpo_fields}"
    )

    # the symptom: reward_clip_range=None, the default
    unclipped = RLOOConfig(bf16=torch.cuda.is_available())
    rloo_raw, _, _ = outlier_group(
        RecordingRLOOTrainer, unclipped, rm_with_outlier, seed
    )
    rloo_clip, _, logged = outlier_group(
        RecordingRLOOTrainer, rloo_config, rm_with_outlier, seed
    )
    assert rloo_raw > 50, (
        "claim: unclipped, RLOO gives the outlier an "
        f"advantage near 100, got {rloo_raw:.1f}"
    )
    assert rloo_clip <= 4.0, (
        f"claim: reward_clip_range=(-2, 2) bounds it by 4, got {rloo_clip:.2f}"
    )
    assert logged > 2.0, (
        "claim: RLOO logs the unclipped reward (the outlier shows "
        f"in `reward`), got {logged:.2f}"
    )

    # scale_rewards="group", the default
    grpo_config = GRPOConfig(bf16=torch.cuda.is_available())
    none_config = GRPOConfig(scale_rewards="none", bf16=torch.cuda.is_available())
    none_adv, _, _ = outlier_group(
        RecordingGRPOTrainer, none_config, rm_with_outlier, seed
    )
    group_adv, group_spread, _ = outlier_group(
        RecordingGRPOTrainer, grpo_config, rm_with_outlier, seed
    )
    _, clip_spread, _ = outlier_group(
        RecordingGRPOTrainer, grpo_config, clipped(rm_with_outlier), seed
    )
    assert none_adv > 50, (
        "claim: with scale_rewards='none' the GRPO outlier "
        f"advantage is huge, got {none_adv:.1f}"
    )
    assert group_adv < 1.6, (
        "claim: group scaling bounds the outlier's own "
        f"advantage by 1.5, got {group_adv:.2f}"
    )
    assert clip_spread > 3 * group_spread, (
        "claim: the outlier flattens the rest of its group and clipping restores it "
        f"({group_spread:.3f} -> {clip_spread:.3f})"
    )
    return (
        f"RLOO outlier advantage {rloo_raw:.1f} -> {rloo_clip:.2f} with "
        f"reward_clip_range (logged reward {logged:.1f}); GRPO {none_adv:.1f} "
        f"('none'), {group_adv:.2f} (group); spread of its group "
        f"{group_spread:.3f} -> {clip_spread:.3f} clipped"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
