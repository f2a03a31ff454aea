"""Vision-language SFT/DPO/GRPO: images go in an "images" list column (or
"image", one per row).

Page: docs/integrations/vlm-image-column-format.md
中文: docs/integrations/vlm-image-column-format.zh.md
"""


# --8<-- [start:fix]
def trl_vision_row(messages, images=()):
    """One chat as TRL's trainers read it: every image in an "images" list, and only
    bare {"type": "image"} placeholders (no payload) in the messages."""
    images, chat = list(images), []
    for message in messages:
        content = message["content"]
        if isinstance(content, list):  # move embedded images out of the content
            parts = []
            for part in content:
                if part["type"] == "image" and part.get("image") is not None:
                    images.append(part["image"])
                    part = {"type": "image"}
                parts.append(part)
            message = {**message, "content": parts}
        chat.append(message)
    return {"messages": chat, "images": images}


# --8<-- [end:fix]


# --8<-- [start:evidence]
import os
import tempfile

import torch
from datasets import Dataset
from PIL import Image
from transformers import AutoModelForImageTextToText, AutoProcessor, set_seed
from trl import SFTConfig, SFTTrainer

VLM = os.environ.get("HANDBOOK_VLM", "Qwen/Qwen2-VL-2B-Instruct")
# 1 on a real model; the handbook's 2-layer test model
# needs ~300x the rate to move in a few steps
LR_SCALE = float(os.environ.get("HANDBOOK_LR_SCALE", "1"))

COLOURS = {"Red.": (200, 30, 30), "Green.": (30, 200, 30)}


def chats():
    """(image, question, answer) as many datasets store them."""
    question = "What colour is this?"
    size = (64, 48)
    rows = [(Image.new("RGB", size, rgb), question, a) for a, rgb in COLOURS.items()]
    return rows * 2


def plain(question, answer):
    return [
        {"role": "user", "content": question},
        {"role": "assistant", "content": answer},
    ]


def with_parts(question, answer, image=None):
    picture = {"type": "image", "image": image} if image else {"type": "image"}
    return [
        {"role": "user", "content": [picture, {"type": "text", "text": question}]},
        {"role": "assistant", "content": [{"type": "text", "text": answer}]},
    ]


def sft(seed, rows, steps=1):
    """SFTTrainer on rows: read a batch, train; (batch keys, logs) or the error."""
    set_seed(seed)
    args = SFTConfig(
        output_dir=tempfile.mkdtemp(),
        per_device_train_batch_size=2,
        max_steps=steps,
        learning_rate=2e-5 * LR_SCALE,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    try:
        trainer = SFTTrainer(
            model=AutoModelForImageTextToText.from_pretrained(VLM),
            args=args,
            train_dataset=Dataset.from_list(rows),
            processing_class=AutoProcessor.from_pretrained(VLM),
        )
        keys = sorted(next(iter(trainer.get_train_dataloader())))
        trainer.train()
    except (ValueError, TypeError) as error:
        return f"{type(error).__name__}: {error}"
    logs = [h for h in trainer.state.log_history if "loss" in h]
    return keys, logs


def check(seed: int = 0) -> str:
    data = chats()
    placeholders = [{"imgs": [i], "messages": with_parts(q, a)} for i, q, a in data]
    broken = {
        "image: [img]": [{"image": [i], "messages": plain(q, a)} for i, q, a in data],
        "images: img": [{"images": i, "messages": plain(q, a)} for i, q, a in data],
        "image in content": [{"messages": with_parts(q, a, i)} for i, q, a in data],
        "imgs + placeholder": placeholders,
    }
    seen = {name: sft(seed, rows) for name, rows in broken.items()}
    expected = {
        "image: [img]": "ValueError: Could not make a flat list of images",
        "images: img": "TypeError: object of type",
        "image in content": "TypeError: only a single or a list of entries",
        "imgs + placeholder": "ValueError: Number of images provided (0)",
    }
    for name, start in expected.items():
        got = seen[name]
        assert isinstance(got, str) and got.startswith(start), f"claim: {name}: {got}"

    keys, _ = sft(seed, [{"imgs": [i], "messages": plain(q, a)} for i, q, a in data])
    assert "pixel_values" not in keys, f"claim: 'imgs' trains text-only {keys}"

    fixed_rows = [trl_vision_row(with_parts(q, a, i)) for i, q, a in data]
    fixed = sft(seed, fixed_rows, steps=2)
    assert not isinstance(fixed, str), f"claim: the fixed rows train: {fixed}"
    keys, logs = fixed
    assert "pixel_values" in keys, f"claim: the fixed rows bring pixels {keys}"
    assert len(logs) == 2 and logs[-1]["grad_norm"] > 0, f"claim: and train {logs}"
    return "; ".join(f"{k} -> {v[:60]}" for k, v in seen.items()) + (
        f"; 'imgs' with plain text trains without pixel_values; fixed batch keys {keys}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
