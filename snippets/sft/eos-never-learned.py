"""Which setting leaves the end-of-turn token without a label? Not assistant_only_loss=False.

Page: docs/sft/eos-never-learned.md (中文: docs/sft/eos-never-learned.zh.md)
"""

# --8<-- [start:fix]
from trl.chat_template_utils import (
    get_training_chat_template,
    has_generation_markers,
    is_chat_template_stop_token_trained,
)

# ChatML whose {% generation %} block closes AFTER <|im_end|>: the end-of-turn token is trained.
CHATML_EOT_INSIDE = (
    "{% for message in messages %}"
    "{% if message['role'] == 'assistant' %}"
    "{{ '<|im_start|>assistant\n' }}{% generation %}{{ message['content'] + '<|im_end|>' }}{% endgeneration %}"
    "{{ '\n' }}"
    "{% else %}{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n' }}{% endif %}"
    "{% endfor %}"
)


def stop_token_trained(tokenizer):
    """What SFTTrainer(assistant_only_loss=True) checks at start-up: is the end-of-turn token in the mask?"""
    template = tokenizer.chat_template
    if not has_generation_markers(template):
        template = get_training_chat_template(tokenizer)  # TRL's marked copy; raises if it has none
    return is_chat_template_stop_token_trained(tokenizer, chat_template=template)


# --8<-- [end:fix]


# --8<-- [start:evidence]
import os

import torch
from datasets import Dataset
from transformers import AutoModelForCausalLM, AutoTokenizer, set_seed
from trl import SFTConfig, SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

# The bug: the same ChatML, but {% generation %} closes BEFORE <|im_end|>.
CHATML_EOT_OUTSIDE = (
    "{% for message in messages %}"
    "{% if message['role'] == 'assistant' %}"
    "{{ '<|im_start|>assistant\n' }}{% generation %}{{ message['content'] }}{% endgeneration %}"
    "{{ '<|im_end|>\n' }}"
    "{% else %}{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n' }}{% endif %}"
    "{% endfor %}"
)
CHAT = [{"messages": [{"role": "user", "content": "Two plus two?"}, {"role": "assistant", "content": "Four."}]}]


def eos_labels(model, assistant_only_loss, template=None):
    """Prepare one chat (no training); count EOS tokens in input_ids and EOS tokens that carry a label."""
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    if template is not None:
        tokenizer.chat_template = template
    args = SFTConfig(assistant_only_loss=assistant_only_loss, bf16=torch.cuda.is_available())
    trainer = SFTTrainer(model=model, args=args, train_dataset=Dataset.from_list(CHAT), processing_class=tokenizer)
    row = trainer.train_dataset[0]
    eos = tokenizer.eos_token_id
    return {
        "eos_in_input": row["input_ids"].count(eos),
        "eos_labelled": row["labels"].count(eos),
        "labelled": sum(label != -100 for label in row["labels"]),
        "tokens": len(row["input_ids"]),
        "stop_token_trained": stop_token_trained(tokenizer),
    }


def check(seed: int = 0) -> str:
    set_seed(seed)
    model = AutoModelForCausalLM.from_pretrained(MODEL)
    full = eos_labels(model, assistant_only_loss=False)
    assert full["labelled"] == full["tokens"], f"claim: the default labels every token, got {full}"
    assert full["eos_labelled"] == full["eos_in_input"] >= 2, f"claim: the default labels every EOS, got {full}"

    bad = eos_labels(model, assistant_only_loss=True, template=CHATML_EOT_OUTSIDE)
    assert bad["labelled"] > 0, f"claim: the reply itself is still trained, got {bad}"
    assert bad["eos_labelled"] == 0, f"claim: EOS outside {{% generation %}} gets no label, got {bad}"
    assert not bad["stop_token_trained"], "claim: TRL's start-up check flags the template"

    fixed = eos_labels(model, assistant_only_loss=True, template=CHATML_EOT_INSIDE)
    assert fixed["eos_labelled"] == 1, f"claim: EOS inside {{% generation %}} is labelled once, got {fixed}"
    assert fixed["stop_token_trained"], "claim: TRL's start-up check passes the fixed template"

    own = eos_labels(model, assistant_only_loss=True)  # the model's own template (or TRL's training copy of it)
    assert own["eos_labelled"] == 1 and own["stop_token_trained"], f"claim: the model's template trains EOS: {own}"
    return (
        f"assistant_only_loss=False labels {full['labelled']}/{full['tokens']} tokens incl. all "
        f"{full['eos_in_input']} EOS; True labels the reply's EOS with the model's template and with EOS inside "
        f"{{% generation %}}, and none (only the {bad['labelled']} reply tokens) when EOS is outside it"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
