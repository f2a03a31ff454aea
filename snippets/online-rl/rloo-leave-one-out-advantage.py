"""RLOO in TRL 1.16: old rloo_k / kl_coef arguments fail; advantage = reward minus the mean of the OTHER samples.

Page: docs/online-rl/rloo-leave-one-out-advantage.md (中文: docs/online-rl/rloo-leave-one-out-advantage.zh.md)
Run:  python snippets/online-rl/rloo-leave-one-out-advantage.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# training runs cost > 1 s per seed, so the suite runs two seeds (seeds 0-2 pass; re-checked 2026-12-02)
SEEDS = (0, 1)


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    """Arguments of the pre-0.25 RLOOTrainer / RLOOConfig, and a group of one."""
    from trl import RLOOConfig

    errors = {}
    for name, kwargs in {"rloo_k": {"rloo_k": 4}, "kl_coef": {"kl_coef": 0.05}, "ng1": {"num_generations": 1}}.items():
        try:
            runner.config(RLOOConfig, seed, **kwargs)
            errors[name] = None
        except (TypeError, ValueError) as e:
            errors[name] = f"{type(e).__name__}: {e}"
    return errors
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """The 1.16 API: num_generations (group size) and beta (KL coefficient, default 0.05, applied to the reward)."""
    from datasets import Dataset
    from trl import RLOOConfig, RLOOTrainer

    runner.setup(seed)
    rewards, advantages = [], []

    def chars(completions, **kwargs):
        out = [float(len(c[0]["content"])) for c in completions]
        rewards.extend(out)
        return out

    Recording = runner.recording(RLOOTrainer, advantages)  # records advantages; changes nothing

    args = runner.config(
        RLOOConfig, seed, num_generations=4, per_device_train_batch_size=4, max_completion_length=8, max_steps=1
    )
    prompts = Dataset.from_list([{"prompt": [{"role": "user", "content": f"Count to {i}."}]} for i in range(4)])
    trainer = Recording(model=runner.model_path(seed), reward_funcs=chars, args=args, train_dataset=prompts)
    trainer.train()
    logged = sorted(k for row in trainer.state.log_history for k in row)
    return {"beta": args.beta, "normalize_advantages": args.normalize_advantages,
            "rewards": rewards, "advantages": advantages, "logged": logged}
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    import math

    bad, good = symptom(seed), fix(seed)
    assert bad["rloo_k"] and bad["rloo_k"].startswith("TypeError") and "'rloo_k'" in bad["rloo_k"], bad
    assert bad["kl_coef"] and bad["kl_coef"].startswith("TypeError") and "'kl_coef'" in bad["kl_coef"], bad
    assert bad["ng1"].startswith("ValueError: RLOO requires at least 2 generations per prompt"), bad
    assert good["beta"] == 0.05 and good["normalize_advantages"] is False, good
    r, a = good["rewards"], good["advantages"]
    assert len(r) == len(a) == 4, (r, a)
    # At step 1 the policy equals the reference, so the KL penalty is 0 and the advantage is pure leave-one-out:
    for i in range(4):
        others = [r[j] for j in range(4) if j != i]
        assert math.isclose(a[i], r[i] - sum(others) / 3, abs_tol=1e-4), (i, r, a)
    assert abs(sum(a)) < 1e-4, "leave-one-out advantages sum to 0 within a group"
    mean = sum(r) / 4  # not divided by the std: advantages scale with the rewards (here 4/3 x (r - mean))
    assert all(math.isclose(ai, 4 / 3 * (ri - mean), abs_tol=1e-4) for ai, ri in zip(a, r)), (r, a)
    assert "kl" in good["logged"] and "reward" in good["logged"], good["logged"]
    return f"rewards {r} -> advantages {[round(x, 3) for x in a]} (r - mean of the other 3); {bad['rloo_k'][:70]}"
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
