"""`from trl import PPOTrainer` fails after an upgrade: PPO is gone from TRL 1.13 on; import GRPO or RLOO instead.

Page: docs/rewards/ppo-trainer-import-removed.md (中文: docs/rewards/ppo-trainer-import-removed.zh.md)
"""

# --8<-- [start:symptom]
PPO_IMPORTS = (
    "from trl import PPOTrainer",
    "from trl import PPOConfig",
    "from trl import AutoModelForCausalLMWithValueHead",
    "from trl.experimental.ppo import PPOTrainer",
)


def import_error(statement):
    """Run one import statement; return the ImportError it raises, or None if it works."""
    try:
        exec(statement, {})
    except ImportError as error:
        return error
    return None


for statement in PPO_IMPORTS:
    print(f"{statement}: {import_error(statement)!r}")
# --8<-- [end:symptom]


# --8<-- [start:fix]
from trl import GRPOConfig, GRPOTrainer, RewardConfig, RewardTrainer, RLOOConfig, RLOOTrainer

# --8<-- [end:fix]


# --8<-- [start:evidence]
import importlib.util

import transformers
import trl


def check(seed: int = 0) -> str:
    errors = {statement: import_error(statement) for statement in PPO_IMPORTS}
    working = [statement for statement, error in errors.items() if error is None]
    assert not working, f"claim: no PPO import works on trl {trl.__version__}, but these do: {working}"
    spec = importlib.util.find_spec("trl.experimental.ppo")
    assert spec is None, "claim: trl.experimental.ppo (trainer, config, value-head models) is gone as well"
    replacements = (GRPOTrainer, RLOOTrainer, RewardTrainer)
    assert all(issubclass(cls, transformers.Trainer) for cls in replacements), "claim: the replacements are Trainers"
    configs = (GRPOConfig, RLOOConfig, RewardConfig)
    assert all(issubclass(cls, transformers.TrainingArguments) for cls in configs), "claim: their configs import"
    first = errors[PPO_IMPORTS[0]]
    return (
        f"trl {trl.__version__}: all {len(errors)} PPO imports fail ({type(first).__name__}); GRPO/RLOO/Reward import"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
