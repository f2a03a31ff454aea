"""A max_length that ends inside a sample's image placeholders fails the batch in
vision-language SFT and DPO: keep max_length=None or above every sample's length.

Page: docs/integrations/vlm-max-length-image-tokens.md
中文: docs/integrations/vlm-max-length-image-tokens.zh.md
"""

# --8<-- [start:fix]
import torch
from trl import DPOConfig, SFTConfig

sft_config = SFTConfig(
    max_length=None,  # no truncation: image placeholders are never cut
    learning_rate=2e-5,
    bf16=torch.cuda.is_available(),
)
dpo_config = DPOConfig(
    max_length=None,  # the same for preference pairs
    learning_rate=1e-6,
    bf16=torch.cuda.is_available(),
)


def sample_lengths(processor, messages, images):
    """(tokens up to the end of the last image, tokens in all) for one row, counted
    the way the trainer's collator counts them: a max_length below the first
    number cuts an image; below the second it cuts the answer."""
    text = processor.apply_chat_template(messages)
    ids = list(processor(text=[text], images=[images])["input_ids"][0])
    places = [i for i, t in enumerate(ids) if t == processor.image_token_id]
    return (places[-1] + 1 if places else 0), len(ids)


# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os
import tempfile

from datasets import Dataset
from PIL import Image
from transformers import AutoModelForImageTextToText, AutoProcessor, set_seed
from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import (
    Qwen2VLImageProcessorPil,
)
from trl import DPOTrainer, SFTTrainer

VLM = os.environ.get("HANDBOOK_VLM", "Qwen/Qwen2-VL-2B-Instruct")
# 1 on a real model; the handbook's 2-layer test model
# needs ~300x the rate to move in a few steps
LR_SCALE = float(os.environ.get("HANDBOOK_LR_SCALE", "1"))

processor = AutoProcessor.from_pretrained(VLM)
COLOURS = {"Red.": (200, 30, 30), "Green.": (30, 200, 30)}


def turn(role, text, image=False, before=""):
    parts = [{"type": "text", "text": before}] if before else []
    parts += [{"type": "image"}] if image else []
    return {"role": role, "content": parts + [{"type": "text", "text": text}]}


def rows():
    """Picture questions in the three layouts: messages, prompt-completion, DPO."""
    question = "What colour is this picture?"
    chat, pc, pref = [], [], []
    for answer, rgb in COLOURS.items():
        images = [Image.new("RGB", (64, 48), rgb)]
        prompt = [turn("user", question, image=True)]
        good, bad = [turn("assistant", answer)], [turn("assistant", "Blue.")]
        chat.append({"images": images, "messages": prompt + good})
        pc.append({"images": images, "prompt": prompt, "completion": good})
        pref.append(
            {"images": images, "prompt": prompt, "chosen": good, "rejected": bad}
        )
    return chat * 2, pc * 2, pref * 2


def long_rows():
    """Two rows with a long text before the image: their image ends much later."""
    context = "Here is the page of a report, read it before the picture. " * 8
    out = []
    for answer, rgb in COLOURS.items():
        user = turn("user", "What colour is it?", image=True, before=context)
        messages = [user, turn("assistant", answer)]
        out.append({"images": [Image.new("RGB", (64, 48), rgb)], "messages": messages})
    return out


def train(seed, trainer_cls, config, data, steps=2, **overrides):
    """Steps in dataset order: (the loss logs, the error the run stopped with)."""
    set_seed(seed)
    args = dataclasses.replace(
        config,
        output_dir=tempfile.mkdtemp(),
        per_device_train_batch_size=2,
        max_steps=steps,
        learning_rate=config.learning_rate * LR_SCALE,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
        train_sampling_strategy="sequential",  # the rows in dataset order
        **overrides,
    )
    trainer, error = None, None
    try:
        trainer = trainer_cls(
            model=AutoModelForImageTextToText.from_pretrained(VLM),
            args=args,
            train_dataset=Dataset.from_list(data),
            processing_class=processor,
        )
        trainer.train()
    except ValueError as exc:
        cause = f" <- {exc.__cause__}" if exc.__cause__ else ""
        error = f"ValueError: {exc}{cause}"
    history = trainer.state.log_history if trainer else []
    return [h for h in history if "loss" in h], error


