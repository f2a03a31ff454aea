"""Length bias: a reward that grows with length pushes every group toward its longest completion; remove the length term.

Page: docs/rewards/reward-length-bias.md (中文: docs/rewards/reward-length-bias.zh.md)
Run:  python snippets/rewards/reward-length-bias.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# two 1-step GRPO runs per seed (~2 s): two seeds; 0-5 verified
SEEDS = (0, 1)


# --8<-- [start:run]
def grpo_step(reward_funcs, seed: int = 0) -> dict:
    """One GRPO step; return each completion's length in characters, its advantage, and the logged metrics."""
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    runner.setup(seed)
    seen = {"advantages": [], "lengths": []}

    Recording = runner.recording(GRPOTrainer, seen["advantages"])  # records advantages; changes nothing

    def record(completions, **kwargs):  # a zero-weight reward function that only records lengths
        seen["lengths"].extend(len(c) for c in completions)  # characters
        return [0.0] * len(completions)

    prompts = Dataset.from_list([{"prompt": f"Answer question {i}:"} for i in range(8)])
    args = runner.config(GRPOConfig, seed, num_generations=4, per_device_train_batch_size=32,
                         max_completion_length=12, max_steps=1,
                         reward_weights=[1.0] * len(reward_funcs) + [0.0])
    trainer = Recording(model=runner.model_path(seed), reward_funcs=[*reward_funcs, record], args=args,
                        train_dataset=prompts)
    trainer.train()
    return {**seen, "logs": trainer.state.log_history[0]}


def centred(xs, n: int = 4) -> list[float]:
    """Each value minus its group's mean (GRPO compares completions only within a group of n)."""
    return [x - sum(xs[i // n * n:i // n * n + n]) / n for i, x in enumerate(xs)]


def corr(xs, ys) -> float:
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sx, sy = sum((x - mx) ** 2 for x in xs) ** 0.5, sum((y - my) ** 2 for y in ys) ** 0.5
    return sxy / (sx * sy) if sx and sy else 0.0


def quality(text: str) -> float:
    """The property we actually want (a stand-in that does not depend on length): starts with a letter."""
    return 1.0 if text[:1].isalpha() else 0.0
# --8<-- [end:run]


# --8<-- [start:symptom]
def length_biased_rm(completions, **kwargs):
    """A reward model that learned 'longer looks better': quality plus a term that grows with length."""
    return [quality(c) + 0.2 * len(c) for c in completions]


def symptom(seed: int = 0) -> dict:
    return grpo_step([length_biased_rm], seed)
# --8<-- [end:symptom]


# --8<-- [start:fix]
def quality_only(completions, **kwargs):
    """The same reward without the length term (or: retrain the RM on pairs balanced for length)."""
    return [quality(c) for c in completions]


def fix(seed: int = 0) -> dict:
    return grpo_step([quality_only], seed)
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    bad, good = symptom(seed), fix(seed)
    c_bad = corr(centred(bad["lengths"]), bad["advantages"])
    c_good = corr(centred(good["lengths"]), good["advantages"])
    assert min(bad["lengths"]) < max(bad["lengths"]), "the test needs completions of different lengths"
    # A positive advantage-length correlation is a push toward longer answers at every step.
    assert c_bad > 0.45, f"the length-biased reward should favour long completions (corr {c_bad:.2f})"
    assert c_bad - c_good > 0.25, f"without the length term the push should mostly vanish ({c_good:.2f})"
    assert "completions/mean_length" in bad["logs"] and "rewards/length_biased_rm/mean" in bad["logs"]
    return (f"corr(length - group mean, advantage) {c_bad:+.2f} with the length-biased reward, {c_good:+.2f} without; "
            f"completions/mean_length {bad['logs']['completions/mean_length']:.1f}")
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
