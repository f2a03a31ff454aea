"""Batched generate() with a right-padded tokenizer: the shorter prompts of a batch
get completions that continue the padding, not the prompt (transformers warns
"right-padding was detected"); padding_side="left" gives every prompt the
completion it gets alone. GRPOTrainer left-pads its prompts itself.

Page: docs/online-rl/batched-generation-right-padding.md
中文: docs/online-rl/batched-generation-right-padding.zh.md
"""


# --8<-- [start:fix]
def generate_batch(model, tokenizer, prompts, max_new_tokens=64):
    batch = tokenizer(
        prompts,
        return_tensors="pt",
        padding=True,
        padding_side="left",  # decoder-only models continue from the last column
    ).to(model.device)
    out = model.generate(**batch, max_new_tokens=max_new_tokens, do_sample=False)
    # every prompt now ends at the same column: the completions start there
    new_tokens = out[:, batch["input_ids"].shape[1] :]
    return tokenizer.batch_decode(new_tokens, skip_special_tokens=True)


# --8<-- [end:fix]


# --8<-- [start:evidence]
import logging
import os
import tempfile

import torch
from datasets import Dataset
from transformers import AutoModelForCausalLM, AutoTokenizer, set_seed
from transformers.utils import logging as hf_logging
from trl import GRPOConfig, GRPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
PROMPTS = [
    "Write one sentence about the sea, the wind and the boats in the harbour.",
    "The capital of France is",
    "2 + 2 =",
    "Hello",
]
WARNING = "A decoder-only architecture is being used, but right-padding was detected!"


class Captured(logging.Handler):
    def __init__(self):
        super().__init__()
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def generate_with_side(model, tokenizer, prompts, side):
    """What eval code often does: pad the batch on the tokenizer's side."""
    batch = tokenizer(prompts, return_tensors="pt", padding=True, padding_side=side)
    out = model.generate(**batch, max_new_tokens=8, do_sample=False)
    new_tokens = out[:, batch["input_ids"].shape[1] :]
    return tokenizer.batch_decode(new_tokens, skip_special_tokens=True)


def grpo_prompt_masks(seed, tokenizer):
    """The attention masks GRPOTrainer passes to generate() (tokenizer pads right)."""
    masks = []
    rows = [{"prompt": p} for p in PROMPTS]
    args = GRPOConfig(
        output_dir=tempfile.mkdtemp(),
        per_device_train_batch_size=4,
        num_generations=2,
        max_completion_length=8,
        max_steps=1,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    trainer = GRPOTrainer(
        model=MODEL,
        reward_funcs=lambda completions, **kw: [float(len(c)) for c in completions],
        args=args,
        train_dataset=Dataset.from_list(rows),
        processing_class=tokenizer,
    )
    generate = trainer.model.generate

    def traced(*a, **kw):
        masks.append(kw["attention_mask"].clone())
        return generate(*a, **kw)

    trainer.model.generate = traced
    trainer.train()
    return masks


def check(seed: int = 0) -> str:
    set_seed(seed)
    model = AutoModelForCausalLM.from_pretrained(MODEL)
    # the default side of a tokenizer whose config does not set one
    tokenizer = AutoTokenizer.from_pretrained(MODEL, padding_side="right")
    alone = [generate_with_side(model, tokenizer, [p], "right")[0] for p in PROMPTS]

    captured, level = Captured(), hf_logging.get_verbosity()
    # warnings are shown by default; some launchers set TRANSFORMERS_VERBOSITY=error
    hf_logging.set_verbosity_warning()
    logging.getLogger("transformers").addHandler(captured)
    try:
        right = generate_with_side(model, tokenizer, PROMPTS, "right")
        warned_right = any(WARNING in m for m in captured.messages)
        captured.messages.clear()
        left = generate_batch(model, tokenizer, PROMPTS, max_new_tokens=8)
        warned_left = any(WARNING in m for m in captured.messages)
    finally:
        logging.getLogger("transformers").removeHandler(captured)
        hf_logging.set_verbosity(level)

    assert warned_right and not warned_left, (
        "claim: transformers warns about right-padding for the right-padded batch "
        f"only (right: {warned_right}, left: {warned_left})"
    )
    assert right[0] == alone[0], (
        f"claim: the longest prompt has no padding and is unchanged: {right[0]!r}"
    )
    wrong = [i for i in range(1, len(PROMPTS)) if right[i] != alone[i]]
    assert len(wrong) >= 2, (
        "claim: right padding changes the completions of the shorter prompts: "
        f"{[(alone[i], right[i]) for i in range(len(PROMPTS))]}"
    )
    assert left == alone, (
        "claim: with left padding every prompt gets its unbatched completion: "
        f"{list(zip(alone, left))}"
    )

    masks = grpo_prompt_masks(seed, tokenizer)
    assert masks, "claim: GRPOTrainer generated with transformers"
    for mask in masks:
        assert (mask[:, -1] == 1).all() and (mask[:, 0] == 0).any(), (
            "claim: GRPOTrainer left-pads its prompts although the tokenizer pads "
            f"right: first column {mask[:, 0].tolist()}, last {mask[:, -1].tolist()}"
        )
    return (
        f"right padding: {len(wrong)}/{len(PROMPTS) - 1} shorter prompts changed, "
        f"e.g. {alone[wrong[0]]!r} -> {right[wrong[0]]!r}; left padding: all "
        f"{len(PROMPTS)} match; GRPOTrainer left-padded {len(masks)} batch(es)"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
