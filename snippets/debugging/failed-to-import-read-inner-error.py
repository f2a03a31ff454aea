"""`RuntimeError: Failed to import trl.trainer.X because of the following error`: TRL's
lazy import wraps whatever the module's import raised; the error to fix is the one it
wraps, and it names the package that raised it.

Page: docs/debugging/failed-to-import-read-inner-error.md
中文: docs/debugging/failed-to-import-read-inner-error.zh.md
"""

# --8<-- [start:fix]
import importlib.metadata
import os
import sys
import traceback


def package_of(path):
    """The installed package a file belongs to, and its version: ("wandb", "0.19.9")."""
    path = os.path.abspath(path)
    roots = [os.path.abspath(entry) for entry in sys.path if entry]
    root = max((r for r in roots if path.startswith(r + os.sep)), key=len, default="")
    if not root:
        return None  # not from an installed package (your script, the standard library)
    top = path[len(root) + 1 :].split(os.sep)[0].split(".")[0]
    dists = importlib.metadata.packages_distributions().get(top, [])
    return top, (importlib.metadata.version(dists[0]) if dists else None)


def inner_error(error):
    """The error a "Failed to import ... because of the following error" RuntimeError
    wraps: its type and message, the line that raised it and that line's package."""
    while error.__cause__ is not None:  # the wrapper's `raise ... from e`
        error = error.__cause__
    frames = traceback.extract_tb(error.__traceback__)
    where = frames[-1] if frames else None
    return {
        "error": f"{type(error).__name__}: {error}",
        "raised_in": f"{where.filename}:{where.lineno}" if where else None,
        "package": package_of(where.filename) if where else None,
        # an ImportError also names the module it was importing
        "module": error.name if isinstance(error, ImportError) else None,
    }


try:
    # the import that failed: SFTTrainer, GRPOTrainer, DPOTrainer ...
    from trl import SFTTrainer  # noqa: F401
except RuntimeError as failed:  # "Failed to import trl.trainer.sft_trainer ..."
    print(inner_error(failed))
    raise
# --8<-- [end:fix]


# --8<-- [start:evidence]
import importlib
import pathlib
import tempfile

import trl

WANDB_0_19_9 = {
    # wandb's generated protobuf modules pick stubs by protobuf's major version;
    # 0.19.9 has none for protobuf 6 (wandb 0.19.10 ships them), so the name
    # its __init__ needs is never defined
    "wandb/__init__.py": "from wandb.proto.wandb_telemetry_pb2 import Deprecated\n",
    "wandb/proto/__init__.py": "",
    "wandb/proto/wandb_telemetry_pb2.py": (
        'protobuf_version = "6"  # google.protobuf.__version__[0]\n'
        'if protobuf_version == "5":\n'
        "    from wandb.proto.v5.wandb_telemetry_pb2 import *\n"
    ),
    "wandb-0.19.9.dist-info/METADATA": (
        "Metadata-Version: 2.1\nName: wandb\nVersion: 0.19.9\n"
    ),
    "wandb-0.19.9.dist-info/top_level.txt": "wandb\n",
}


def install(files, folder):
    """Write a package into folder and put folder first on sys.path, where pip's
    site-packages would be: importable, with its metadata."""
    for name, text in files.items():
        path = pathlib.Path(folder, name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    sys.path.insert(0, folder)
    importlib.invalidate_caches()


def forget(*packages):
    """Drop these packages' modules from sys.modules: the next import runs them again,
    as a new Python process would."""
    for key in [key for key in sys.modules if key.split(".")[0] in packages]:
        del sys.modules[key]


def lazy_import(name):
    """`from trl import <name>` in a fresh TRL: trl's __getattr__ imports the module."""
    forget("trl", "wandb")
    return getattr(importlib.import_module("trl"), name)


def direct_import(module):
    """`python -c "import <module>"`: the import system itself, no lazy wrapper."""
    forget("trl", "wandb")
    return importlib.import_module(module)


def raised(call, *args):
    try:
        call(*args)
    except Exception as error:  # what the user sees, whatever its class
        return error
    return None


def check(seed: int = 0) -> str:
    # this process's trl (and wandb, where installed), put back at the end
    kept = {k: m for k, m in sys.modules.items() if k.split(".")[0] in ("trl", "wandb")}
    assert "trl" in kept, "the Fix block imports trl first"
    module = trl.SFTTrainer.__module__  # trl.trainer.sft_trainer
    try:
        with tempfile.TemporaryDirectory() as folder:
            install(WANDB_0_19_9, folder)  # a broken wandb, as pip left it
            try:
                wrapped = raised(lazy_import, "SFTTrainer")
                direct = raised(direct_import, module)
                report = inner_error(wrapped) if wrapped else {}
            finally:
                sys.path.remove(folder)
                sys.path_importer_cache.pop(folder, None)
        fixed = lazy_import("SFTTrainer")  # `pip uninstall wandb`: the same import
    finally:
        forget("trl", "wandb")
        sys.modules.update(kept)

    # 1. The lazy path wraps the error: the message names TRL's module, not wandb.
    assert isinstance(wrapped, RuntimeError) and str(wrapped).startswith(
        f"Failed to import {module} because of the following error"
    ), f"claim: `from trl import SFTTrainer` raises TRL's wrapper: {wrapped!r}"
    inner = "cannot import name 'Deprecated' from 'wandb.proto.wandb_telemetry_pb2'"
    assert inner in str(wrapped), f"claim: the line after the colon: {wrapped}"

    # 2. The helper follows the chain to the error and the package that raised it.
    assert report["error"].startswith(f"ImportError: {inner}"), report
    assert report["package"] == ("wandb", "0.19.9"), f"claim: wandb raised it: {report}"
    assert report["module"] == "wandb.proto.wandb_telemetry_pb2", report

    # 3. Importing the module directly shows the ImportError itself, unwrapped.
    assert type(direct) is ImportError and inner in str(direct), (
        f"claim: `import {module}` raises the inner error unwrapped: {direct!r}"
    )
    assert "Failed to import" not in str(direct), direct

    # 4. Without the broken wandb the same lazy import works; this process's trl is
    # back, and its trainer still imports.
    assert fixed.__module__ == module, f"claim: the import works without it: {fixed}"
    assert importlib.import_module("trl") is kept["trl"], "trl restored"
    from trl import SFTTrainer as again

    assert again.__module__ == module, again
    assert sys.modules.get("wandb") is kept.get("wandb"), "no broken wandb left behind"
    return (
        f"TRL {trl.__version__}: `from trl import SFTTrainer` -> RuntimeError "
        f"'Failed to import {module} ...'; inner_error -> {report['package']}, "
        f"{report['error'][:60]}...; direct import -> ImportError; "
        "without the broken wandb -> imports"
    )


SEEDS = (0,)  # one seed: an import, no training

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
