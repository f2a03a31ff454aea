"""DPO on a vision-language model: TRL >= 0.29 with the processor and an "images"
column.

Page: docs/integrations/vlm-dpo-processor.md
中文: docs/integrations/vlm-dpo-processor.zh.md
"""


# --8<-- [start:fix]
def vlm_preference_row(images, question, chosen, rejected):
    """One DPO row for a vision-language model: conversational, the images in a list.
    TRL puts an image placeholder before the first user message for each image."""
    return {
        "images": list(images),
        "prompt": [{"role": "user", "content": question}],
        "chosen": [{"role": "assistant", "content": chosen}],
        "rejected": [{"role": "assistant", "content": rejected}],
    }


# DPOTrainer(model=..., processing_class=AutoProcessor.from_pretrained(model_id), ...)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import math
import os
import tempfile

import torch
from datasets import Dataset
from PIL import Image
from transformers import AutoModelForImageTextToText, AutoProcessor, set_seed
from trl import DPOConfig, DPOTrainer

VLM = os.environ.get("HANDBOOK_VLM", "Qwen/Qwen2-VL-2B-Instruct")
# 1 on a real model; the handbook's 2-layer test model
# needs ~300x the rate to move in a few steps
LR_SCALE = float(os.environ.get("HANDBOOK_LR_SCALE", "1"))

COLOURS = {"red": (200, 30, 30), "green": (30, 200, 30)}


def rows():
    out = []
    for name, rgb in COLOURS.items():
        other = "green" if name == "red" else "red"
        image = Image.new("RGB", (64, 48), rgb)
        question = "What colour is this?"
        row = vlm_preference_row([image], question, f"It is {name}.", f"It is {other}.")
        out.append(row)
    return out * 2


def trainer(seed, processing_class, **config):
    set_seed(seed)
    args = DPOConfig(
        output_dir=tempfile.mkdtemp(),
        per_device_train_batch_size=2,
        max_steps=2,
        learning_rate=5e-6 * LR_SCALE,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
        bf16=torch.cuda.is_available(),
        **config,
    )
    return DPOTrainer(
        model=AutoModelForImageTextToText.from_pretrained(VLM),
        args=args,
        train_dataset=Dataset.from_list(rows()),
        processing_class=processing_class,
    )


def check(seed: int = 0) -> str:
    processor = AutoProcessor.from_pretrained(VLM)
    try:
        trainer(seed, processor.tokenizer)
        refused = None
    except ValueError as error:
        refused = str(error)
    tokenizer_refused = refused and "appears to be vision-related" in refused
    assert tokenizer_refused, f"claim: a tokenizer is refused for image rows: {refused}"

    try:
        trainer(seed, processor, precompute_ref_log_probs=True)
        precompute = None
    except ValueError as error:
        precompute = str(error)
    expected = "`precompute_ref_log_probs=True` is not supported for vision datasets"
    assert precompute and expected in precompute, f"claim: refused: {precompute}"

    dpo = trainer(seed, processor)
    examples = [dict(r) for r in dpo.train_dataset.select(range(2))]
    batch = dpo.data_collator([dict(e) for e in examples])
    images = [image for e in examples for image in e["images"]]
    pixels = processor.image_processor(images=images, return_tensors="pt")
    missing = set(pixels) - set(batch)  # e.g. Qwen2-VL's image_grid_thw
    assert not missing, f"claim: the batch carries every image input: {missing}"
    both_halves = torch.cat([pixels["pixel_values"]] * 2)  # chosen and rejected
    full = torch.equal(batch["pixel_values"], both_halves)
    assert full, "claim: every image's full pixel_values reach the model"

    dpo.train()
    logs = [h for h in dpo.state.log_history if "loss" in h]
    assert abs(logs[0]["loss"] - math.log(2)) < 1e-3, f"claim: step 1 at ln 2 {logs}"
    assert all(h["grad_norm"] > 0 for h in logs), f"claim: and it trains {logs}"
    return (
        f"tokenizer and precompute_ref_log_probs refused; batch keys {sorted(batch)}, "
        "pixel_values "
        f"{tuple(batch['pixel_values'].shape)} = the image processor's, twice; losses "
        f"{[round(h['loss'], 4) for h in logs]}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
