"""Which setting leaves the end-of-turn token without a label?
Not assistant_only_loss=False.

Page: docs/sft/eos-never-learned.md
中文: docs/sft/eos-never-learned.zh.md
"""

# --8<-- [start:fix]
# ChatML whose {% generation %} block closes AFTER <|im_end|>:
# the end-of-turn token is trained.
CHATML_EOT_INSIDE = (
    "{% for message in messages %}"
    "{% if message['role'] == 'assistant' %}"
    "{{ '<|im_start|>assistant\n' }}{% generation %}"
    "{{ message['content'] + '<|im_end|>' }}{% endgeneration %}"
    "{{ '\n' }}"
    "{% else %}{{ '<|im_start|>' + message['role'] + '\n' + message['content'] "
    "+ '<|im_end|>\n' }}{% endif %}"
    "{% endfor %}"
)


def stop_token_trained(tokenizer, chat_template=None):
    """Before a long run: does the assistant mask of a rendered reply end on a
    special token such as <|im_end|>?

    The test SFTTrainer(assistant_only_loss=True) runs at start-up since TRL 1.6
    (is_chat_template_stop_token_trained in trl/chat_template_utils.py), written with
    transformers alone so it runs with any TRL version.
    """
    messages = [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello."},
        {"role": "user", "content": "Bye"},
    ]
    out = tokenizer.apply_chat_template(
        messages,
        chat_template=chat_template,
        return_assistant_tokens_mask=True,
        return_dict=True,
    )
    trained = [
        t
        for t, m in zip(out["input_ids"], out["assistant_masks"])
        if m and tokenizer.decode([t]).strip()
    ]
    return bool(trained) and trained[-1] in tokenizer.get_added_vocab().values()


# --8<-- [end:fix]


# --8<-- [start:evidence]
import os
import re

import torch
import trl.chat_template_utils
from datasets import Dataset
from packaging.version import Version
from transformers import AutoModelForCausalLM, AutoTokenizer, set_seed
from trl import SFTConfig, SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

# The bug: the same ChatML, but {% generation %} closes BEFORE <|im_end|>.
CHATML_EOT_OUTSIDE = (
    "{% for message in messages %}"
    "{% if message['role'] == 'assistant' %}"
    "{{ '<|im_start|>assistant\n' }}{% generation %}"
    "{{ message['content'] }}{% endgeneration %}"
    "{{ '<|im_end|>\n' }}"
    "{% else %}{{ '<|im_start|>' + message['role'] + '\n' + message['content'] "
    "+ '<|im_end|>\n' }}{% endif %}"
    "{% endfor %}"
)
CHAT = [
    {
        "messages": [
            {"role": "user", "content": "Two plus two?"},
            {"role": "assistant", "content": "Four."},
        ]
    },
    {
        "messages": [
            {"role": "user", "content": "Name a colour."},
            {"role": "assistant", "content": "Blue, like the sky."},
        ]
    },
]


def without_markers(template):
    """The template as most hub models ship it: no {% generation %} markers (a
    no-op on SmolLM2's or Qwen2.5's)."""
    return re.sub(r"\{%-?\s*(end)?generation\s*-?%\}", "", template)


def eos_labels(model, assistant_only_loss, template=None):
    """Prepare two chats of different lengths (no training) and
    collate them into one padded batch.

    The pad token is set to the EOS, as SmolLM2 ships it, so padding and end-of-turn
    share one id. Counts EOS tokens in the real (unpadded) positions, how many of
    them carry a label, and labels on padding. The labels are read from the trainer's
    collator, which builds them in every TRL version.
    """
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    if template is not None:
        tokenizer.chat_template = template
    args = SFTConfig(
        assistant_only_loss=assistant_only_loss,
        pad_token=tokenizer.eos_token,
        bf16=torch.cuda.is_available(),
    )
    trainer = SFTTrainer(
        model=model,
        args=args,
        train_dataset=Dataset.from_list(CHAT),
        processing_class=tokenizer,
    )
    batch = trainer.data_collator([trainer.train_dataset[0], trainer.train_dataset[1]])
    real, labels = batch["attention_mask"] == 1, batch["labels"]
    eos = tokenizer.eos_token_id
    # The template the trainer used: TRL's training copy if it swapped one in (since
    # TRL 1.1), else the tokenizer's.
    used = getattr(trainer, "chat_template", None) or tokenizer.chat_template
    # Since TRL 1.6 SFTTrainer runs the stop-token test itself at
    # start-up (and warns when it fails).
    trl_test = getattr(
        trl.chat_template_utils, "is_chat_template_stop_token_trained", None
    )
    return {
        # the padding positions hold the EOS id
        "pad_is_eos": batch["input_ids"][~real].eq(eos).all().item(),
        "padding": int((~real).sum()),
        "padding_labelled": int((labels[~real] != -100).sum()),
        "eos_in_input": int((batch["input_ids"][real] == eos).sum()),
        "eos_labelled": int((labels[real] == eos).sum()),
        "labelled": int((labels[real] != -100).sum()),
        "tokens": int(real.sum()),
        "stop_token_trained": stop_token_trained(tokenizer, used),
        "trl_test": None
        if trl_test is None
        else trl_test(tokenizer, chat_template=used),
    }


