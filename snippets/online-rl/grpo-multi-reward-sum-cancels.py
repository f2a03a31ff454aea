"""Two GRPO reward functions that each vary but whose weighted sum is constant per group: advantages are all 0.

Page: docs/online-rl/grpo-multi-reward-sum-cancels.md (中文: docs/online-rl/grpo-multi-reward-sum-cancels.zh.md)
Run:  python snippets/online-rl/grpo-multi-reward-sum-cancels.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment
from handbook import toydata

# training runs cost > 1 s per seed, so the suite runs two seeds (seeds 0-2 pass; re-checked 2026-12-02)
SEEDS = (0, 1)


# --8<-- [start:run]
def terse(completion_ids, **kwargs):
    """Share of 'plain' tokens (id < 64)."""
    return [sum(t < 64 for t in ids) / max(len(ids), 1) for ids in completion_ids]


def rich(completion_ids, **kwargs):
    """Share of the other tokens: exactly 1 - terse, a trade-off reward that cancels the first one."""
    return [1.0 - r for r in terse(completion_ids)]


def run_grpo(seed: int = 0, max_steps: int = 2, **overrides) -> dict:
    from trl import GRPOConfig, GRPOTrainer

    runner.setup(seed)
    data = toydata.chat_prompts()  # 8 short chat prompts
    args = runner.config(GRPOConfig, seed, num_generations=4, per_device_train_batch_size=8,
                         max_completion_length=8, max_steps=max_steps, **overrides)
    trainer = GRPOTrainer(model=runner.model_path(seed), reward_funcs=[terse, rich], args=args, train_dataset=data)
    trainer.train()
    keys = ("frac_reward_zero_std", "reward_std", "grad_norm", "rewards/terse/std", "rewards/rich/std")
    return {k: runner.history(trainer, k) for k in keys}
# --8<-- [end:run]


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    return run_grpo(seed)  # reward_weights=None -> 1.0 each; terse + rich == 1.0 for every completion
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    return run_grpo(seed, reward_weights=[1.0, 0.5])  # say which objective matters more


def per_function_normalisation(seed: int = 0) -> dict:
    """normalize_then_sum (GDPO) z-scores each reward first: z(terse) = -z(rich), so it cancels too."""
    return run_grpo(seed, max_steps=1, multi_objective_aggregation="normalize_then_sum")
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    from trl import GRPOConfig

    assert GRPOConfig.reward_weights is None and GRPOConfig.multi_objective_aggregation == "sum_then_normalize"
    bad, good, gdpo = symptom(seed), fix(seed), per_function_normalisation(seed)
    assert min(bad["rewards/terse/std"]) > 0 and min(bad["rewards/rich/std"]) > 0, "each reward should vary"
    assert bad["frac_reward_zero_std"] == [1.0, 1.0] and max(bad["grad_norm"]) == 0.0, \
        f"the summed reward is constant, so no group has spread and nothing is learned: {bad}"
    assert max(good["frac_reward_zero_std"]) < 1.0 and min(good["grad_norm"]) > 0.0, f"weights should fix it: {good}"
    assert gdpo["frac_reward_zero_std"] == [1.0] and gdpo["grad_norm"] == [0.0], "normalize_then_sum should cancel too"
    return (f"equal weights: rewards/*/std {bad['rewards/terse/std'][0]:.3f} each, frac_reward_zero_std 1.0, "
            f"grad_norm 0; weights [1, 0.5]: frac {good['frac_reward_zero_std']}, grad_norm {good['grad_norm'][0]:.3f}")
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
