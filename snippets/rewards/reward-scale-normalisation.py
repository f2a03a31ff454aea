"""Reward scale: GRPO's group scaling makes advantages scale-free; RewardTrainer's centring penalises an RM's offset.

Page: docs/rewards/reward-scale-normalisation.md (中文: docs/rewards/reward-scale-normalisation.zh.md)
Run:  python snippets/rewards/reward-scale-normalisation.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# training runs cost > 1 s per seed, so the suite runs two seeds (seeds 0-2 pass; re-checked 2026-12-02)
SEEDS = (0, 1)


# --8<-- [start:grpo]
def grpo_advantages(reward_func, seed: int = 0, **overrides) -> list[float]:
    """One GRPO step; return every advantage TRL computed for the sampled completions."""
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    runner.setup(seed)
    advantages = []

    Recording = runner.recording(GRPOTrainer, advantages)  # records advantages; changes nothing

    prompts = Dataset.from_list([{"prompt": f"Say something about number {i}:"} for i in range(8)])
    args = runner.config(
        GRPOConfig, seed, num_generations=4, per_device_train_batch_size=8, max_completion_length=8, max_steps=1,
        **overrides,
    )
    Recording(model=runner.model_path(seed), reward_funcs=reward_func, args=args, train_dataset=prompts).train()
    return advantages


def rm_score(completions, **kwargs):
    """Stand-in for a reward model whose scores live on some arbitrary scale."""
    return [len(c) / 10 for c in completions]


def rm_score_x1000(completions, **kwargs):
    """The same ranking, 1000x larger (another RM, another checkpoint, another unit)."""
    return [1000 * r for r in rm_score(completions)]
# --8<-- [end:grpo]


# --8<-- [start:rm]
def rm_loss(seed: int = 0, center_rewards_coefficient=None, offset: float = 0.0) -> float:
    """RewardTrainer's loss on one batch for a reward model whose scores are all shifted by `offset`."""
    import torch
    from datasets import Dataset
    from transformers import AutoModelForSequenceClassification, AutoTokenizer
    from trl import RewardConfig, RewardTrainer

    runner.setup(seed)
    path = runner.model_path(seed)
    model = AutoModelForSequenceClassification.from_pretrained(path, num_labels=1)
    head = model.score  # give the score head a bias so every reward can be shifted by a constant
    model.score = torch.nn.Linear(head.in_features, 1, bias=True)
    with torch.no_grad():
        model.score.weight.copy_(head.weight)
        model.score.bias.fill_(offset)
    pairs = Dataset.from_list([
        {"prompt": [{"role": "user", "content": "Answer me."}],
         "chosen": [{"role": "assistant", "content": c}], "rejected": [{"role": "assistant", "content": r}]}
        for c, r in [("Yes.", "No."), ("Sure.", "Maybe."), ("Paris.", "dog."), ("four.", "nine.")]
    ])
    args = runner.config(RewardConfig, seed, per_device_train_batch_size=4,
                         center_rewards_coefficient=center_rewards_coefficient)
    trainer = RewardTrainer(model=model, args=args, processing_class=AutoTokenizer.from_pretrained(path),
                            train_dataset=pairs)
    batch = next(iter(trainer.get_train_dataloader()))
    with torch.no_grad():
        return trainer.compute_loss(trainer.model, batch).item()
# --8<-- [end:rm]


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    return {
        "adv_none_x1": grpo_advantages(rm_score, seed, scale_rewards="none"),
        "adv_none_x1000": grpo_advantages(rm_score_x1000, seed, scale_rewards="none"),
        # plain Bradley-Terry loss, RM scores at 0 and shifted by +4
        "rm_loss": (rm_loss(seed, None, offset=0.0), rm_loss(seed, None, offset=4.0)),
    }
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    return {
        "adv_group_x1": grpo_advantages(rm_score, seed),  # scale_rewards="group" is the default
        "adv_group_x1000": grpo_advantages(rm_score_x1000, seed),
        # the same with RewardConfig(center_rewards_coefficient=0.01), the value TRL's docs recommend
        "rm_loss": (rm_loss(seed, 0.01, offset=0.0), rm_loss(seed, 0.01, offset=4.0)),
    }
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    bad, good = symptom(seed), fix(seed)
    a1, a1000 = good["adv_group_x1"], good["adv_group_x1000"]
    # scale_rewards="group": (r - mean) / (std + 1e-4) is the same for r and 1000 r (up to the 1e-4 epsilon).
    assert max(abs(x - y) for x, y in zip(a1, a1000)) < 1e-2 * max(1.0, max(map(abs, a1))), (a1, a1000)
    assert max(map(abs, a1)) > 0.1, "the test needs rewards that differ within a group"
    # scale_rewards="none": advantages are r - mean, so they scale with the reward.
    n1, n1000 = bad["adv_none_x1"], bad["adv_none_x1000"]
    ratio = max(map(abs, n1000)) / max(map(abs, n1))
    assert 900 < ratio < 1100, f"with scale_rewards='none' advantages should scale x1000, got x{ratio:.1f}"
    # Bradley-Terry sees only r_chosen - r_rejected: shifting every score by +4 leaves the loss unchanged,
    # so nothing in plain RM training pulls the scores toward 0. Centring adds coef * mean((r_c + r_r)^2).
    bt0, bt4 = bad["rm_loss"]
    c0, c4 = good["rm_loss"]
    assert abs(bt4 - bt0) < 1e-4, f"plain RM loss should ignore a constant shift: {bt0:.5f} vs {bt4:.5f}"
    assert c4 - c0 > 0.5, f"the centring term should penalise the +4 shift: {c0:.4f} -> {c4:.4f}"
    return (
        f"group scaling: max|adv| {max(map(abs, a1)):.2f} for r and {max(map(abs, a1000)):.2f} for 1000r; "
        f"scale_rewards='none': x{ratio:.0f}; RM loss with scores shifted +4: {bt0:.4f} -> {bt4:.4f} plain, "
        f"{c0:.4f} -> {c4:.4f} with center_rewards_coefficient=0.01"
    )
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
