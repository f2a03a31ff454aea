"""`from trl import PPOTrainer` fails after an upgrade: where PPO went, and what to import instead.

Page: docs/rewards/ppo-trainer-import-removed.md (中文: docs/rewards/ppo-trainer-import-removed.zh.md)
Run:  python snippets/rewards/ppo-trainer-import-removed.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# a fact check: costs ~0 s per seed
SEEDS = (0, 1, 2)


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    """Try the imports that PPO-era scripts start with; record the error each one raises."""
    runner.setup(seed)
    errors = {}
    for stmt in ("from trl import PPOTrainer", "from trl import PPOConfig",
                 "from trl import AutoModelForCausalLMWithValueHead",
                 "from trl.experimental.ppo import PPOTrainer"):
        try:
            exec(stmt, {})
            errors[stmt] = None
        except ImportError as e:
            errors[stmt] = f"{type(e).__name__}: {e}"
    return errors
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """What replaces PPO in TRL 1.16: critic-free online RL trainers (reward functions or a reward model)."""
    runner.setup(seed)
    from trl import GRPOConfig, GRPOTrainer, RLOOConfig, RLOOTrainer, RewardConfig, RewardTrainer

    return {cls.__name__: cls.__module__ for cls in
            (GRPOTrainer, GRPOConfig, RLOOTrainer, RLOOConfig, RewardTrainer, RewardConfig)}
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    import importlib.util

    import trl

    bad, good = symptom(seed), fix(seed)
    assert all(err is not None for err in bad.values()), f"a PPO import still works on trl {trl.__version__}: {bad}"
    # Not moved again: the whole experimental PPO package (trainer, config, value-head models) is gone.
    assert importlib.util.find_spec("trl.experimental.ppo") is None, "trl.experimental.ppo exists again"
    assert set(good) == {"GRPOTrainer", "GRPOConfig", "RLOOTrainer", "RLOOConfig", "RewardTrainer", "RewardConfig"}
    return f"trl {trl.__version__}: all 4 PPO imports fail ({bad['from trl import PPOTrainer']}); GRPO/RLOO import fine"
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
