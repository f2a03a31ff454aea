"""Which setting leaves the end-of-turn token without a label? Not assistant_only_loss=False.

Page: docs/sft/eos-never-learned.md (中文: docs/sft/eos-never-learned.zh.md)
"""

# --8<-- [start:fix]
# ChatML whose {% generation %} block closes AFTER <|im_end|>: the end-of-turn token is trained.
CHATML_EOT_INSIDE = (
    "{% for message in messages %}"
    "{% if message['role'] == 'assistant' %}"
    "{{ '<|im_start|>assistant\n' }}{% generation %}{{ message['content'] + '<|im_end|>' }}{% endgeneration %}"
    "{{ '\n' }}"
    "{% else %}{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n' }}{% endif %}"
    "{% endfor %}"
)


def stop_token_trained(tokenizer, chat_template=None):
    """Before a long run: does the assistant mask of a rendered reply end on a special token such as <|im_end|>?

    The test SFTTrainer(assistant_only_loss=True) runs at start-up since TRL 1.6 (is_chat_template_stop_token_trained
    in trl/chat_template_utils.py), written with transformers alone so it runs with any TRL version.
    """
    messages = [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello."},
        {"role": "user", "content": "Bye"},
    ]
    out = tokenizer.apply_chat_template(
        messages, chat_template=chat_template, return_assistant_tokens_mask=True, return_dict=True
    )
    trained = [t for t, m in zip(out["input_ids"], out["assistant_masks"]) if m and tokenizer.decode([t]).strip()]
    return bool(trained) and trained[-1] in tokenizer.get_added_vocab().values()


# --8<-- [end:fix]


# --8<-- [start:evidence]
import os

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
    "{{ '<|im_start|>assistant\n' }}{% generation %}{{ message['content'] }}{% endgeneration %}"
    "{{ '<|im_end|>\n' }}"
    "{% else %}{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n' }}{% endif %}"
    "{% endfor %}"
)
CHAT = [{"messages": [{"role": "user", "content": "Two plus two?"}, {"role": "assistant", "content": "Four."}]}]


def eos_labels(model, assistant_only_loss, template=None):
    """Prepare one chat (no training); count EOS tokens in input_ids and EOS tokens that carry a label.

    The labels are read from the trainer's collator, which builds them in every TRL version (the prepared
    dataset has a labels column only since TRL 1.7).
    """
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    if template is not None:
        tokenizer.chat_template = template
    args = SFTConfig(assistant_only_loss=assistant_only_loss, bf16=torch.cuda.is_available())
    trainer = SFTTrainer(model=model, args=args, train_dataset=Dataset.from_list(CHAT), processing_class=tokenizer)
    batch = trainer.data_collator([trainer.train_dataset[0]])
    input_ids, labels = batch["input_ids"][0].tolist(), batch["labels"][0].tolist()
    # The template the trainer used: TRL's training copy if it swapped one in (since TRL 1.1), else the tokenizer's.
    used = getattr(trainer, "chat_template", None) or tokenizer.chat_template
    # Since TRL 1.6 SFTTrainer runs the stop-token test itself at start-up (and warns when it fails).
    trl_test = getattr(trl.chat_template_utils, "is_chat_template_stop_token_trained", None)
    eos = tokenizer.eos_token_id
    return {
        "eos_in_input": input_ids.count(eos),
        "eos_labelled": labels.count(eos),
        "labelled": sum(label != -100 for label in labels),
        "tokens": len(input_ids),
        "stop_token_trained": stop_token_trained(tokenizer, used),
        "trl_test": None if trl_test is None else trl_test(tokenizer, chat_template=used),
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
    assert not bad["stop_token_trained"], f"claim: stop_token_trained flags the template, got {bad}"
    assert bad["trl_test"] in (None, False), f"claim: TRL's start-up check (TRL >= 1.6) flags it, got {bad}"

    fixed = eos_labels(model, assistant_only_loss=True, template=CHATML_EOT_INSIDE)
    assert fixed["eos_labelled"] == 1, f"claim: EOS inside {{% generation %}} is labelled once, got {fixed}"
    assert fixed["stop_token_trained"], f"claim: stop_token_trained passes the fixed template, got {fixed}"
    assert fixed["trl_test"] in (None, True), f"claim: TRL's start-up check (TRL >= 1.6) passes it, got {fixed}"

    # The model's own template, or (since TRL 1.1) TRL's training copy of it when it has no markers.
    try:
        own = eos_labels(model, assistant_only_loss=True)
    except RuntimeError as e:  # TRL < 1.1 swaps nothing in: a template without markers (Qwen2.5's) stops here
        assert Version(trl.__version__) < Version("1.1") and "no assistant tokens" in str(e), f"claim: {e}"
        own = None
    if own is not None:
        assert own["eos_labelled"] == 1 and own["stop_token_trained"], f"claim: the model's template trains EOS: {own}"
        assert own["trl_test"] in (None, True), f"claim: TRL's start-up check agrees, got {own}"
    how = "no markers, RuntimeError before TRL 1.1" if own is None else "its reply's EOS labelled"
    return (
        f"assistant_only_loss=False labels {full['labelled']}/{full['tokens']} tokens incl. all "
        f"{full['eos_in_input']} EOS; True labels the reply's EOS with EOS inside {{% generation %}}, and none "
        f"(only the {bad['labelled']} reply tokens) when EOS is outside it; model's own template: {how}; TRL's "
        f"own start-up test {'agrees' if bad['trl_test'] is not None else 'is absent (TRL < 1.6)'}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
