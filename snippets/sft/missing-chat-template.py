"""Conversational data + a tokenizer without a chat template: what TRL
raises, and chat_template_path.

Page: docs/sft/missing-chat-template.md
中文: docs/sft/missing-chat-template.zh.md
"""

# --8<-- [start:fix]
import os
import tempfile

import torch
from trl import SFTConfig

CHATML = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + "
    "message['content'] + '<|im_end|>\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)
template_dir = tempfile.TemporaryDirectory()
chatml_file = os.path.join(template_dir.name, "chatml.jinja")
with open(chatml_file, "w", encoding="utf-8") as f:
    f.write(CHATML)


def config_with_template(seed=0):
    """A .jinja path in chat_template_path is read into
    the tokenizer's chat_template."""
    return SFTConfig(
        chat_template_path=chatml_file,
        seed=seed,
        bf16=torch.cuda.is_available(),
        save_strategy="no",
    )


# --8<-- [end:fix]


# --8<-- [start:evidence]
from datasets import Dataset
from transformers import AutoTokenizer, set_seed
from trl import SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

CHAT = [
    {
        "messages": [
            {"role": "user", "content": "Two plus two?"},
            {"role": "assistant", "content": "Four."},
        ]
    }
]
TEXT = [{"text": "Two plus two? Four."}]


def build(rows, args):
    """SFTTrainer with the model's tokenizer stripped of its template,
    as a base checkpoint ships it."""
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    tokenizer.chat_template = None
    return SFTTrainer(
        model=MODEL,
        args=args,
        train_dataset=Dataset.from_list(rows),
        processing_class=tokenizer,
    )


def check(seed: int = 0) -> str:
    set_seed(seed)
    plain_args = SFTConfig(
        seed=seed, bf16=torch.cuda.is_available(), save_strategy="no"
    )
    try:
        build(CHAT, plain_args)
        error = ""
    except ValueError as e:
        error = str(e)
    assert "chat_template is not set" in error, (
        f"claim: messages + no template raise at SFTTrainer(...), got {error!r}"
    )

    # claim: a plain `text` dataset never needs the
    # template (this would raise otherwise)
    build(TEXT, plain_args)

    trainer = build(CHAT, config_with_template(seed))
    text = trainer.processing_class.decode(trainer.train_dataset[0]["input_ids"])
    expected = (
        "<|im_start|>user\nTwo plus "
        "two?<|im_end|>\n<|im_start|>assistant\nFour.<|im_end|>"
    )
    assert text.startswith(expected), (
        f"claim: chat_template_path renders the messages with the file, got {text!r}"
    )
    return (
        "no template -> ValueError at SFTTrainer(...); text data is fine; "
        f"chat_template_path renders {text!r}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
