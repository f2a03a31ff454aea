"""TRL 1.x no longer strips the None values Arrow adds to nested dicts: they
reach the chat template as null.

Page: docs/scale/v1-none-values-kept.md
中文: docs/scale/v1-none-values-kept.zh.md
"""

# --8<-- [start:symptom]
from datasets import Dataset


def tool_call(name, **arguments):
    function = {"name": name, "arguments": arguments}
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"type": "function", "function": function}],
    }


ROWS = [  # two tool calls whose arguments have different keys
    {
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            tool_call("get_weather", city="Paris"),
        ]
    },
    {
        "messages": [
            {"role": "user", "content": "What is 2 times 3?"},
            tool_call("multiply", a=2, b=3),
        ]
    },
]
# Arrow gives every row the union of the keys, filling the gaps with None
dataset = Dataset.from_list(ROWS)
# {'city': 'Paris', 'a': None, 'b': None}
print(dataset[0]["messages"][1]["tool_calls"][0]["function"]["arguments"])
# --8<-- [end:symptom]


# --8<-- [start:fix]
from trl.trainer.utils import remove_none_values


def without_arrow_nones(dataset):
    """Drop the None that Arrow filled in, and store the rows as Json so it
    cannot come back (datasets >= 4.7)."""
    return Dataset.from_list(
        [remove_none_values(row) for row in dataset], on_mixed_types="use_json"
    )


clean = without_arrow_nones(
    dataset
)  # or build it so from the start: Dataset.from_list(ROWS, on_mixed_types="use_json")
# --8<-- [end:fix]


# --8<-- [start:evidence]
import os

import torch
from transformers import AutoTokenizer
from trl import SFTConfig, SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

# A ChatML template that writes tool calls the way Qwen2.5's does: the
# arguments dict through `tojson`.
TOOL_TEMPLATE = (
    "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\n' }}"
    "{% if message['content'] %}{{ message['content'] }}{% endif %}"
    "{% for call in message['tool_calls'] or [] %}"
    "{{ '<tool_call>' + call['function']['name'] + ' ' + "
    "(call['function']['arguments'] | tojson) + '</tool_call>' }}"
    "{% endfor %}{{ '<|im_end|>\n' }}{% endfor %}"
)


def trained_text(train_dataset):
    """The first sample as SFTTrainer tokenized it, decoded."""
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    tokenizer.chat_template = TOOL_TEMPLATE
    args = SFTConfig(
        max_length=128,
        max_steps=1,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        bf16=torch.cuda.is_available(),
    )
    trainer = SFTTrainer(
        model=MODEL, args=args, train_dataset=train_dataset, processing_class=tokenizer
    )
    return tokenizer, tokenizer.decode(trainer.train_dataset[0]["input_ids"])


def check(seed: int = 0) -> str:
    arguments = dataset[0]["messages"][1]["tool_calls"][0]["function"]["arguments"]
    assert arguments == {"city": "Paris", "a": None, "b": None}, (
        f"claim: Arrow fills missing keys with None {arguments}"
    )

    tokenizer, symptom = trained_text(dataset)
    assert '"a": null' in symptom, (
        f"claim: the None reach the chat template and are trained on: {symptom!r}"
    )

    # the usual advice: written back to Arrow, the None come back
    mapped = dataset.map(remove_none_values)
    assert (
        mapped[0]["messages"][1]["tool_calls"][0]["function"]["arguments"]["a"] is None
    ), "claim: dataset.map(remove_none_values) does not remove them"

    _, fixed = trained_text(clean)
    intended = tokenizer.apply_chat_template(ROWS[0]["messages"], tokenize=False)
    assert fixed == intended and "null" not in fixed, (
        f"claim: the Json rows train on the intended text: {fixed!r}"
    )

    # Top-level keys are another matter: transformers drops a message key whose
    # value is None before rendering.
    top_level = [{"role": "user", "content": "Hi", "tool_calls": None}]
    assert tokenizer.apply_chat_template(
        top_level, tokenize=False
    ) == tokenizer.apply_chat_template(
        [{"role": "user", "content": "Hi"}], tokenize=False
    ), "claim: a None-valued top-level message key renders as if absent"
    return (
        f"trained on {symptom.split('<tool_call>')[1].split('</tool_call>')[0]!r}; "
        "fixed: no null"
    )


# data preparation is deterministic: the seed changes nothing, one run is enough
SEEDS = (0,)

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
