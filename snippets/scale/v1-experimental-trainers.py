"""Which trainers `from trl import ...` still gives in TRL 1.x, where the
others went, and which are gone.

Page: docs/scale/v1-experimental-trainers.md
中文: docs/scale/v1-experimental-trainers.zh.md
"""

# --8<-- [start:symptom]
for name in (
    "PPOTrainer",
    "OnlineDPOTrainer",
    "NashMDTrainer",
    "XPOTrainer",
    "ORPOTrainer",
    "CPOTrainer",
):
    try:
        exec(f"from trl import {name}", {})
        print(name, "imports from trl")
    except ImportError as error:
        print(name, "->", error)  # TRL >= 0.29: cannot import name '...' from 'trl'
# --8<-- [end:symptom]


# --8<-- [start:fix]
# Stable trainers still import from trl: DPOTrainer, GRPOTrainer, KTOTrainer,
# RewardTrainer, RLOOTrainer, SFTTrainer. These moved to trl.experimental.<module> in
# 0.26 (the `from trl import` aliases were removed in 0.29):
from trl.experimental.cpo import CPOTrainer
from trl.experimental.gkd import GKDTrainer
from trl.experimental.online_dpo import OnlineDPOTrainer
from trl.experimental.orpo import ORPOTrainer

# Gone from TRL: PPOTrainer in 1.13; NashMDTrainer, XPOTrainer, BCOTrainer and
# PRMTrainer in 1.14. Pin the last release that had them (pip install "trl<1.13" or
# "trl<1.14") or port the code (see below).
# --8<-- [end:fix]


# --8<-- [start:evidence]
import importlib

import transformers
import trl
from packaging.version import Version

STABLE = (
    "SFTTrainer",
    "DPOTrainer",
    "GRPOTrainer",
    "RLOOTrainer",
    "KTOTrainer",
    "RewardTrainer",
)
EXPERIMENTAL = {  # what the Fix imports, and the module it comes from
    "OnlineDPOTrainer": (OnlineDPOTrainer, "trl.experimental.online_dpo"),
    "CPOTrainer": (CPOTrainer, "trl.experimental.cpo"),
    "ORPOTrainer": (ORPOTrainer, "trl.experimental.orpo"),
    "GKDTrainer": (GKDTrainer, "trl.experimental.gkd"),
}
REMOVED = {  # trainer: (its trl.experimental module, the release that removed it)
    "PPOTrainer": ("ppo", "1.13"),
    "NashMDTrainer": ("nash_md", "1.14"),
    "XPOTrainer": ("xpo", "1.14"),
    "BCOTrainer": ("bco", "1.14"),
    "PRMTrainer": ("prm", "1.14"),
}


def check(seed: int = 0) -> str:
    installed = Version(trl.__version__)
    for name in STABLE:
        assert issubclass(getattr(trl, name), transformers.Trainer), (
            f"claim: `from trl import {name}` works"
        )
    for name in (*EXPERIMENTAL, *REMOVED):
        try:
            getattr(trl, name)
            top_level = True
        except (ImportError, AttributeError):
            top_level = False
        assert not top_level, (
            f"claim: `from trl import {name}` fails on TRL {installed}"
        )
    for name, (cls, module) in EXPERIMENTAL.items():
        assert issubclass(cls, transformers.Trainer) and cls.__module__.startswith(
            module + "."
        ), f"claim: {name} lives in {module}"
    gone = []
    for name, (module, release) in REMOVED.items():
        try:
            getattr(importlib.import_module(f"trl.experimental.{module}"), name)
            present = True
        except ModuleNotFoundError:
            present = False
            gone.append(name)
        assert present == (installed < Version(release)), (
            f"claim: {name} is in trl.experimental before {release} and gone "
            f"from {release} (TRL {installed})"
        )
    # KTO went the other way: an alias of trl.experimental.kto up to
    # 1.7, the stable class from 1.8.
    kto_experimental = importlib.import_module("trl.experimental.kto").KTOTrainer
    kto_stable = installed >= Version("1.8")
    assert issubclass(kto_experimental, trl.KTOTrainer) == kto_stable, (
        "claim: KTO is stable in trl from 1.8 on"
    )
    return (
        f"TRL {installed}: stable {len(STABLE)}, experimental "
        f"{sorted(EXPERIMENTAL)}, gone {gone}"
    )


SEEDS = (0,)  # import facts: the seed changes nothing, one run is enough

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
