"""Entropy collapse in GRPO: `entropy` falls fast; TRL 1.16's GRPO has its own `entropy_coef` (no PPOTrainer).

Page: docs/online-rl/grpo-entropy-collapse-entropy-coef.md (中文: docs/online-rl/grpo-entropy-collapse-entropy-coef.zh.md)
Run:  python snippets/online-rl/grpo-entropy-collapse-entropy-coef.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment
from handbook import toydata

# training runs cost > 1 s per seed, so the suite runs two seeds (seeds 0-2 pass; re-checked 2026-12-02)
SEEDS = (0, 1)


# --8<-- [start:run]
def run_grpo(seed: int = 0, **overrides) -> dict:
    from trl import GRPOConfig, GRPOTrainer

    runner.setup(seed)
    data = toydata.chat_prompts()  # 8 short chat prompts
    kwargs = dict(num_generations=4, per_device_train_batch_size=16, max_completion_length=8, max_steps=6,
                  learning_rate=5e-2 if runner.is_tiny() else 1e-5, lr_scheduler_type="constant")
    kwargs.update(overrides)
    args = runner.config(GRPOConfig, seed, **kwargs)
    trainer = GRPOTrainer(model=runner.model_path(seed), reward_funcs=toydata.low_token_reward, args=args, train_dataset=data)
    trainer.train()
    return {k: runner.history(trainer, k) for k in ("entropy", "reward", "entropy_coef")}
# --8<-- [end:run]


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    return run_grpo(seed)  # entropy_coef=0.0 (default): nothing pushes back against a peaking policy
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """GRPO's own entropy bonus: loss = policy loss - entropy_coef * mean token entropy."""
    return run_grpo(seed, entropy_coef=0.2)
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    import importlib.util

    import trl
    from trl import GRPOConfig

    assert not hasattr(trl, "PPOTrainer") and importlib.util.find_spec("trl.experimental.ppo") is None, \
        "PPOTrainer is back in TRL: the 'built into PPO' remark needs re-checking"
    assert (GRPOConfig.entropy_coef, GRPOConfig.use_adaptive_entropy, GRPOConfig.epsilon_high,
            GRPOConfig.top_entropy_quantile) == (0.0, False, None, 1.0), "GRPO entropy-related defaults changed"
    bad, good = symptom(seed), fix(seed)
    fall = bad["entropy"][0] - bad["entropy"][-1]
    assert fall > 0.3, f"the collapse-inducing reward should pull entropy down: {bad['entropy']}"
    assert bad["entropy_coef"] == [] and good["entropy_coef"] == [0.2] * 6, "entropy_coef is logged only when on"
    assert good["entropy"][-1] > bad["entropy"][-1] + 0.3 * fall, \
        f"entropy_coef=0.2 should keep entropy up: {good['entropy']} vs {bad['entropy']}"
    return (f"entropy_coef=0: entropy {bad['entropy'][0]:.3f} -> {bad['entropy'][-1]:.3f}; "
            f"entropy_coef=0.2: -> {good['entropy'][-1]:.3f}")
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
