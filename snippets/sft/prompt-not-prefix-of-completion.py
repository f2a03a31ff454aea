"""The tokenized prompt is not a prefix of the tokenized prompt+completion: a
prompt that ends in a space, and a template that renders the prompt alone
differently, both trigger it; ending the prompt on a token boundary and a
template that renders the prompt the same way both stop it.

Page: docs/sft/prompt-not-prefix-of-completion.md
中文: docs/sft/prompt-not-prefix-of-completion.zh.md
"""

# --8<-- [start:fix]
from pathlib import Path

import torch
from trl import SFTConfig


# Standard (text) prompt-completion data: the prompt must end on a token
# boundary. Move the whitespace that ends a prompt to the start of its
# completion: "Answer: " + "no." becomes "Answer:" + " no."
def end_prompt_on_token_boundary(example):
    prompt = example["prompt"].rstrip()
    space = example["prompt"][len(prompt) :]
    return {"prompt": prompt, "completion": space + example["completion"]}


# Conversational data: a template whose finished reply starts with what its
# generation prompt ends with (here the empty think block of "thinking off"),
# so that the prompt renders the same alone and followed by the completion.
NO_THINK_TRAINING = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' }}"
    "{% if message['role'] == 'assistant' %}"
    "{{ '<think>\n</think>\n' }}"
    "{% endif %}"
    "{{ message['content'] + '<|im_end|>\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}"
    "{{ '<|im_start|>assistant\n<think>\n</think>\n' }}"
    "{% endif %}"
)
Path("no_think_training.jinja").write_text(NO_THINK_TRAINING)
sft_config = SFTConfig(
    chat_template_path="no_think_training.jinja",
    learning_rate=2e-5,
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import logging
import logging.handlers
import os

from accelerate.logging import MultiProcessAdapter
from datasets import Dataset
from transformers import AutoModelForCausalLM, AutoTokenizer, set_seed
from trl import SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
WARNING = "The tokenized prompt is not a prefix of the tokenized prompt+completion"

# Standard data whose prompts end in a space, as many datasets have them
TEXT = [
    {"prompt": "Is two plus two five? Answer yes or no: ", "completion": "no."},
    {"prompt": "Is the sea wide? Answer yes or no: ", "completion": "yes."},
]
# Conversational data
CHAT = [
    {
        "prompt": [{"role": "user", "content": "What is the capital of France?"}],
        "completion": [{"role": "assistant", "content": "Paris."}],
    },
    {
        "prompt": [{"role": "user", "content": "Two plus two?"}],
        "completion": [{"role": "assistant", "content": "Four."}],
    },
]
# The template as a "thinking off" model may ship it (Gemma 4 and others): the
# generation prompt ends with an empty think block that a finished reply drops.
NO_THINK_AS_SHIPPED = NO_THINK_TRAINING.replace(
    "{% if message['role'] == 'assistant' %}{{ '<think>\n</think>\n' }}{% endif %}",
    "",
)


def build(args, rows, tokenizer, seed):
    """SFTTrainer over rows, with the messages TRL logged while preparing them."""
    # TRL logs this warning once per process (warning_once): forget that it did
    # so that every trainer built here can show it.
    MultiProcessAdapter.warning_once.cache_clear()
    captured = logging.handlers.BufferingHandler(capacity=10_000)  # keeps the records
    logging.getLogger("trl").addHandler(captured)
    try:
        trainer = SFTTrainer(
            model=AutoModelForCausalLM.from_pretrained(MODEL),
            args=dataclasses.replace(
                args,
                max_steps=2,
                per_device_train_batch_size=2,
                logging_steps=1,
                save_strategy="no",
                report_to="none",
                seed=seed,
            ),
            train_dataset=Dataset.from_list(rows),
            processing_class=tokenizer,
        )
    finally:
        logging.getLogger("trl").removeHandler(captured)
    return trainer, [
        m for m in (r.getMessage() for r in captured.buffer) if WARNING in m
    ]


def labelled(trainer, i=0):
    """The text of the tokens that carry a label in prepared example i."""
    row = trainer.train_dataset[i]
    ids = [t for t, label in zip(row["input_ids"], row["labels"]) if label != -100]
    return trainer.processing_class.decode(ids)


def check(seed: int = 0) -> str:
    set_seed(seed)
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    eos = tokenizer.eos_token
    args = SFTConfig(learning_rate=2e-5, bf16=torch.cuda.is_available())

    # Cause 1: the prompt ends in a space that merges with the completion's first
    # word (" no" is one token, and the prompt alone ends in a lone " ").
    symptom, warned = build(args, TEXT, tokenizer, seed)
    prompt_ids = tokenizer(TEXT[0]["prompt"])["input_ids"]
    row = symptom.train_dataset[0]
    assert len(warned) == 1 and "training sequence: ' '." in warned[0], (
        f"claim: TRL warns that the prompt's trailing ' ' is left out: {warned}"
    )
    assert row["input_ids"][: len(prompt_ids)] != prompt_ids, (
        "claim: the tokenized prompt is not a prefix of prompt+completion"
    )
    kept = row["labels"].count(-100)
    assert kept == len(prompt_ids) - 1 and row["input_ids"][:kept] == prompt_ids[:-1], (
        f"claim: the prompt's last token is not in the training sequence: {kept}"
    )
    assert labelled(symptom) == " no." + eos, (
        f"claim: the merged ' no' is trained as completion: {labelled(symptom)!r}"
    )
    symptom.train()

    # Fix 1: the space starts the completion
    text = [end_prompt_on_token_boundary(example) for example in TEXT]
    fixed, warned = build(args, text, tokenizer, seed)
    prompt_ids = tokenizer(text[0]["prompt"])["input_ids"]
    row = fixed.train_dataset[0]
    assert warned == [], (
        f"claim: no warning once the prompt ends on a boundary: {warned}"
    )
    assert row["input_ids"][: len(prompt_ids)] == prompt_ids, (
        "claim: the tokenized prompt is now a prefix of prompt+completion"
    )
    completion = row["input_ids"][len(prompt_ids) :]
    assert row["labels"] == [-100] * len(prompt_ids) + completion, (
        "claim: the labels cover exactly the tokens after the prompt"
    )
    assert labelled(fixed) == " no." + eos, (
        f"claim: the completion is trained in full: {labelled(fixed)!r}"
    )
    # TRL >= 1.14.2 trains the same tokens either way: what the fix changes is
    # the prompt a user sends at inference, which now ends where training split.
    assert (row["input_ids"], row["labels"]) == (
        symptom.train_dataset[0]["input_ids"],
        symptom.train_dataset[0]["labels"],
    ), "claim: both datasets train the same tokens with the same labels"
    fixed.train()

    # Cause 2: the template renders the prompt alone (with the generation prompt)
    # differently: its empty think block is missing from prompt+completion.
    tokenizer.chat_template = NO_THINK_AS_SHIPPED
    shipped, warned = build(args, CHAT, tokenizer, seed)
    sequence = tokenizer.decode(shipped.train_dataset[0]["input_ids"])
    assert len(warned) == 1 and "'<think>\\n</think>\\n'" in warned[0], (
        f"claim: TRL warns that the empty think block is left out: {warned}"
    )
    assert "<think>" not in sequence, (
        f"claim: the model trains without the think block it sees at inference: "
        f"{sequence!r}"
    )
    assert labelled(shipped) == "Paris.<|im_end|>\n", (
        f"claim: the reply is labelled from where they diverge: {labelled(shipped)!r}"
    )

    # Fix 2: sft_config loads the template that renders the prompt the same way
    templated, warned = build(sft_config, CHAT, tokenizer, seed)
    sequence = tokenizer.decode(templated.train_dataset[0]["input_ids"])
    assert warned == [], (
        f"claim: no warning with a prefix-preserving template: {warned}"
    )
    assert "<think>\n</think>\nParis." in sequence, (
        f"claim: the model trains on the context it sees at inference: {sequence!r}"
    )
    assert labelled(templated) == "Paris.<|im_end|>\n", (
        f"claim: only the reply is labelled: {labelled(templated)!r}"
    )
    templated.train()
    return (
        f"trailing space: warned, {kept}/{kept + 1} prompt tokens kept, "
        "' no' labelled as completion; space moved: no warning, exact mask; "
        "think-block template: warned, block dropped; chat_template_path: no warning"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
