"""Fast, deterministic defaults for running a TRL trainer inside a snippet.

Importing this module sets the CPU-friendly environment (1 torch thread, offline hub, quiet logs) before
torch/transformers/trl are imported by the snippet. Everything here is the same on a GPU; only the
``HANDBOOK_*`` variables change what model and device are used.
"""

from __future__ import annotations

import math
import os
import tempfile
import warnings

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("HF_DATASETS_DISABLE_PROGRESS_BARS", "1")
os.environ.setdefault("DISABLE_TQDM", "1")
os.environ.setdefault("WANDB_DISABLED", "true")

# tqdm.auto warns in notebooks without ipywidgets; the handbook never shows progress bars anyway.
warnings.filterwarnings("ignore", message="IProgress not found")

from handbook.tiny import device, is_tiny, load, model_path  # noqa: E402,F401

_configured = False


def setup(seed: int = 0) -> None:
    """Seed everything and pin torch to one thread (2 threads were slower for tiny models)."""
    global _configured
    import torch
    from transformers import set_seed

    if not _configured:
        torch.set_num_threads(int(os.environ.get("HANDBOOK_THREADS", "1")))
        warnings.filterwarnings("ignore", category=UserWarning, module=r"(trl|transformers|torch)\b")
        warnings.filterwarnings("ignore", category=FutureWarning, module=r"(trl|transformers|torch)\b")
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        _configured = True
    set_seed(seed)


def config(config_cls, seed: int = 0, **overrides):
    """Build a TRL ``*Config`` with the handbook's fast defaults; ``overrides`` win.

    Defaults: ``report_to="none"``, ``logging_steps=1``, no checkpoint saving, fp32 on CPU, ``max_steps=8``,
    batch size 2, no dataloader workers, a throw-away ``output_dir``. Everything else keeps the TRL default
    of ``config_cls`` (e.g. ``remove_unused_columns`` is False for GRPO/RLOO, True elsewhere), so a snippet
    shows what users get.

    GRPO/RLOO: pass ``num_generations`` (TRL's default is 8) and a ``per_device_train_batch_size`` that is a
    multiple of it, or the config raises the divisibility ``ValueError``.
    """
    on_cpu = device() == "cpu"
    kwargs = dict(
        output_dir=tempfile.mkdtemp(prefix="handbook-"),
        report_to="none",
        logging_steps=1,
        save_strategy="no",
        max_steps=8,
        per_device_train_batch_size=2,
        learning_rate=1e-3 if is_tiny() else 1e-5,
        seed=seed,
        data_seed=seed,
        bf16=not on_cpu,
        fp16=False,
        use_cpu=on_cpu,
        dataloader_num_workers=0,
        disable_tqdm=True,
    )
    kwargs.update(overrides)
    return config_cls(**kwargs)


def history(trainer, key: str) -> list[float]:
    """The values logged for ``key`` at each step, from ``trainer.state.log_history``."""
    return [row[key] for row in trainer.state.log_history if key in row]


def last(trainer, key: str) -> float:
    vals = history(trainer, key)
    if not vals:
        keys = sorted({k for row in trainer.state.log_history for k in row})
        raise KeyError(f"metric {key!r} was never logged; logged keys: {keys}")
    return vals[-1]


def mean(values) -> float:
    values = [v for v in values if not math.isnan(v)]
    return sum(values) / len(values) if values else float("nan")


def verdict(ok: bool, message: str) -> str:
    """The one-line human verdict a snippet prints when run as a script."""
    line = ("OK   " if ok else "FAIL ") + message
    print(line)
    return line


def quiet(trainer):
    """Stop the trainer from printing every log dict (they stay in ``trainer.state.log_history``)."""
    from transformers.trainer_callback import PrinterCallback, ProgressCallback

    trainer.remove_callback(PrinterCallback)
    trainer.remove_callback(ProgressCallback)
    return trainer


def recording(trainer_cls, advantages: list):
    """A subclass of a GRPO/RLOO trainer class that appends every advantage TRL computes to ``advantages``.

    It changes nothing else, so a snippet can assert on the exact values TRL feeds into the loss.
    """

    class Recording(trainer_cls):
        def _generate_and_score_completions(self, inputs):
            out = super()._generate_and_score_completions(inputs)
            advantages.extend(out["advantages"].flatten().tolist())
            return out

    Recording.__name__ = Recording.__qualname__ = f"Recording{trainer_cls.__name__}"
    return Recording
