"""Reward scale: GRPO's group scaling makes advantages scale-free; RewardTrainer's
centring penalises an RM's offset.

Page: docs/rewards/reward-scale-normalisation.md
中文: docs/rewards/reward-scale-normalisation.zh.md
"""


# --8<-- [start:symptom]
def rm_score(completions, **kwargs):
    """Stand-in for a reward model whose scores live on some arbitrary scale."""
    return [len(completion) / 10 for completion in completions]


def rm_score_x1000(completions, **kwargs):
    """The same ranking, 1000x larger (another RM, another checkpoint, another unit)."""
    return [1000 * score for score in rm_score(completions)]


# --8<-- [end:symptom]


# --8<-- [start:fix]
import torch
from trl import GRPOConfig, RewardConfig

# GRPO: scale_rewards="group" is the default ("batch" also works); "none"
# passes the reward's scale through.
grpo_config = GRPOConfig(scale_rewards="group", bf16=torch.cuda.is_available())
# Reward model training: keep the scores near zero mean, with the
# coefficient TRL's docs recommend.
reward_config = RewardConfig(
    center_rewards_coefficient=0.01, bf16=torch.cuda.is_available()
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os

from datasets import Dataset
from transformers import AutoModelForSequenceClassification, AutoTokenizer, set_seed
from trl import GRPOTrainer, RewardTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")


class RecordingGRPOTrainer(GRPOTrainer):
    """GRPOTrainer that also keeps every advantage it
    computes; it changes nothing else."""

    def _generate_and_score_completions(self, inputs):
        out = super()._generate_and_score_completions(inputs)
        self.advantages.extend(out["advantages"].flatten().tolist())
        return out


def grpo_advantages(reward_func, seed, config):
    """One GRPO step; every advantage TRL computed for the sampled completions."""
    set_seed(seed)
    args = dataclasses.replace(
        config,  # the user's config, made small enough for one CPU step
        num_generations=4,
        per_device_train_batch_size=8,
        # both derived by __post_init__: reset them, or replace() refuses the config
        generation_batch_size=None,
        steps_per_generation=None,
        max_completion_length=8,
        max_steps=1,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
    )
    prompts = Dataset.from_list(
        [{"prompt": f"Say something about number {i}:"} for i in range(8)]
    )
    trainer = RecordingGRPOTrainer(
        model=MODEL, reward_funcs=reward_func, args=args, train_dataset=prompts
    )
    trainer.advantages = []
    trainer.train()
    return trainer.advantages


def rm_eval_loss(seed, offset, config):
    """RewardTrainer's eval loss for a reward model whose
    every score is shifted by `offset`."""
    set_seed(seed)
    model = AutoModelForSequenceClassification.from_pretrained(MODEL, num_labels=1)
    # a score head with a bias, so that every reward can be shifted by a constant
    head = model.score
    model.score = torch.nn.Linear(
        head.in_features, 1, bias=True, dtype=head.weight.dtype
    )
    with torch.no_grad():
        model.score.weight.copy_(head.weight)
        model.score.bias.fill_(offset)
    pairs = [
        ("Yes.", "No."),
        ("Sure.", "Maybe."),
        ("Paris.", "dog."),
        ("four.", "nine."),
    ]
    data = Dataset.from_list(
        [
            {
                "prompt": [{"role": "user", "content": "Answer me."}],
                "chosen": [{"role": "assistant", "content": chosen}],
                "rejected": [{"role": "assistant", "content": rejected}],
            }
            for chosen, rejected in pairs
        ]
    )
    args = dataclasses.replace(config, per_device_eval_batch_size=4, seed=seed)
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    trainer = RewardTrainer(
        model=model,
        args=args,
        processing_class=tokenizer,
        train_dataset=data,
        eval_dataset=data,
    )
    return trainer.evaluate()["eval_loss"]


def check(seed: int = 0) -> str:
    a1, a1000 = (
        grpo_advantages(rm_score, seed, grpo_config),
        grpo_advantages(rm_score_x1000, seed, grpo_config),
    )
    assert max(map(abs, a1)) > 0.1, "the check needs rewards that differ within a group"
    worst = max(abs(x - y) for x, y in zip(a1, a1000))
    assert worst < 1e-2 * max(1.0, max(map(abs, a1))), (
        f"claim: group scaling makes r and 1000r equal ({worst:.3g})"
    )
    # the symptom: raw scale
    no_scaling = GRPOConfig(scale_rewards="none", bf16=torch.cuda.is_available())
    n1, n1000 = (
        grpo_advantages(rm_score, seed, no_scaling),
        grpo_advantages(rm_score_x1000, seed, no_scaling),
    )
    ratio = max(map(abs, n1000)) / max(map(abs, n1))
    assert 900 < ratio < 1100, (
        f"claim: with scale_rewards='none' the advantages scale x1000, got x{ratio:.1f}"
    )

    # Bradley-Terry sees only r_chosen - r_rejected: shifting every score
    # by +4 leaves the loss unchanged.
    # center_rewards_coefficient=None is RewardConfig's default
    plain = dataclasses.replace(reward_config, center_rewards_coefficient=None)
    plain0, plain4 = rm_eval_loss(seed, 0.0, plain), rm_eval_loss(seed, 4.0, plain)
    assert abs(plain4 - plain0) < 1e-4, (
        f"claim: the plain RM loss ignores an offset ({plain0:.5f} vs {plain4:.5f})"
    )
    # Centring adds coefficient * mean((r_chosen +
    # r_rejected)^2), which does see the offset.
    centred0, centred4 = (
        rm_eval_loss(seed, 0.0, reward_config),
        rm_eval_loss(seed, 4.0, reward_config),
    )
    assert centred4 - centred0 > 0.5, (
        f"claim: centring penalises the offset ({centred0:.4f} -> {centred4:.4f})"
    )
    return (
        f"group scaling: max|adv| {max(map(abs, a1)):.2f} for r and "
        f"{max(map(abs, a1000)):.2f} for 1000r; scale_rewards='none': x{ratio:.0f}; RM "
        f"loss with scores shifted +4: {plain0:.4f} -> {plain4:.4f} plain, "
        f"{centred0:.4f} -> {centred4:.4f} with center_rewards_coefficient=0.01"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
