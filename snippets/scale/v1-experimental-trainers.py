"""Which trainers `from trl import ...` still gives in TRL 1.x, where the others went, and which are gone.

Page: docs/scale/v1-experimental-trainers.md (中文: docs/scale/v1-experimental-trainers.zh.md)
"""

# --8<-- [start:symptom]
for name in ("PPOTrainer", "OnlineDPOTrainer", "NashMDTrainer", "XPOTrainer", "ORPOTrainer", "CPOTrainer"):
    try:
        exec(f"from trl import {name}", {})
        print(name, "imports from trl")
    except ImportError as error:
        print(name, "->", error)  # TRL >= 0.29: cannot import name '...' from 'trl'
# --8<-- [end:symptom]


# --8<-- [start:fix]
import importlib

# Stable trainers: `from trl import DPOTrainer, GRPOTrainer, KTOTrainer, RewardTrainer, RLOOTrainer, SFTTrainer`.
# The rest moved to `trl.experimental.<module>` in 0.26 (top-level aliases removed in 0.29):
EXPERIMENTAL = {
    "OnlineDPOTrainer": "trl.experimental.online_dpo",
    "CPOTrainer": "trl.experimental.cpo",
    "ORPOTrainer": "trl.experimental.orpo",
    "GKDTrainer": "trl.experimental.gkd",
}
# ...and these left TRL entirely in the release named here (pin an older TRL or port the code):
REMOVED_IN = {
    "PPOTrainer": "1.13",
    "NashMDTrainer": "1.14",
    "XPOTrainer": "1.14",
    "BCOTrainer": "1.14",
    "PRMTrainer": "1.14",
}
REMOVED_MODULE = {
    "PPOTrainer": "ppo",
    "NashMDTrainer": "nash_md",
    "XPOTrainer": "xpo",
    "BCOTrainer": "bco",
    "PRMTrainer": "prm",
}


def load_trainer(name):
    """The trainer class for `name` on the installed TRL, or an ImportError that says what happened to it."""
    if name in EXPERIMENTAL:
        return getattr(importlib.import_module(EXPERIMENTAL[name]), name)
    if name in REMOVED_IN:
        try:
            return getattr(importlib.import_module(f"trl.experimental.{REMOVED_MODULE[name]}"), name)
        except ModuleNotFoundError:
            raise ImportError(
                f"{name} was removed from TRL in {REMOVED_IN[name]}; pin trl<{REMOVED_IN[name]}"
            ) from None
    return getattr(importlib.import_module("trl"), name)


# --8<-- [end:fix]


# --8<-- [start:evidence]
import transformers
import trl
from packaging.version import Version

STABLE = ("SFTTrainer", "DPOTrainer", "GRPOTrainer", "RLOOTrainer", "KTOTrainer", "RewardTrainer")


def check(seed: int = 0) -> str:
    installed = Version(trl.__version__)
    for name in STABLE:
        assert issubclass(getattr(trl, name), transformers.Trainer), f"claim: `from trl import {name}` works"
    for name in (*EXPERIMENTAL, *REMOVED_IN):
        try:
            getattr(trl, name)
            top_level = True
        except (ImportError, AttributeError):
            top_level = False
        assert not top_level, f"claim: `from trl import {name}` fails on TRL {installed}"
    for name in EXPERIMENTAL:
        assert issubclass(load_trainer(name), transformers.Trainer), f"claim: {name} lives in {EXPERIMENTAL[name]}"
    gone = []
    for name, release in REMOVED_IN.items():
        try:
            load_trainer(name)
            present = True
        except ImportError:
            present = False
            gone.append(name)
        assert present == (installed < Version(release)), (
            f"claim: {name} is in trl.experimental before {release} and gone from {release} (TRL {installed})"
        )
    # KTO went the other way: an alias of trl.experimental.kto up to 1.7, the stable class from 1.8.
    kto_experimental = importlib.import_module("trl.experimental.kto").KTOTrainer
    kto_stable = installed >= Version("1.8")
    assert issubclass(kto_experimental, trl.KTOTrainer) == kto_stable, "claim: KTO is stable in trl from 1.8 on"
    return f"TRL {installed}: stable {len(STABLE)}, experimental {sorted(EXPERIMENTAL)}, gone {gone}"


SEEDS = (0,)  # import facts: the seed changes nothing, one run is enough

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
