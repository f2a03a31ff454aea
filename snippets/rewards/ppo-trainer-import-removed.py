"""`from trl import PPOTrainer` fails after an upgrade (0.29+); PPO is gone entirely
from 1.13: import GRPO or RLOO.

Page: docs/rewards/ppo-trainer-import-removed.md
中文: docs/rewards/ppo-trainer-import-removed.zh.md
"""

# --8<-- [start:symptom]
PPO_IMPORTS = (
    "from trl import PPOTrainer",
    "from trl import PPOConfig",
    "from trl import AutoModelForCausalLMWithValueHead",
    "from trl.experimental.ppo import PPOTrainer",
)


def import_error(statement):
    """Run one import statement; return the ImportError
    it raises, or None if it works."""
    try:
        exec(statement, {})
    except ImportError as error:
        return error
    return None


for statement in PPO_IMPORTS:
    print(f"{statement}: {import_error(statement)!r}")
# --8<-- [end:symptom]


# --8<-- [start:fix]
from trl import (
    GRPOConfig,
    GRPOTrainer,
    RewardConfig,
    RewardTrainer,
    RLOOConfig,
    RLOOTrainer,
)

# --8<-- [end:fix]


# --8<-- [start:evidence]
import importlib.util

import transformers
import trl
from packaging.version import Version

# trl.experimental.ppo (PPOTrainer, PPOConfig, value-head models) exists from 0.26
# to 1.12 and is removed in 1.13
PPO_REMOVED = Version(trl.__version__).release[:2] >= (1, 13)


def check(seed: int = 0) -> str:
    errors = {statement: import_error(statement) for statement in PPO_IMPORTS}
    top_level = [
        statement
        for statement in PPO_IMPORTS
        if statement.startswith("from trl import")
    ]
    working = [statement for statement in top_level if errors[statement] is None]
    assert not working, (
        "claim: no `from trl import` of PPO works on trl "
        f"{trl.__version__}, but these do: {working}"
    )
    spec = importlib.util.find_spec("trl.experimental.ppo")
    experimental = errors["from trl.experimental.ppo import PPOTrainer"] is None
    assert (spec is None) == PPO_REMOVED and experimental != PPO_REMOVED, (
        "claim: trl.experimental.ppo is importable up to 1.12 and gone from "
        f"1.13 (trl {trl.__version__}: module found {spec is not None}, "
        f"PPOTrainer imports {experimental})"
    )
    replacements = (GRPOTrainer, RLOOTrainer, RewardTrainer)
    assert all(issubclass(cls, transformers.Trainer) for cls in replacements), (
        "claim: the replacements are Trainers"
    )
    configs = (GRPOConfig, RLOOConfig, RewardConfig)
    assert all(issubclass(cls, transformers.TrainingArguments) for cls in configs), (
        "claim: their configs import"
    )
    where = "gone" if PPO_REMOVED else "still importable (last release with it: 1.12)"
    return (
        f"trl {trl.__version__}: {len(top_level)} `from trl import` PPO lines "
        f"fail; trl.experimental.ppo {where}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
