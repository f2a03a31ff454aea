"""Reward hacking: a reward with an exploitable feature pushes the policy toward it; a capped, penalised, re-weighted reward pushes away.

Page: docs/rewards/reward-hacking-guard.md (中文: docs/rewards/reward-hacking-guard.zh.md)
Run:  python snippets/rewards/reward-hacking-guard.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# two 1-step GRPO runs per seed (~1.8 s): two seeds; 0-4 verified
SEEDS = (0, 1)


# --8<-- [start:run]
def repetition(text: str) -> float:
    """The hacked statistic: the share of characters that repeat an earlier one (0 = all distinct)."""
    return 1 - len(set(text)) / max(len(text), 1)


def grpo_step(reward_funcs, seed: int = 0, **overrides) -> dict:
    """One GRPO step; return each completion's repetition, its advantage, and the logged metrics."""
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    runner.setup(seed)
    seen = {"advantages": [], "completions": []}

    Recording = runner.recording(GRPOTrainer, seen["advantages"])  # records advantages; changes nothing

    def record(completions, **kwargs):  # a zero-weight reward function that only records the completions
        seen["completions"].extend(completions)
        return [0.0] * len(completions)

    prompts = Dataset.from_list([{"prompt": f"Write a line about topic {i}:"} for i in range(8)])
    weights = overrides.pop("reward_weights", [1.0] * len(reward_funcs))
    args = runner.config(GRPOConfig, seed, num_generations=4, per_device_train_batch_size=16,
                         max_completion_length=12, max_steps=1, reward_weights=[*weights, 0.0], **overrides)
    trainer = Recording(model=runner.model_path(seed), reward_funcs=[*reward_funcs, record], args=args,
                        train_dataset=prompts)
    trainer.train()
    return {"repetition": [repetition(c) for c in seen["completions"]], "advantages": seen["advantages"],
            "logs": trainer.state.log_history[0]}


def corr(xs, ys) -> float:
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sx, sy = sum((x - mx) ** 2 for x in xs) ** 0.5, sum((y - my) ** 2 for y in ys) ** 0.5
    return sxy / (sx * sy) if sx and sy else 0.0
# --8<-- [end:run]


# --8<-- [start:symptom]
def proxy_rm(completions, **kwargs):
    """A learned reward with a blind spot: it scores text higher the more characters repeat."""
    return [len(c) - len(set(c)) for c in completions]


def symptom(seed: int = 0) -> dict:
    return grpo_step([proxy_rm], seed)
# --8<-- [end:symptom]


# --8<-- [start:fix]
def proxy_rm_capped(completions, **kwargs):
    """Guard 1: cap the exploitable score, so more of the feature stops paying."""
    return [min(r, 2.0) for r in proxy_rm(completions)]


def repetition_penalty(completions, **kwargs):
    """Guard 2: an independent term that measures the hack directly and penalises it."""
    return [-10.0 * repetition(c) for c in completions]


def fix(seed: int = 0) -> dict:
    # Guard 3: lower the proxy's weight; each term is logged as rewards/<function name>/mean.
    return grpo_step([proxy_rm_capped, repetition_penalty], seed, reward_weights=[0.5, 1.0])
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    import dataclasses

    from trl import GRPOConfig

    bad, good = symptom(seed), fix(seed)
    c_bad = corr(bad["repetition"], bad["advantages"])
    c_good = corr(good["repetition"], good["advantages"])
    # The advantage is the direction the policy is pushed: toward repetition with the proxy, away with the guards.
    assert c_bad > 0.3, f"the proxy reward should reward repetition (corr {c_bad:.2f})"
    assert c_good < 0.0, f"the guarded reward should penalise repetition (corr {c_good:.2f})"
    assert "rewards/proxy_rm/mean" in bad["logs"], sorted(bad["logs"])
    assert {"rewards/proxy_rm_capped/mean", "rewards/repetition_penalty/mean"} <= set(good["logs"])
    # "Add more KL": GRPO's KL term is off by default, so multiplying its coefficient does nothing.
    assert {f.name: f.default for f in dataclasses.fields(GRPOConfig)}["beta"] == 0.0, "GRPOConfig.beta default changed"
    return (f"corr(repetition, advantage): {c_bad:+.2f} with the proxy reward, {c_good:+.2f} with cap + penalty + "
            f"weights; GRPOConfig.beta defaults to 0.0")
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
