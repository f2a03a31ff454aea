"""GRPO's KL coefficient is `beta`: a weak beta lets `kl` keep climbing, a strong one holds it down.

Page: docs/online-rl/grpo-kl-keeps-rising-beta.md (中文: docs/online-rl/grpo-kl-keeps-rising-beta.zh.md)
Run:  python snippets/online-rl/grpo-kl-keeps-rising-beta.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment
from handbook import toydata

# training runs cost > 1 s per seed, so the suite runs two seeds (seeds 0-2 pass; re-checked 2026-12-02)
SEEDS = (0, 1)


# --8<-- [start:run]
def run_grpo(seed: int = 0, **overrides) -> dict:
    """A short GRPO run with an aggressive learning rate so the policy drifts within a few steps."""
    from trl import GRPOConfig, GRPOTrainer

    runner.setup(seed)
    data = toydata.chat_prompts()  # 8 short chat prompts
    kwargs = dict(num_generations=4, per_device_train_batch_size=16, max_completion_length=8, max_steps=6,
                  learning_rate=3e-2 if runner.is_tiny() else 1e-5, lr_scheduler_type="constant")
    kwargs.update(overrides)
    args = runner.config(GRPOConfig, seed, **kwargs)
    trainer = GRPOTrainer(model=runner.model_path(seed), reward_funcs=toydata.low_token_reward, args=args, train_dataset=data)
    trainer.train()
    return {k: runner.history(trainer, k) for k in ("kl", "reward", "entropy")}
# --8<-- [end:run]


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    """A tiny KL coefficient: the penalty barely pulls back, so `kl` keeps growing."""
    return run_grpo(seed, beta=0.001)
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """Raise `beta` (GRPOConfig's KL coefficient; there is no `kl_coef`)."""
    return run_grpo(seed, beta=0.5)


def too_cautious(seed: int = 0) -> dict:
    """The other way round: a learning rate 30x lower; `kl` stays near 0 and the policy hardly moves."""
    return run_grpo(seed, beta=0.001, learning_rate=1e-3 if runner.is_tiny() else 3e-7, max_steps=4)
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    import dataclasses

    from trl import GRPOConfig

    names = {f.name for f in dataclasses.fields(GRPOConfig)}
    assert "beta" in names and "kl_coef" not in names, "GRPOConfig's KL knob should be `beta`, not `kl_coef`"
    bad, good, slow = symptom(seed), fix(seed), too_cautious(seed)
    assert bad["kl"][0] == 0.0, "the first step is on the reference weights: kl must start at 0"
    assert bad["kl"][-1] > 3 * bad["kl"][1], f"weak beta: kl should keep rising, got {bad['kl']}"
    assert good["kl"][-1] < 0.5 * bad["kl"][-1], f"beta=0.5 should hold kl down: {good['kl']} vs {bad['kl']}"
    assert slow["kl"][-1] < 0.1 * bad["kl"][-1], f"a low lr should keep kl near 0: {slow['kl']}"
    drift = lambda r: r["entropy"][0] - r["entropy"][-1]  # noqa: E731
    assert drift(slow) < 0.25 * drift(bad), "a low lr should barely move the policy (entropy)"
    return (
        f"beta=0.001: kl {bad['kl'][1]:.3f} -> {bad['kl'][-1]:.3f}; beta=0.5: final kl {good['kl'][-1]:.3f}; "
        f"lr/30: final kl {slow['kl'][-1]:.4f}"
    )
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
