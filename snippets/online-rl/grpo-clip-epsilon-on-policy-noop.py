"""GRPO's PPO-style clip (epsilon=0.2) only bites when training is off-policy; clip_ratio/* is 0 otherwise.

Page: docs/online-rl/grpo-clip-epsilon-on-policy-noop.md (中文: docs/online-rl/grpo-clip-epsilon-on-policy-noop.zh.md)
Run:  python snippets/online-rl/grpo-clip-epsilon-on-policy-noop.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment
from handbook import toydata

# training runs cost > 1 s per seed, so the suite runs two seeds (seeds 0-2 pass; re-checked 2026-12-02)
SEEDS = (0, 1)


# --8<-- [start:run]
CLIP_KEYS = ("clip_ratio/low_mean", "clip_ratio/high_mean", "clip_ratio/region_mean")


def run_grpo(seed: int = 0, **overrides) -> dict:
    from trl import GRPOConfig, GRPOTrainer

    runner.setup(seed)
    data = toydata.chat_prompts()  # 8 short chat prompts
    args = runner.config(GRPOConfig, seed, num_generations=8, per_device_train_batch_size=8,
                         max_completion_length=8, max_steps=3,
                         learning_rate=3e-2 if runner.is_tiny() else 1e-5, **overrides)
    trainer = GRPOTrainer(model=runner.model_path(seed), reward_funcs=toydata.low_token_reward, args=args, train_dataset=data)
    trainer.train()
    return {k: runner.history(trainer, k) for k in CLIP_KEYS}
# --8<-- [end:run]


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    """Defaults: one gradient step per generation (num_iterations=1): the ratio is exactly 1, nothing to clip."""
    return run_grpo(seed, epsilon=0.2)
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """Reuse each generation for 4 updates: now the ratio moves and epsilon / epsilon_high do their job."""
    return run_grpo(seed, epsilon=0.2, epsilon_high=0.28, num_iterations=4)
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    from trl import GRPOConfig

    assert (GRPOConfig.epsilon, GRPOConfig.epsilon_high, GRPOConfig.delta, GRPOConfig.num_iterations) == \
        (0.2, None, None, 1), "GRPO clipping defaults changed"
    bad, good = symptom(seed), fix(seed)
    assert all(v == 0.0 for k in CLIP_KEYS for v in bad[k]), f"on-policy run should never clip: {bad}"
    assert max(good["clip_ratio/region_mean"]) > 0.05, f"num_iterations=4 should clip some tokens: {good}"
    return (f"num_iterations=1: clip_ratio/region_mean {bad['clip_ratio/region_mean']}; "
            f"num_iterations=4: {[round(v, 3) for v in good['clip_ratio/region_mean']]}")
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
