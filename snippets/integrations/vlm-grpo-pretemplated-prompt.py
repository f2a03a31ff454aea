"""GRPO on a vision-language model: a prompt already rendered with the chat
template (a string) next to an image column fails; keep the prompt as messages.

Page: docs/integrations/vlm-grpo-pretemplated-prompt.md
中文: docs/integrations/vlm-grpo-pretemplated-prompt.zh.md
"""


# --8<-- [start:fix]
def make_conversation(example):
    """One GRPO row for a VLM: the prompt stays a list of messages with a bare
    {"type": "image"} placeholder; the image goes in its own column. GRPOTrainer
    applies the processor's chat template itself."""
    prompt = [
        {
            "role": "user",
            "content": [
                {"type": "image"},
                {"type": "text", "text": example["problem"]},
            ],
        },
    ]
    return {"prompt": prompt, "image": example["image"]}


# --8<-- [end:fix]


# --8<-- [start:evidence]
import os
import tempfile

import torch
from datasets import Dataset
from PIL import Image
from transformers import AutoModelForImageTextToText, AutoProcessor, set_seed
from trl import GRPOConfig, GRPOTrainer
from trl.data_utils import prepare_multimodal_messages

VLM = os.environ.get("HANDBOOK_VLM", "Qwen/Qwen2-VL-2B-Instruct")
# 1 on a real model; the handbook's 2-layer test model
# needs ~300x the rate to move in a few steps
LR_SCALE = float(os.environ.get("HANDBOOK_LR_SCALE", "1"))

processor = AutoProcessor.from_pretrained(VLM)
image_token_id = processor.tokenizer.convert_tokens_to_ids(processor.image_token)


def raw_rows():
    """(image, problem) rows as a VQA dataset stores them."""
    colours = [(200, 30, 30), (30, 200, 30), (30, 30, 200), (200, 200, 30)]
    problem = "What colour is this picture?"
    return [
        {"image": Image.new("RGB", (32, 32), c), "problem": problem} for c in colours
    ]


def pretemplated(example):
    """The tempting recipe: render the prompt to text up front (image inside)."""
    conversation = [
        {
            "role": "user",
            "content": [
                {"type": "image", "image": example["image"]},
                {"type": "text", "text": example["problem"]},
            ],
        },
    ]
    prompt = processor.apply_chat_template(conversation, add_generation_prompt=True)
    return {"prompt": prompt, "image": example["image"]}


def short_reward(completions, **kwargs):
    return [-float(len(str(c))) for c in completions]


def grpo(seed, make_row):
    """GRPOTrainer on rows built by make_row: (logs, vision tower calls) or error."""
    set_seed(seed)
    args = GRPOConfig(
        output_dir=tempfile.mkdtemp(),
        per_device_train_batch_size=4,
        num_generations=2,
        max_completion_length=8,
        # the random test model can sample the image token; a trained one does not
        generation_kwargs={"suppress_tokens": [image_token_id]},
        max_steps=2,
        learning_rate=1e-6 * LR_SCALE,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    model = AutoModelForImageTextToText.from_pretrained(VLM)
    calls = []
    # every image the policy sees goes through the vision tower
    model.model.vision_tower.register_forward_hook(lambda *a: calls.append(1))
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=short_reward,
        args=args,
        train_dataset=Dataset.from_list([make_row(r) for r in raw_rows()]),
        processing_class=processor,
    )
    try:
        trainer.train()
    except (ValueError, TypeError) as error:
        return f"{type(error).__name__}: {error}"
    return [h for h in trainer.state.log_history if "loss" in h], len(calls)


def check(seed: int = 0) -> str:
    symptom = grpo(seed, pretemplated)
    assert isinstance(symptom, str) and symptom.startswith(
        "ValueError: Multimodal training requires conversational prompts"
    ), f"claim: a pre-rendered string prompt with an image is refused: {symptom}"

    # TRL 0.25-0.28 had no such check: they passed the string straight to this
    # helper, which walks it as a list of messages, character by character
    row = pretemplated(raw_rows()[0])
    try:
        prepare_multimodal_messages(row["prompt"], images=[row["image"]])
        old = "no error"
    except TypeError as error:
        old = f"TypeError: {error}"
    assert old.startswith("TypeError: string indices must be integers"), (
        f"claim: the pre-0.29 path fails with the cryptic TypeError: {old}"
    )

    # keeping the chat but leaving the picture inside it as well as in "image":
    # a filled part is no placeholder, so one image has nowhere to go
    chat = [{"role": "user", "content": [{"type": "image", "image": row["image"]}]}]
    try:
        prepare_multimodal_messages(chat, images=[row["image"]])
        both = "no error"
    except ValueError as error:
        both = f"ValueError: {error}"
    assert both.startswith(
        "ValueError: Number of images provided (1) does not match"
    ), f"claim: an image in the content and in the column is one too many: {both}"

    fixed = grpo(seed, make_conversation)
    assert not isinstance(fixed, str), f"claim: conversational prompts train: {fixed}"
    logs, vision_calls = fixed
    assert len(logs) == 2, f"claim: both steps train {logs}"
    assert vision_calls > 0, "claim: the images reach the vision tower"
    return (
        f"pre-rendered prompt -> {symptom[:70]}...; pre-0.29 path -> {old}; "
        f"conversational prompt trains "
        f"{len(logs)} steps, vision tower called {vision_calls} times"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
