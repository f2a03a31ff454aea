"""`trl env` in TRL 1.16: what the bug-report block contains and what it leaves out.

Page: docs/debugging/trl-env-report.md (中文: docs/debugging/trl-env-report.zh.md)
Run:  python snippets/debugging/trl-env-report.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# runs print_env() once: no model, ~0 s after imports
SEEDS = (0, 1, 2)

import contextlib
import io


def _report() -> dict[str, str]:
    from trl.scripts.env import print_env  # what `trl env` calls

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        print_env()
    fields = {}
    for line in buf.getvalue().splitlines():
        if line.startswith("- ") and ":" in line:
            key, _, value = line[2:].partition(":")
            fields[key.strip()] = value.strip()
    return fields


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    """The seed's list of what `trl env` prints, checked line by line."""
    fields = _report()
    keys = " ".join(fields).lower()
    return {
        "OS / Python / PyTorch": all(k in fields for k in ("Platform", "Python version", "PyTorch version")),
        "CUDA version": "cuda" in keys,
        "flash-attn version": "flash" in keys,
        "GPU count and model": "accelerator(s)" in fields,  # device names, one per device ("cpu" without one)
        "accelerate config": "Accelerate config" in fields,
        "HF token status": "token" in keys,
    }
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """What to paste: the block itself, plus the lines it does not print."""
    import torch

    import inspect

    import trl.cli.commands.env as cli_env

    fields = _report()
    cli_calls_print_env = "print_env()" in inspect.getsource(cli_env)  # `trl env` is a thin wrapper
    extra = {"CUDA (torch build)": str(torch.version.cuda), "GPUs": str(torch.cuda.device_count())}
    return {"fields": sorted(fields), "accelerator": fields.get("accelerator(s)"), "extra": extra,
            "cli_calls_print_env": cli_calls_print_env}
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    seen, good = symptom(seed), fix(seed)
    assert seen["OS / Python / PyTorch"] and seen["accelerate config"] and seen["GPU count and model"], seen
    assert not seen["CUDA version"], "trl env now prints a CUDA version: update the page"
    assert not seen["flash-attn version"], "trl env now prints flash-attn: update the page"
    assert not seen["HF token status"], "trl env now prints HF token status: update the page"
    assert good["cli_calls_print_env"], "the `trl env` command no longer calls trl.scripts.env.print_env"
    for key in ("TRL version", "Transformers version", "Accelerate version", "Datasets version", "PEFT version",
                "vLLM version", "bitsandbytes version", "DeepSpeed version", "Liger-Kernel version"):
        assert key in good["fields"], f"trl env no longer prints {key!r}"
    return (f"trl env prints {len(good['fields'])} fields (accelerator(s): {good['accelerator']}); "
            "no CUDA version, no flash-attn, no HF token status")
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
