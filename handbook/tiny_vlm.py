"""Build (once) the tiny vision-language test model that the harness points a page's ``VLM`` at.

Pages about vision-language models (VLMs) read a second variable besides ``MODEL``::

    VLM = os.environ.get("HANDBOOK_VLM", "Qwen/Qwen2-VL-2B-Instruct")

and the harness points ``HANDBOOK_VLM`` at a tiny LLaVA model built here, locally, with no hub access: the tiny
text model's tokenizer (``handbook.tiny``) with an ``<image>`` token and a chat template that renders image parts,
a 2-layer CLIP vision tower on 28x28 images (14-pixel patches: 4 image tokens per image once CLS is dropped), the
same 2-layer Qwen2 text model, and a ``LlavaProcessor``. LLaVA, not Qwen2-VL, because Qwen2-VL's processor also
needs a video processor, which needs torchvision, and TRL does not depend on torchvision.

It lives apart from ``handbook.tiny`` so that the text model's recipe key (and every run record taken on it) stays
as it is; the key here covers both files.
"""

from __future__ import annotations

import hashlib
import os
import pathlib
import threading

from handbook import tiny

IMAGE_SIZE = 28
"""The vision tower's input side in pixels; with 14-pixel patches, 4 image tokens per image."""

CHAT_TEMPLATE = (
    "{%- macro render(content) -%}"
    "{%- if content is string -%}{{ content }}{%- else -%}{%- for part in content -%}"
    "{%- if part['type'] == 'image' -%}{{ '<image>' }}"
    "{%- elif part['type'] == 'text' -%}{{ part['text'] }}{%- endif -%}"
    "{%- endfor -%}{%- endif -%}"
    "{%- endmacro -%}"
    "{% for message in messages %}"
    "{% if message['role'] == 'assistant' %}"
    "{{ '<|im_start|>assistant\n' }}"
    "{% generation %}{{ render(message['content']) + '<|im_end|>' }}{% endgeneration %}"
    "{{ '\n' }}"
    "{% else %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + render(message['content']) + '<|im_end|>\n' }}"
    "{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
"""ChatML over string or multimodal content (``[{"type": "image"}, {"type": "text", "text": ...}]``): an image part
becomes LLaVA's ``<image>`` placeholder; assistant replies sit inside `{% generation %}` markers."""


def build_tiny_vlm(path: pathlib.Path, seed: int = 0, vocab_size: int = 320) -> pathlib.Path:
    """Build a tiny LLaVA model + processor at ``path`` (deterministic for a seed) and return the path."""
    import torch
    from transformers import CLIPVisionConfig, LlavaConfig, LlavaForConditionalGeneration, LlavaProcessor, Qwen2Config

    try:  # transformers 5 names the PIL-backed image processor apart (the default one needs torchvision)
        from transformers.models.clip.image_processing_pil_clip import CLIPImageProcessorPil as ImageProcessor
    except ImportError:  # transformers 4: CLIPImageProcessor is the PIL/numpy one
        from transformers import CLIPImageProcessor as ImageProcessor

    tokenizer = tiny._build_tokenizer(vocab_size)
    tokenizer.add_special_tokens({"additional_special_tokens": ["<image>"]})
    tokenizer.chat_template = CHAT_TEMPLATE
    side = IMAGE_SIZE
    processor = LlavaProcessor(
        image_processor=ImageProcessor(size={"shortest_edge": side}, crop_size={"height": side, "width": side}),
        tokenizer=tokenizer,
        patch_size=14,
        vision_feature_select_strategy="default",
        num_additional_image_tokens=1,  # CLIP's CLS token, which "default" drops again
        chat_template=CHAT_TEMPLATE,
    )
    torch.manual_seed(seed)
    text_config = Qwen2Config(
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
    vision_config = CLIPVisionConfig(
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        image_size=side,
        patch_size=14,
        projection_dim=32,
    )
    config = LlavaConfig(
        vision_config=vision_config,
        text_config=text_config,
        image_token_index=tokenizer.convert_tokens_to_ids("<image>"),
        vision_feature_select_strategy="default",
        vision_feature_layer=-1,
        tie_word_embeddings=True,
    )
    model = LlavaForConditionalGeneration(config)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    tmp = path.with_name(path.name + f".tmp{os.getpid()}-{threading.get_ident()}")
    model.save_pretrained(tmp)
    processor.save_pretrained(tmp)
    try:
        tmp.rename(path)  # atomic: parallel builders never see a half-written model
    except OSError:
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
    return path


def recipe_key() -> str:
    """A short hash of this file, the text model's recipe (the tokenizer comes from it) and the library versions."""
    h = hashlib.sha256(pathlib.Path(__file__).read_bytes())
    h.update(tiny.recipe_key().encode())
    return h.hexdigest()[:12]


def vlm_path(seed: int = 0) -> str:
    """The path of the tiny vision-language test model for ``seed``, built on first use."""
    path = tiny.cache_dir() / f"tiny-llava-{recipe_key()}-seed{seed}"
    if not (path / "config.json").exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        build_tiny_vlm(path, seed=seed)
    return str(path)
