"""max_length truncation drops the EOS of long examples: the model never sees where to stop.

Page: docs/sft/eos-cut-by-truncation.md (中文: docs/sft/eos-cut-by-truncation.zh.md)
"""


# --8<-- [start:fix]
def chat_length(example, tokenizer):
    """Tokens in the whole rendered chat: the length SFTTrainer compares with max_length."""
    return len(tokenizer.apply_chat_template(example["messages"], tokenize=True, return_dict=True)["input_ids"])


def covering_max_length(dataset, tokenizer):
    """Option 1: a max_length that fits every example (pass it as SFTConfig(max_length=...))."""
    return max(chat_length(example, tokenizer) for example in dataset)


def drop_too_long(dataset, tokenizer, max_length):
    """Option 2: keep max_length, and drop (or split yourself) the examples that do not fit."""
    return dataset.filter(lambda example: chat_length(example, tokenizer) <= max_length)


# --8<-- [end:fix]


# --8<-- [start:evidence]
import os

import torch
from datasets import Dataset
from transformers import AutoModelForCausalLM, AutoTokenizer, set_seed
from trl import SFTConfig, SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

SHORT = {"messages": [{"role": "user", "content": "Two plus two?"}, {"role": "assistant", "content": "Four."}]}
LONG = {
    "messages": [
        {"role": "user", "content": "Count to twenty."},
        {"role": "assistant", "content": " ".join(str(i) for i in range(1, 21))},
    ]
}


def prepare(model, tokenizer, examples, max_length):
    """The rows SFTTrainer trains on (dataset preparation only): input_ids and labels."""
    args = SFTConfig(max_length=max_length, assistant_only_loss=True, bf16=torch.cuda.is_available())
    dataset = examples if isinstance(examples, Dataset) else Dataset.from_list(examples)
    trainer = SFTTrainer(model=model, args=args, train_dataset=dataset, processing_class=tokenizer)
    return list(trainer.train_dataset)


def eos_labels(row, tokenizer):
    return row["labels"].count(tokenizer.eos_token_id)


def check(seed: int = 0) -> str:
    set_seed(seed)
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    model = AutoModelForCausalLM.from_pretrained(MODEL)
    defaults = SFTConfig.__dataclass_fields__
    assert defaults["max_length"].default == 1024, "claim: SFTConfig.max_length defaults to 1024"
    assert defaults["truncation_mode"].default == "keep_start", "claim: truncation keeps the start"

    # A limit the short chat fits and the long one does not: it ends inside the long reply.
    limit = chat_length(SHORT, tokenizer)
    prompt = tokenizer.apply_chat_template(LONG["messages"][:1], add_generation_prompt=True, return_dict=True)
    prompt_length = len(prompt["input_ids"])
    assert prompt_length < limit < chat_length(LONG, tokenizer), "set-up: the limit must fall inside the long reply"

    short, long = prepare(model, tokenizer, [SHORT, LONG], limit)
    assert eos_labels(short, tokenizer) == 1, "claim: an example that fits keeps its EOS label"
    assert len(long["input_ids"]) == limit, "claim: the long example is truncated to max_length"
    trained = sum(label != -100 for label in long["labels"])
    assert trained > 0, "claim: the truncated example stays and its partial reply is trained"
    assert eos_labels(long, tokenizer) == 0, "claim: the truncated example has no labelled EOS"

    dropped = prepare(model, tokenizer, [LONG], prompt_length - 2)
    assert dropped == [], "claim: a cut inside the prompt leaves no label and TRL drops the example"

    covering = covering_max_length(Dataset.from_list([SHORT, LONG]), tokenizer)
    rows = prepare(model, tokenizer, [SHORT, LONG], covering)
    assert [eos_labels(row, tokenizer) for row in rows] == [1, 1], "claim: a covering max_length keeps every EOS"
    kept = drop_too_long(Dataset.from_list([SHORT, LONG]), tokenizer, limit)
    rows = prepare(model, tokenizer, kept, limit)
    assert len(rows) == 1, f"claim: the length filter drops exactly the long example, kept {len(rows)}"
    assert all(eos_labels(row, tokenizer) == 1 for row in rows), "claim: after the filter every EOS is labelled"
    return (
        f"max_length={limit} cuts the {chat_length(LONG, tokenizer)}-token chat: {trained} reply tokens "
        f"trained, 0 EOS labels; max_length={prompt_length - 2} drops it; max_length={covering} or the "
        f"filter keep every EOS"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
