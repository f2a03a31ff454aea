"""Reward clipping: TRL has no knob for it; wrap the reward function, and see what one outlier does to a group.

Page: docs/rewards/reward-clipping.md (中文: docs/rewards/reward-clipping.zh.md)
Run:  python snippets/rewards/reward-clipping.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# three 1-step GRPO runs per seed (~2.5 s): two seeds keep the suite fast; 0-4 verified
SEEDS = (0, 1)


# --8<-- [start:run]
def grpo_step(reward_func, seed: int = 0, **overrides) -> dict:
    """One GRPO step; return every advantage TRL computed and the rewards it was given, in order."""
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    runner.setup(seed)
    seen = {"advantages": [], "rewards": []}

    Recording = runner.recording(GRPOTrainer, seen["advantages"])  # records advantages; changes nothing

    def recorded(completions, **kwargs):
        rewards = reward_func(completions, **kwargs)
        seen["rewards"].extend(rewards)
        return rewards

    recorded.__name__ = reward_func.__name__  # keeps the logged key rewards/<name>/mean
    prompts = Dataset.from_list([{"prompt": f"Say something about number {i}:"} for i in range(8)])
    args = runner.config(GRPOConfig, seed, num_generations=4, per_device_train_batch_size=8,
                         max_completion_length=8, max_steps=1, **overrides)
    Recording(model=runner.model_path(seed), reward_funcs=recorded, args=args, train_dataset=prompts).train()
    return seen


def rm_with_outlier(completions, **kwargs):
    """A reward model in [0, 3] that returns one absurd score (100) for the longest completion of the batch."""
    scores = [min(len(c), 30) / 10 for c in completions]
    scores[max(range(len(scores)), key=lambda i: len(completions[i]))] = 100.0
    return scores


def outlier_group(seen, num_generations: int = 4) -> dict:
    """Advantages inside the group that holds the outlier, split into the outlier and the others."""
    i = max(range(len(seen["rewards"])), key=lambda k: seen["rewards"][k])
    g = i // num_generations * num_generations
    others = [seen["advantages"][k] for k in range(g, g + num_generations) if k != i]
    mean = sum(others) / len(others)
    return {"outlier": seen["advantages"][i], "others_spread": (sum((a - mean) ** 2 for a in others) / len(others)) ** 0.5}
# --8<-- [end:run]


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    return {"group": outlier_group(grpo_step(rm_with_outlier, seed)),
            "none": outlier_group(grpo_step(rm_with_outlier, seed, scale_rewards="none"))}
# --8<-- [end:symptom]


# --8<-- [start:fix]
def clipped(reward_func, low: float = -2.0, high: float = 2.0):
    """Wrap any reward function so its scores are clipped to [low, high]; None (skip) passes through."""
    def wrapper(completions, **kwargs):
        return [None if r is None else min(max(r, low), high) for r in reward_func(completions, **kwargs)]

    wrapper.__name__ = f"clipped_{reward_func.__name__}"  # logged as rewards/clipped_<name>/mean
    return wrapper


def fix(seed: int = 0) -> dict:
    return {"group": outlier_group(grpo_step(clipped(rm_with_outlier), seed))}
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    import dataclasses

    from trl import GRPOConfig

    knobs = [f.name for f in dataclasses.fields(GRPOConfig) if "reward" in f.name and "clip" in f.name]
    assert knobs == [], f"GRPOConfig now has a reward-clipping knob: {knobs}"
    bad, good = symptom(seed), fix(seed)
    # scale_rewards="none": the outlier's advantage is ~100 - mean, it dominates the batch's gradient.
    assert bad["none"]["outlier"] > 50, bad["none"]
    # Default group scaling already bounds the outlier's own advantage ((n-1)/sqrt(n) = 1.5 for n=4) ...
    assert bad["group"]["outlier"] < 1.6, bad["group"]
    # ... but squashes the rest of its group together: their differences nearly vanish. Clipping restores them.
    assert good["group"]["others_spread"] > 3 * bad["group"]["others_spread"], (bad["group"], good["group"])
    return (f"outlier advantage {bad['none']['outlier']:.1f} (scale_rewards='none'), {bad['group']['outlier']:.2f} "
            f"(group); spread of the other 3 in its group {bad['group']['others_spread']:.3f} -> "
            f"{good['group']['others_spread']:.3f} with clipping to [-2, 2]")
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
