"""Assistant-only masks that train everything or nothing: what TRL
catches and what stays silent.

Page: docs/sft/assistant-only-mask-traps.md
中文: docs/sft/assistant-only-mask-traps.zh.md
"""

# --8<-- [start:fix]
from pathlib import Path

import torch
from trl import SFTConfig

# SmolLM2-Instruct's ChatML template, unchanged except for {% generation %} ...
# {% endgeneration %} around each assistant reply AND its <|im_end|>: exactly the tokens
# inside get a label with assistant_only_loss=True.
CHATML_TRAINING = (
    "{% for message in messages %}"
    "{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained "
    "by Hugging Face<|im_end|>\n' }}"
    "{% endif %}"
    "{% if message['role'] == 'assistant' %}"
    "{{ '<|im_start|>assistant\n' }}"
    "{% generation %}{{ message['content'] + '<|im_end|>' }}{% endgeneration %}"
    "{{ '\n' }}"
    "{% else %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + "
    "message['content'] + '<|im_end|>\n' }}"
    "{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
Path("chatml_training.jinja").write_text(CHATML_TRAINING)
sft_config = SFTConfig(
    assistant_only_loss=True,
    # read over the tokenizer's template when the trainer starts
    chat_template_path="chatml_training.jinja",
    bf16=torch.cuda.is_available(),
)


def labelled_text(trainer, i=0):
    """The text of the tokens that carry a label in prepared
    example i: read it before a long run.

    It asks the trainer's collator, which builds the labels the model
    trains on in every TRL version.
    """
    batch = trainer.data_collator([trainer.train_dataset[i]])
    return trainer.processing_class.decode(batch["input_ids"][batch["labels"] != -100])


# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os
import re

import trl
from datasets import Dataset
from packaging.version import Version
from transformers import AutoModelForCausalLM, AutoTokenizer, set_seed
from trl import SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
# SFTTrainer checks (and swaps) templates at start-up
NEW_TRL = Version(trl.__version__) >= Version("1.1")

CHAT = [
    [
        {"role": "user", "content": "What is the capital of France?"},
        {"role": "assistant", "content": "Paris."},
    ],
    [
        {"role": "user", "content": "Two plus two?"},
        {"role": "assistant", "content": "Four."},
    ],
]


def without_markers(template):
    """The template as most hub models ship it: no {% generation %} markers (a
    no-op on SmolLM2's or Qwen2.5's)."""
    return re.sub(r"\{%-?\s*(end)?generation\s*-?%\}", "", template)


def prepare(model, args, template=None):
    """Build an SFTTrainer (dataset preparation only, no training).
    template=None keeps the tokenizer's own."""
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    if template is not None:
        tokenizer.chat_template = template
    dataset = Dataset.from_list([{"messages": messages} for messages in CHAT])
    return SFTTrainer(
        model=model, args=args, train_dataset=dataset, processing_class=tokenizer
    )


def counts(trainer):
    """(labelled tokens, all tokens, rows) over the prepared dataset, as the
    trainer's collator labels them."""
    batches = [trainer.data_collator([row]) for row in trainer.train_dataset]
    labelled = sum(int((batch["labels"] != -100).sum()) for batch in batches)
    return labelled, sum(batch["input_ids"].numel() for batch in batches), len(batches)


def check(seed: int = 0) -> str:
    set_seed(seed)
    model = AutoModelForCausalLM.from_pretrained(MODEL)
    bf16 = torch.cuda.is_available()
    # The model's template as hub models ship it: SmolLM2's as it is; the tiny test
    # model's with its markers stripped (it is the marked CHATML_TRAINING's shape);
    # Qwen2.5's as it is (TRL ships a marked copy of that one).
    hub_template = without_markers(AutoTokenizer.from_pretrained(MODEL).chat_template)

    # Trap 1: assistant_only_loss left at its default (False): user
    # turns and markup are trained too.
    labelled, tokens, _ = counts(prepare(model, SFTConfig(bf16=bf16), hub_template))
    assert labelled == tokens, (
        f"claim: by default every token is labelled, got {labelled}/{tokens}"
    )

    # Trap 2: assistant_only_loss=True on a template without markers that TRL has no
    # training copy of: SFTTrainer refuses it (ValueError at start-up since TRL 1.1,
    # RuntimeError during dataset preparation before).
    try:
        swapped = prepare(
            model, SFTConfig(assistant_only_loss=True, bf16=bf16), hub_template
        )
        error = "no error"
    except (ValueError, RuntimeError) as e:
        swapped, error = None, f"{type(e).__name__}: {e}"
    if swapped is None:
        expected = "not training-compatible" if NEW_TRL else "no assistant tokens"
        assert expected in error, (
            "claim: SFTTrainer refuses an unmarked template "
            f"it cannot patch, got {error!r}"
        )
        how = error.split(":")[0]
    # only TRL >= 1.1, only for a template it ships a marked
    # copy of (Qwen2.5, Llama 3, ...)
    else:
        swapped_text = labelled_text(swapped)
        assert NEW_TRL and swapped.chat_template, (
            f"claim: only TRL >= 1.1 swaps a template in, got {error!r}"
        )
        assert "capital" not in swapped_text, (
            f"claim: the swapped-in copy masks the prompt: {swapped_text!r}"
        )
        how = "TRL swapped in its training copy"

    # Trap 3: the same template through transformers directly:
    # an all-zero mask and no error.
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    masks = {
        name: tokenizer.apply_chat_template(
            CHAT[0],
            chat_template=template,
            return_assistant_tokens_mask=True,
            return_dict=True,
        )["assistant_masks"]
        for name, template in (("plain", hub_template), ("marked", CHATML_TRAINING))
    }
    assert sum(masks["plain"]) == 0 < sum(masks["marked"]), (
        f"claim: no markers -> all-zero mask, got {masks}"
    )

    # Trap 4: the old string-matching collator is gone.
    assert not hasattr(trl, "DataCollatorForCompletionOnlyLM"), (
        "claim: TRL no longer has the old collator"
    )

    # Fix: sft_config loads the marked template from
    # chat_template_path over the same unmarked one.
    fixed = prepare(model, sft_config, hub_template)
    marked = counts(fixed)
    assert labelled_text(fixed) == "Paris.<|im_end|>", (
        f"claim: only reply + <|im_end|>: {labelled_text(fixed)!r}"
    )
    assert 0 < marked[0] < marked[1] / 2, (
        f"claim: assistant-only keeps a minority of tokens, got {marked}"
    )
    packed = counts(
        prepare(model, dataclasses.replace(sft_config, packing=True, max_length=256))
    )
    assert packed[2] < marked[2], (
        f"claim: packing merges the rows, got {packed[2]} vs {marked[2]}"
    )
    assert packed[0] == marked[0], (
        f"claim: packing keeps the mask, got {packed[0]} vs {marked[0]} labelled"
    )
    return (
        f"default labels {labelled}/{tokens} tokens; assistant_only_loss on the "
        f"unmarked template -> {how}; transformers' mask all 0; chat_template_path "
        f"with markers: {marked[0]}/{marked[1]} labelled, {packed[0]} after "
        f"packing into {packed[2]} row(s)"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