def check(seed: int = 0) -> str:
    set_seed(seed)
    model = AutoModelForCausalLM.from_pretrained(MODEL)
    # The model's template as hub models ship it, without markers: SmolLM2's as it
    # is, the tiny model's stripped.
    hub_template = without_markers(AutoTokenizer.from_pretrained(MODEL).chat_template)

    full = eos_labels(model, assistant_only_loss=False, template=hub_template)
    assert full["pad_is_eos"] and full["padding"] > 0, (
        f"claim: the batch is padded with the EOS id, got {full}"
    )
    assert full["labelled"] == full["tokens"], (
        f"claim: the default labels every token, got {full}"
    )
    assert full["eos_labelled"] == full["eos_in_input"] >= 4, (
        f"claim: the default labels every EOS, got {full}"
    )
    assert full["padding_labelled"] == 0, (
        f"claim: padding (same id as EOS) gets no label, got {full}"
    )

    bad = eos_labels(model, assistant_only_loss=True, template=CHATML_EOT_OUTSIDE)
    assert bad["labelled"] > 0, f"claim: the reply itself is still trained, got {bad}"
    assert bad["eos_labelled"] == 0, (
        f"claim: EOS outside {{% generation %}} gets no label, got {bad}"
    )
    assert not bad["stop_token_trained"], (
        f"claim: stop_token_trained flags the template, got {bad}"
    )
    assert bad["trl_test"] in (None, False), (
        f"claim: TRL's start-up check (TRL >= 1.6) flags it, got {bad}"
    )

    fixed = eos_labels(model, assistant_only_loss=True, template=CHATML_EOT_INSIDE)
    assert fixed["eos_labelled"] == 2, (
        f"claim: EOS inside {{% generation %}} is labelled once per reply, got {fixed}"
    )
    assert fixed["stop_token_trained"], (
        f"claim: stop_token_trained passes the fixed template, got {fixed}"
    )
    assert fixed["trl_test"] in (None, True), (
        f"claim: TRL's start-up check (TRL >= 1.6) passes it, got {fixed}"
    )

    # assistant_only_loss=True on the unmarked hub template: refused (ValueError since
    # TRL 1.1, RuntimeError before) unless TRL ships a marked copy of it (Qwen2.5,
    # Llama 3, ...) and swaps that in.
    try:
        own = eos_labels(model, assistant_only_loss=True, template=hub_template)
        how = "TRL swapped in its training copy, reply EOS labelled"
    except (ValueError, RuntimeError) as e:
        expected = (
            "not training-compatible"
            if Version(trl.__version__) >= Version("1.1")
            else "no assistant tokens"
        )
        assert expected in str(e), (
            f"claim: an unmarked template TRL cannot patch is refused, got {e!r}"
        )
        own, how = None, f"refused with {type(e).__name__}"
    if own is not None:
        assert own["eos_labelled"] == 2 and own["stop_token_trained"], (
            f"claim: TRL's copy trains EOS: {own}"
        )
        assert own["trl_test"] in (None, True), (
            f"claim: TRL's start-up check agrees, got {own}"
        )
    return (
        f"assistant_only_loss=False labels {full['labelled']}/{full['tokens']} tokens "
        f"incl. all {full['eos_in_input']} EOS and none of {full['padding']} pad "
        f"positions (pad = EOS); True labels each reply's EOS with EOS inside {{% "
        f"generation %}}, and none (only the {bad['labelled']} reply tokens) when EOS "
        f"is outside it; unmarked hub template: {how}; TRL's own start-up test "
        f"{'agrees' if bad['trl_test'] is not None else 'is absent (TRL < 1.6)'}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