def check(seed: int = 0) -> str:
    chat, pc, pref = rows()
    ends = [sample_lengths(processor, r["messages"], r["images"]) for r in chat]
    longest = max(total for _, total in ends)
    # one token short of the end of the image: the last placeholder is cut
    short = min(image_end for image_end, _ in ends) - 1

    # a limit every short row fits in; the long rows come in the third batch
    mixed = chat + long_rows()
    long_end = sample_lengths(processor, mixed[-1]["messages"], mixed[-1]["images"])[0]
    assert long_end > longest, f"set-up: the long rows' image ends past {longest}"
    logs, error = train(seed, SFTTrainer, sft_config, mixed, 3, max_length=longest)
    mismatch = (
        "ValueError: Mismatch in `image` token count between text and `input_ids`"
    )
    assert str(error).startswith(mismatch), f"claim: messages rows {error}"
    assert len(logs) >= 1, f"claim: a step trained before the error {logs}"

    too_short = f"ValueError: The current `max_length` ({short}) is too short"
    features = "Image features and image tokens do not match"
    cut = {
        "SFT prompt-completion": train(
            seed, SFTTrainer, sft_config, pc, max_length=short
        ),
        "DPO": train(seed, DPOTrainer, dpo_config, pref, max_length=short),
    }
    for name, (_, got) in cut.items():
        assert str(got).startswith(too_short), f"claim: {name} {got}"
        assert f"<- {features}" in got, f"claim: {name} wraps the model's error {got}"

    # ends right after the image: no error, but the answer is cut away
    _, silent = train(seed, SFTTrainer, sft_config, chat, max_length=short + 1)
    assert silent is None and longest > short + 1, f"claim: no error {silent}"

    keep_end_mode = dataclasses.replace(sft_config, truncation_mode="keep_end")
    _, refused = train(seed, SFTTrainer, keep_end_mode, chat, max_length=short)
    assert str(refused).startswith(
        "ValueError: truncation_mode='keep_end' is not supported for vision datasets"
    ), f"claim: keep_end is refused {refused}"

    fixed = {
        "SFT messages": train(seed, SFTTrainer, sft_config, chat),
        "SFT prompt-completion": train(seed, SFTTrainer, sft_config, pc),
        "DPO": train(seed, DPOTrainer, dpo_config, pref),
    }
    for name, (steps, failed) in fixed.items():
        assert failed is None and len(steps) == 2, f"claim: {name} trains {failed}"
        assert steps[-1]["grad_norm"] > 0, f"claim: {name} with gradients {steps}"

    # Qwen2-VL's image processor (transformers' defaults): one 1280x960 photo
    photo = [Image.new("RGB", (1280, 960))]
    tokens = {}
    for name, kwargs in {
        "default": {},
        "max_pixels": {"max_pixels": 256 * 28 * 28},
    }.items():
        image_processor = Qwen2VLImageProcessorPil(**kwargs)
        grid = image_processor(images=photo, return_tensors="pt")["image_grid_thw"]
        tokens[name] = int(grid.prod()) // image_processor.merge_size**2
    fields = {f.name: f.default for f in dataclasses.fields(SFTConfig)}
    default_limit = fields["max_length"]  # 1024
    assert tokens["default"] > default_limit, f"claim: one photo fills {tokens}"
    assert tokens["max_pixels"] < default_limit / 4, f"claim: max_pixels {tokens}"

    return (
        f"max_length={longest}: {len(logs)} step(s) trained, then (long rows, image at "
        f"{long_end}) -> {error[:50]}...; max_length={short}: prompt-completion "
        f"and DPO -> {cut['DPO'][1][:50]}...; keep_end refused; max_length=None "
        f"trains all three; Qwen2-VL photo {tokens['default']} tokens (default "
        f"max_length {default_limit}), {tokens['max_pixels']} with max_pixels"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
