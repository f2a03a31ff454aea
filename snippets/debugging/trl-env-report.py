"""`trl env` (TRL 0.29 to 1.16): what the bug-report block
contains and what it leaves out.

Page: docs/debugging/trl-env-report.md
中文: docs/debugging/trl-env-report.zh.md
"""

# --8<-- [start:fix]
import importlib.metadata

import torch


def missing_from_trl_env():
    """The lines a GPU bug report needs that `trl env` does not print."""
    try:
        flash_attn = importlib.metadata.version("flash-attn")
    except importlib.metadata.PackageNotFoundError:
        flash_attn = "not installed"
    return {
        "CUDA (torch build)": torch.version.cuda,
        "GPU count": torch.cuda.device_count(),
        "flash-attn version": flash_attn,
    }


# --8<-- [end:fix]


# --8<-- [start:evidence]
import contextlib
import io

from trl.cli import main as trl_cli  # the function the `trl` command runs


def trl_env():
    """Run `trl env` in this process; return its exit code, its
    text and its `- key: value` lines."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exit_code = trl_cli(["env"])
    fields = {}
    for line in out.getvalue().splitlines():
        # nested accelerate-config lines start with "  - "
        if line.startswith("- ") and ":" in line:
            key, _, value = line[2:].partition(":")
            fields[key.strip()] = value.strip()
    return exit_code, out.getvalue(), fields


def check(seed: int = 0) -> str:
    (command,) = importlib.metadata.entry_points(group="console_scripts", name="trl")
    assert command.value == "trl.cli:main", (
        f"claim: the `trl` command is trl.cli:main, got {command.value}"
    )
    exit_code, text, fields = trl_env()
    assert exit_code == 0 and "Copy-paste the following information" in text, (
        "claim: trl env prints the block"
    )
    present = {
        "Platform",
        "Python version",
        "PyTorch version",
        "accelerator(s)",
        "Accelerate config",
    }
    assert present <= set(fields), (
        f"claim: trl env prints {sorted(present - set(fields))}"
    )
    libraries = [
        "TRL",
        "Transformers",
        "Accelerate",
        "Datasets",
        "HF Hub",
        "PEFT",
        "vLLM",
        "bitsandbytes",
        "DeepSpeed",
    ]
    for name in libraries + ["Liger-Kernel"]:
        assert f"{name} version" in fields, f"claim: trl env prints the {name} version"
    keys = " ".join(fields).lower()
    assert "cuda" not in keys, "claim: trl env prints no CUDA version"
    assert "flash" not in keys, "claim: trl env prints no flash-attn version"
    assert "token" not in keys, "claim: trl env says nothing about an HF token"
    extra = missing_from_trl_env()
    return (
        f"trl env prints {len(fields)} fields (accelerator(s): "
        f"{fields['accelerator(s)']}); add {extra}"
    )


def check_gpu(seed: int = 0) -> str:
    """On a CUDA machine: the GPU model and count come
    only as the list of device names."""
    _, _, fields = trl_env()
    names = fields["accelerator(s)"].split(", ")
    gpus = torch.cuda.device_count()
    assert len(names) == gpus, (
        f"claim: accelerator(s) names each of the {gpus} GPUs, got {names}"
    )
    assert names[0] == torch.cuda.get_device_name(0), (
        f"claim: the names are the device names, got {names[0]}"
    )
    return (
        f"accelerator(s): {fields['accelerator(s)']}; CUDA "
        f"{torch.version.cuda} only from torch.version.cuda"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
