"""TRL up to 0.28 on transformers 5: TRL's optional-package checks say "installed" for
packages that are missing, and importing a trainer fails on `import weave`.

Page: docs/integrations/trl-import-guards-transformers-5.md
中文: docs/integrations/trl-import-guards-transformers-5.zh.md
"""

# --8<-- [start:fix]
import importlib.util

from trl import import_utils

OPTIONAL = ("weave", "vllm_ascend", "vllm", "deepspeed", "liger_kernel", "mergekit")


def wrong_trl_flags(module=import_utils, packages=OPTIONAL):
    """Optional packages whose TRL check disagrees with what is installed.

    Importing trl.import_utils works even where `from trl import GRPOTrainer` fails.
    """
    wrong = []
    for package in packages:
        flag = getattr(module, f"is_{package}_available", None)
        if flag is None:
            continue  # this TRL release has no check for it
        said = flag()
        present = importlib.util.find_spec(package) is not None
        if bool(said) != present:
            wrong.append(
                f"{package}: TRL's check returns {said!r}, installed: {present}"
            )
    return wrong


# empty on TRL >= 0.29.1; TRL <= 0.28 on transformers 5: pip install -U "trl>=0.29.1"
print(wrong_trl_flags() or "TRL's optional-package checks match what is installed")
# --8<-- [end:fix]


# --8<-- [start:evidence]
import importlib
import types

import transformers
import trl
from packaging.specifiers import SpecifierSet
from packaging.version import Version
from transformers.utils import import_utils as hf_import_utils


def trl_028_checks():
    """TRL 0.28.0's checks, as its trl/import_utils.py defines them: the private
    transformers helper's answer, returned as it is."""
    return types.SimpleNamespace(
        is_weave_available=lambda: hf_import_utils._is_package_available("weave"),
        is_vllm_ascend_available=lambda: hf_import_utils._is_package_available(
            "vllm_ascend"
        ),
    )


def guarded_import(check, package):
    """TRL 0.28.0's trl/trainer/callbacks.py:
    `if is_weave_available(): import weave`."""
    try:
        if check():
            importlib.import_module(package)
    except ModuleNotFoundError as e:
        return f"ModuleNotFoundError: {e}"
    return None


def check(seed: int = 0) -> str:
    for package in ("weave", "vllm_ascend"):
        assert importlib.util.find_spec(package) is None, f"{package} must be absent"

    # 1. transformers 5's private helper answers a tuple, and a tuple is truthy.
    raw = hf_import_utils._is_package_available("weave")
    assert raw == (False, None) and bool(raw), (
        f"claim: transformers {transformers.__version__} answers (False, None): {raw}"
    )

    # 2. TRL 0.28.0's checks pass that tuple on: both missing packages look installed,
    # and the guarded import runs and fails.
    old = wrong_trl_flags(trl_028_checks())
    assert old == [
        "weave: TRL's check returns (False, None), installed: False",
        "vllm_ascend: TRL's check returns (False, None), installed: False",
    ], f"claim: the helper names both wrong checks: {old}"
    error = guarded_import(trl_028_checks().is_weave_available, "weave")
    assert error == "ModuleNotFoundError: No module named 'weave'", error
    assert guarded_import(lambda: False, "weave") is None, (
        "a False check imports nothing"
    )

    # 3. The installed TRL has its own helper: every check agrees, the trainers import.
    here = wrong_trl_flags()
    assert here == [], f"claim: TRL {trl.__version__}'s checks are right: {here}"
    assert import_utils.is_weave_available() is False, "claim: a plain False"
    from trl import DPOTrainer, GRPOTrainer  # noqa: F401 - importing is the check

    # 4. What pip sees: TRL 0.28.0 declares transformers>=4.56.2, no ceiling (its
    # wheel's METADATA), so the installed transformers 5 is "compatible".
    declared = SpecifierSet(">=4.56.2")
    assert Version(transformers.__version__) in declared, "claim: pip accepts the pair"
    return (
        f"transformers {transformers.__version__}: _is_package_available('weave') = "
        f"{raw!r}; TRL 0.28.0's checks: {len(old)} wrong, then {error}; "
        f"TRL {trl.__version__}: {len(here)} wrong, trainers import"
    )


SEEDS = (0,)  # one seed: import checks, no training

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
