"""A GRPO group whose rewards are all identical: advantages are exactly 0 (not NaN), so it teaches nothing.

Page: docs/online-rl/grpo-zero-std-group.md (中文: docs/online-rl/grpo-zero-std-group.zh.md)
Run:  python snippets/online-rl/grpo-zero-std-group.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

SEEDS = (0, 1, 2)


# --8<-- [start:run]
def run_grpo(reward_func, seed: int = 0) -> dict:
    """Two GRPO steps; return the logged metrics and every advantage TRL computed."""
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    runner.setup(seed)
    advantages = []

    Recording = runner.recording(GRPOTrainer, advantages)  # records advantages; changes nothing

    prompts = Dataset.from_list([{"prompt": [{"role": "user", "content": f"Count to {i}."}]} for i in range(8)])
    args = runner.config(
        GRPOConfig, seed, num_generations=4, per_device_train_batch_size=4, max_completion_length=8, max_steps=2
    )
    trainer = Recording(model=runner.model_path(seed), reward_funcs=reward_func, args=args, train_dataset=prompts)
    trainer.train()
    keys = ("frac_reward_zero_std", "reward_std", "loss", "grad_norm")
    return {"advantages": advantages, **{k: runner.history(trainer, k) for k in keys}}
# --8<-- [end:run]


# --8<-- [start:symptom]
def always_correct(completions, **kwargs):
    """A check every completion passes (a prompt that is too easy): the same reward for the whole group."""
    return [1.0 for _ in completions]


def symptom(seed: int = 0) -> dict:
    return run_grpo(always_correct, seed)
# --8<-- [end:symptom]


# --8<-- [start:fix]
def graded(completions, **kwargs):
    """A graded reward (here: how much of the 8-token budget was used) differs between samples."""
    return [min(len(c[0]["content"]), 32) / 32 for c in completions]


def fix(seed: int = 0) -> dict:
    return run_grpo(graded, seed)
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    import math

    bad, good = symptom(seed), fix(seed)
    # TRL 1.16: (r - mean) / (std + 1e-4), then nan_to_num -> exactly 0, never NaN.
    assert all(math.isfinite(a) for a in bad["advantages"]), "advantages of a zero-variance group are not finite"
    assert all(a == 0.0 for a in bad["advantages"]), f"expected all-zero advantages, got {bad['advantages'][:4]}"
    assert bad["frac_reward_zero_std"] == [1.0, 1.0] and bad["reward_std"] == [0.0, 0.0]
    assert max(bad["grad_norm"]) == 0.0, "a batch of zero advantages should give a zero gradient (beta=0)"
    assert max(good["frac_reward_zero_std"]) < 1.0, "the graded reward should separate samples in a group"
    assert any(a != 0.0 for a in good["advantages"]) and max(good["grad_norm"]) > 0.0
    return (
        f"identical rewards: {len(bad['advantages'])} advantages all 0.0 (no NaN), grad_norm 0, "
        f"frac_reward_zero_std 1.0; graded reward: frac_reward_zero_std {good['frac_reward_zero_std']}, "
        f"grad_norm {max(good['grad_norm']):.3g}"
    )
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
