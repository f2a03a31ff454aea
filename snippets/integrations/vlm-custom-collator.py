"""A custom VLM collator gets rows SFTTrainer has already tokenized and pruned:
keep them raw.

Page: docs/integrations/vlm-custom-collator.md
中文: docs/integrations/vlm-custom-collator.zh.md
"""

# --8<-- [start:fix]
import torch
from trl import SFTConfig

sft_config = SFTConfig(
    remove_unused_columns=False,  # keep the columns your collator reads
    dataset_kwargs={"skip_prepare_dataset": True},  # do not tokenize rows beforehand
    learning_rate=2e-5,
    bf16=torch.cuda.is_available(),
)
# and pass the processor itself: SFTTrainer(..., processing_class=processor)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os
import tempfile

from datasets import Dataset
from PIL import Image
from transformers import AutoModelForImageTextToText, AutoProcessor, set_seed
from trl import SFTTrainer

VLM = os.environ.get("HANDBOOK_VLM", "Qwen/Qwen2-VL-2B-Instruct")
# 1 on a real model; the handbook's 2-layer test model
# needs ~300x the rate to move in a few steps
LR_SCALE = float(os.environ.get("HANDBOOK_LR_SCALE", "1"))

processor = AutoProcessor.from_pretrained(VLM)


def collate_fn(examples):
    """The cookbook-style collator: open each row's image, apply the chat template."""
    texts, images = [], []
    for example in examples:
        question, answer = example["messages"]
        user = [{"type": "image"}, {"type": "text", "text": question["content"]}]
        chat = [{"role": "user", "content": user}, answer]
        texts.append(processor.apply_chat_template(chat, tokenize=False))
        images.append([Image.open(example["image_path"]).convert("RGB")])
    batch = processor(text=texts, images=images, return_tensors="pt", padding=True)
    labels = batch["input_ids"].clone()
    labels[labels == processor.tokenizer.pad_token_id] = -100
    batch["labels"] = labels
    return batch


def rows(folder):
    """Image paths and chats, as many VQA datasets are stored."""
    out = []
    for name, rgb in {"Red.": (200, 30, 30), "Green.": (30, 200, 30)}.items():
        path = os.path.join(folder, f"{name}png")
        Image.new("RGB", (64, 48), rgb).save(path)
        chat = [
            {"role": "user", "content": "What colour is this?"},
            {"role": "assistant", "content": name},
        ]
        out.append({"image_path": path, "messages": chat})
    return out * 2


def train(seed, config, data, processing_class):
    """Two steps with collate_fn; the logs, or the error the run stopped with."""
    set_seed(seed)
    args = dataclasses.replace(
        config,
        output_dir=tempfile.mkdtemp(),
        per_device_train_batch_size=2,
        max_steps=2,
        learning_rate=config.learning_rate * LR_SCALE,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
    )
    try:
        trainer = SFTTrainer(
            model=AutoModelForImageTextToText.from_pretrained(VLM),
            args=args,
            train_dataset=Dataset.from_list(data),
            processing_class=processing_class,
            data_collator=collate_fn,
        )
        trainer.train()
    except (KeyError, ValueError) as error:
        return f"{type(error).__name__}: {error}"
    return [h for h in trainer.state.log_history if "loss" in h]


def check(seed: int = 0) -> str:
    data = rows(tempfile.mkdtemp())
    default = SFTConfig(learning_rate=2e-5, bf16=torch.cuda.is_available())

    prepared = train(seed, default, data, processor)
    assert prepared == "KeyError: 'messages'", f"claim: tokenized rows {prepared}"

    opened = [{"images": [Image.open(r["image_path"])], **r} for r in data]
    tokenizer_only = train(seed, sft_config, opened, processor.tokenizer)
    expected = "ValueError: The dataset appears to be vision-related"
    refused = tokenizer_only.startswith(expected)
    assert refused, f"claim: a tokenizer is refused {tokenizer_only}"

    fixed = train(seed, sft_config, data, processor)
    assert isinstance(fixed, list) and len(fixed) == 2, f"claim: the fix trains {fixed}"
    assert all(h["grad_norm"] > 0 for h in fixed), f"claim: with gradients {fixed}"
    batch = collate_fn(data[:2])
    assert "pixel_values" in batch, "claim: the collator's batch carries the images"
    return (
        f"default config: {prepared}; processor.tokenizer: {tokenizer_only[:60]}...; "
        f"fixed: loss {fixed[0]['loss']:.3f} -> {fixed[-1]['loss']:.3f}, "
        f"batch keys {sorted(batch)}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
