"""max_length truncation drops the EOS of long examples: the
model never sees where to stop.

Page: docs/sft/eos-cut-by-truncation.md
中文: docs/sft/eos-cut-by-truncation.zh.md
"""


# --8<-- [start:fix]
def chat_length(example, tokenizer):
    """Tokens in the whole rendered chat: the length
    SFTTrainer compares with max_length."""
    return len(
        tokenizer.apply_chat_template(
            example["messages"], tokenize=True, return_dict=True
        )["input_ids"]
    )


def covering_max_length(dataset, tokenizer):
    """Option 1: a max_length that fits every example (pass it
    as SFTConfig(max_length=...))."""
    return max(chat_length(example, tokenizer) for example in dataset)


def drop_too_long(dataset, tokenizer, max_length):
    """Option 2: keep max_length, and drop (or split
    yourself) the examples that do not fit."""
    return dataset.filter(lambda example: chat_length(example, tokenizer) <= max_length)


# --8<-- [end:fix]


# --8<-- [start:evidence]
import os

import torch
import trl
from datasets import Dataset
from packaging.version import Version
from transformers import AutoModelForCausalLM, AutoTokenizer, set_seed
from trl import SFTConfig, SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

# assistant_only_loss needs {% generation %} markers in the chat template. Many hub
# templates (SmolLM2's among them) have none, and TRL raises for a template it cannot
# patch (see the page "Assistant-only loss"): this is plain ChatML with every assistant
# reply and its <|im_end|> marked, used by the trainer and to count tokens.
CHATML_TRAINING = (
    "{% for message in messages %}"
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

SHORT = {
    "messages": [
        {"role": "user", "content": "Two plus two?"},
        {"role": "assistant", "content": "Four."},
    ]
}
LONG = {
    "messages": [
        {"role": "user", "content": "Count to twenty."},
        {"role": "assistant", "content": " ".join(str(i) for i in range(1, 21))},
    ]
}


def prepare(model, tokenizer, examples, max_length):
    """What SFTTrainer trains on (no training): each prepared example passed
    through the trainer's collator.

    Reading the collator's output works on every TRL version: where truncation and
    labelling happen moved between releases (dataset preparation in 0.29 and since
    1.9, the collator in 1.0 to 1.8).
    """
    args = SFTConfig(
        max_length=max_length, assistant_only_loss=True, bf16=torch.cuda.is_available()
    )
    dataset = examples if isinstance(examples, Dataset) else Dataset.from_list(examples)
    trainer = SFTTrainer(
        model=model, args=args, train_dataset=dataset, processing_class=tokenizer
    )
    batches = [trainer.data_collator([row]) for row in trainer.train_dataset]
    return [
        {"input_ids": b["input_ids"][0].tolist(), "labels": b["labels"][0].tolist()}
        for b in batches
    ]


def eos_labels(row, tokenizer):
    return row["labels"].count(tokenizer.eos_token_id)


def check(seed: int = 0) -> str:
    set_seed(seed)
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    tokenizer.chat_template = CHATML_TRAINING
    model = AutoModelForCausalLM.from_pretrained(MODEL)
    assert SFTConfig.__dataclass_fields__["max_length"].default == 1024, (
        "claim: SFTConfig.max_length defaults to 1024"
    )

    # A limit the short chat fits and the long one does not:
    # it ends inside the long reply.
    limit = chat_length(SHORT, tokenizer)
    prompt = tokenizer.apply_chat_template(
        LONG["messages"][:1], add_generation_prompt=True, return_dict=True
    )
    prompt_length = len(prompt["input_ids"])
    assert prompt_length < limit < chat_length(LONG, tokenizer), (
        "set-up: the limit must fall inside the long reply"
    )

    short, long = prepare(model, tokenizer, [SHORT, LONG], limit)
    assert eos_labels(short, tokenizer) == 1, (
        "claim: an example that fits keeps its EOS label"
    )
    full = tokenizer.apply_chat_template(LONG["messages"], return_dict=True)[
        "input_ids"
    ]
    assert long["input_ids"] == list(full[:limit]), (
        "claim: the long example is cut to its first max_length tokens"
    )
    trained = sum(label != -100 for label in long["labels"])
    assert trained > 0, (
        "claim: the truncated example stays and its partial reply is trained"
    )
    assert eos_labels(long, tokenizer) == 0, (
        "claim: the truncated example has no labelled EOS"
    )

    # A cut inside the prompt leaves no label: TRL >= 1.9 drops the example,
    # older TRL keeps it, fully masked.
    cut = prepare(model, tokenizer, [LONG], prompt_length - 2)
    if Version(trl.__version__) >= Version("1.9"):
        assert cut == [], (
            f"claim: TRL >= 1.9 drops an example left with no label, kept {len(cut)}"
        )
    else:
        assert len(cut) == 1 and set(cut[0]["labels"]) == {-100}, (
            "claim: TRL < 1.9 keeps it with no label"
        )

    covering = covering_max_length(Dataset.from_list([SHORT, LONG]), tokenizer)
    rows = prepare(model, tokenizer, [SHORT, LONG], covering)
    assert [eos_labels(row, tokenizer) for row in rows] == [1, 1], (
        "claim: a covering max_length keeps every EOS"
    )
    kept = drop_too_long(Dataset.from_list([SHORT, LONG]), tokenizer, limit)
    rows = prepare(model, tokenizer, kept, limit)
    assert len(rows) == 1, (
        f"claim: the length filter drops exactly the long example, kept {len(rows)}"
    )
    assert all(eos_labels(row, tokenizer) == 1 for row in rows), (
        "claim: after the filter every EOS is labelled"
    )
    return (
        f"max_length={limit} cuts the {chat_length(LONG, tokenizer)}-token chat: "
        f"{trained} reply tokens trained, 0 EOS labels; "
        f"max_length={prompt_length - 2} leaves {len(cut)} row(s) and no label; "
        f"max_length={covering} or the filter keep every EOS"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
