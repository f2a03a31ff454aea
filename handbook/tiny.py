"""Build (once) the tiny test model that the test suite points every page's ``MODEL`` at.

A tiny model is built locally, with no hub access: a byte-level BPE tokenizer trained with `tokenizers` on a
small built-in corpus, wrapped in `PreTrainedTokenizerFast`, with a ChatML-style chat template that carries
`{% generation %}` markers, and a 2-layer Qwen2 causal LM. It is saved once per seed under the cache
directory, keyed by a hash of this recipe and the library versions that write it, and loaded from that path,
so trainers that reload a reference model from a path (DPO, GRPO) see the same weights.

Set ``HANDBOOK_MODEL=<hub id or local path>`` to run the pages on a small real model instead (GPU CI).
"""

from __future__ import annotations

import os
import pathlib
import threading

CHATML_TEMPLATE = (
    "{% for message in messages %}"
    "{% if message['role'] == 'assistant' %}"
    "{{ '<|im_start|>assistant\n' }}"
    "{% generation %}{{ message['content'] + '<|im_end|>' }}{% endgeneration %}"
    "{{ '\n' }}"
    "{% else %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n' }}"
    "{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
"""ChatML with `{% generation %}` markers around every assistant reply (what `assistant_only_loss` needs)."""

CHATML_TEMPLATE_NO_GENERATION = CHATML_TEMPLATE.replace("{% generation %}", "").replace("{% endgeneration %}", "")
"""The same template without the markers: what many hub templates look like."""

SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<think>", "</think>"]

_CORPUS = [
    "The quick brown fox jumps over the lazy dog.",
    "What is the capital of France? The capital of France is Paris.",
    "Two plus two equals four. Three times three is nine.",
    "RLHF trains a policy with a reward signal and a KL penalty to a reference model.",
    "Direct preference optimisation compares a chosen and a rejected answer to the same prompt.",
    "GRPO samples a group of completions per prompt and normalises their rewards within the group.",
    "Write a short poem about the sea. The sea is wide, the waves are blue, the gulls fly high.",
    "Answer yes or no. Yes. No. Maybe. I do not know.",
    "def add(a, b): return a + b  # a tiny function",
    "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20",
    "user assistant system <think> reasoning </think> answer",
    "强化学习 奖励 模型 训练 偏好 优化 中文 语料 你好 世界",
]


def cache_dir() -> pathlib.Path:
    """Where built tiny models live: ``$HANDBOOK_CACHE`` or ``<repo>/.cache/handbook``."""
    default = pathlib.Path(__file__).resolve().parent.parent / ".cache" / "handbook"
    return pathlib.Path(os.environ.get("HANDBOOK_CACHE", default))


def _build_tokenizer(vocab_size: int):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(_CORPUS * 4, trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        bos_token=None,
        unk_token=None,
        model_input_names=["input_ids", "attention_mask"],  # like Qwen's own tokenizer: no token_type_ids
    )
    fast.chat_template = CHATML_TEMPLATE
    return fast


def build_tiny_model(path: pathlib.Path, seed: int = 0, vocab_size: int = 320) -> pathlib.Path:
    """Build a tiny Qwen2 model + tokenizer at ``path`` (deterministic for a seed) and return the path."""
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    tokenizer = _build_tokenizer(vocab_size)
    torch.manual_seed(seed)
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=512,
        tie_word_embeddings=True,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        bos_token_id=None,
    )
    model = Qwen2ForCausalLM(config)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    tmp = path.with_name(path.name + f".tmp{os.getpid()}-{threading.get_ident()}")
    model.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    try:
        tmp.rename(path)  # atomic: parallel builders never see a half-written model
    except OSError:
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
    return path


def recipe_key() -> str:
    """A short hash of this file (the recipe) and the versions of the libraries that build and save the model."""
    import hashlib

    import tokenizers
    import torch
    import transformers

    h = hashlib.sha256(pathlib.Path(__file__).read_bytes())
    h.update(f"{transformers.__version__} {tokenizers.__version__} {torch.__version__}".encode())
    return h.hexdigest()[:12]


def model_path(seed: int = 0) -> str:
    """The path of the tiny test model for ``seed``, built on first use."""
    path = cache_dir() / f"tiny-qwen2-{recipe_key()}-seed{seed}"
    if not (path / "config.json").exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        build_tiny_model(path, seed=seed)
    return str(path)
