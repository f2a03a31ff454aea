"""A GRPO reward function that raises stops training; returning None is the documented way to skip a sample.

Page: docs/online-rl/grpo-reward-func-raise-vs-none.md (中文: docs/online-rl/grpo-reward-func-raise-vs-none.zh.md)
Run:  python snippets/online-rl/grpo-reward-func-raise-vs-none.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# training runs cost > 1 s per seed, so the suite runs two seeds (seeds 0-2 pass; re-checked 2026-12-02)
SEEDS = (0, 1)


# --8<-- [start:run]
def make_trainer(reward_funcs, seed: int = 0, max_steps: int = 2):
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    runner.setup(seed)
    data = Dataset.from_list([{"prompt": [{"role": "user", "content": "What is two plus two?"}]}] * 8)
    args = runner.config(GRPOConfig, seed, num_generations=4, per_device_train_batch_size=4,
                         max_completion_length=8, max_steps=max_steps)
    return GRPOTrainer(model=runner.model_path(seed), reward_funcs=reward_funcs, args=args, train_dataset=data)


def length_reward(completions, **kwargs):
    return [float(len(c[0]["content"])) for c in completions]
# --8<-- [end:run]


# --8<-- [start:symptom]
def parse_answer(completions, **kwargs):
    """A reward that crashes on unparseable output, as a naive int() parser does."""
    return [float(int(c[0]["content"].strip())) for c in completions]


def symptom(seed: int = 0) -> dict:
    trainer = make_trainer([length_reward, parse_answer], seed, max_steps=1)
    try:
        trainer.train()
    except ValueError as e:  # the reward's own exception, raised out of trainer.train()
        return {"stopped": True, "error": str(e), "steps": trainer.state.global_step}
    return {"stopped": False, "steps": trainer.state.global_step}
# --8<-- [end:symptom]


# --8<-- [start:fix]
def parse_answer_or_none(completions, **kwargs):
    """Catch the failure yourself; return None to abstain for that completion (logged as NaN, excluded)."""
    out = []
    for c in completions:
        try:
            out.append(float(int(c[0]["content"].strip())))
        except ValueError:
            out.append(None)
    return out


def fix(seed: int = 0) -> dict:
    trainer = make_trainer([length_reward, parse_answer_or_none], seed)
    trainer.train()
    keys = ("reward", "rewards/length_reward/mean", "rewards/parse_answer_or_none/mean", "grad_norm")
    return {"steps": trainer.state.global_step, **{k: runner.history(trainer, k) for k in keys}}
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    import math

    bad, good = symptom(seed), fix(seed)
    assert bad["stopped"] and bad["steps"] == 0, f"an exception in a reward function should stop training: {bad}"
    assert "invalid literal for int()" in bad["error"]
    assert good["steps"] == 2, "returning None should let training run"
    # every completion of the tiny model is unparseable: that column is all None -> NaN mean, logged as NaN/None
    assert all(v is None or math.isnan(v) for v in good["rewards/parse_answer_or_none/mean"])
    assert all(math.isfinite(v) for v in good["reward"]), "the total reward should ignore the None column (nansum)"
    assert good["reward"] == good["rewards/length_reward/mean"], "total reward = the non-None reward only"
    return (f"raise: ValueError out of trainer.train() at step 0; None: 2 steps, "
            f"reward {good['reward']} = length_reward alone")
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
