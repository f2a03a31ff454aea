"""Assistant-only masks that train everything or nothing: what TRL catches and what stays silent.

Page: docs/sft/assistant-only-mask-traps.md (中文: docs/sft/assistant-only-mask-traps.zh.md)
"""

# --8<-- [start:fix]
from trl import SFTConfig

# ChatML with {% generation %} ... {% endgeneration %} around each assistant reply AND its <|im_end|>:
# exactly the tokens inside the markers get a label when assistant_only_loss=True.
CHATML_TRAINING = (
    "{% for message in messages %}"
    "{% if message['role'] == 'assistant' %}"
    "{{ '<|im_start|>assistant\n' }}"
    "{% generation %}{{ message['content'] + '<|im_end|>' }}{% endgeneration %}"
    "{{ '\n' }}"
    "{% else %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n' }}"
    "{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
FIX = dict(assistant_only_loss=True)  # with tokenizer.chat_template = CHATML_TRAINING (see the prose)


def labelled_text(trainer, i=0):
    """The text of the tokens that carry a label in prepared example i: read it before a long run.

    It asks the trainer's collator, which builds the labels the model trains on in every TRL version.
    """
    batch = trainer.data_collator([trainer.train_dataset[i]])
    return trainer.processing_class.decode(batch["input_ids"][batch["labels"] != -100])


# --8<-- [end:fix]


# --8<-- [start:evidence]
import os

import torch
import trl
from datasets import Dataset
from packaging.version import Version
from transformers import AutoModelForCausalLM, AutoTokenizer, set_seed
from trl import SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

# The same ChatML without the markers: how most templates are written. TRL has no training version of it.
CHATML = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)

CHAT = [
    [{"role": "user", "content": "What is the capital of France?"}, {"role": "assistant", "content": "Paris."}],
    [{"role": "user", "content": "Two plus two?"}, {"role": "assistant", "content": "Four."}],
]


def prepare(model, template=None, **fields):
    """Build an SFTTrainer (dataset preparation only, no training). template=None keeps the model's own."""
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    if template is not None:
        tokenizer.chat_template = template
    args = SFTConfig(bf16=torch.cuda.is_available(), **fields)
    dataset = Dataset.from_list([{"messages": messages} for messages in CHAT])
    return SFTTrainer(model=model, args=args, train_dataset=dataset, processing_class=tokenizer)


def counts(trainer):
    """(labelled tokens, all tokens, rows) over the prepared dataset, as the trainer's collator labels them."""
    batches = [trainer.data_collator([row]) for row in trainer.train_dataset]
    labelled = sum(int((batch["labels"] != -100).sum()) for batch in batches)
    return labelled, sum(batch["input_ids"].numel() for batch in batches), len(batches)


def check(seed: int = 0) -> str:
    set_seed(seed)
    model = AutoModelForCausalLM.from_pretrained(MODEL)

    # Trap 1: assistant_only_loss left at its default (False): user turns and markup are trained too.
    labelled, tokens, _ = counts(prepare(model))
    assert labelled == tokens, f"claim: by default every token is labelled, got {labelled}/{tokens}"

    # Trap 2: a template without markers that TRL cannot patch: SFTTrainer refuses it
    # (ValueError at start-up since TRL 1.1, RuntimeError during dataset preparation before).
    new_trl = Version(trl.__version__) >= Version("1.1")
    try:
        prepare(model, CHATML, **FIX)
        error = "no error"
    except (ValueError, RuntimeError) as e:
        error = f"{type(e).__name__}: {e}"
    expected = "not training-compatible" if new_trl else "no assistant tokens"
    assert expected in error, f"claim: SFTTrainer refuses an unmarked template, got {error!r}"

    # Trap 3: the same template through transformers directly: an all-zero mask and no error.
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    masks = {
        name: tokenizer.apply_chat_template(
            CHAT[0], chat_template=template, return_assistant_tokens_mask=True, return_dict=True
        )["assistant_masks"]
        for name, template in (("plain", CHATML), ("marked", CHATML_TRAINING))
    }
    assert sum(masks["plain"]) == 0 < sum(masks["marked"]), f"claim: no markers -> all-zero mask, got {masks}"

    # Trap 4: the old string-matching collator is gone.
    assert not hasattr(trl, "DataCollatorForCompletionOnlyLM"), "claim: TRL no longer has the old collator"

    # Fix: markers around the reply and its <|im_end|>: only that is labelled, also after packing.
    fixed = prepare(model, CHATML_TRAINING, **FIX)
    marked = counts(fixed)
    assert labelled_text(fixed) == "Paris.<|im_end|>", f"claim: only reply + <|im_end|>: {labelled_text(fixed)!r}"
    assert 0 < marked[0] < marked[1] / 2, f"claim: assistant-only keeps a minority of tokens, got {marked}"
    packed = counts(prepare(model, CHATML_TRAINING, packing=True, max_length=128, **FIX))
    assert packed[2] < marked[2], f"claim: packing merges the rows, got {packed[2]} vs {marked[2]}"
    assert packed[0] == marked[0], f"claim: packing keeps the mask, got {packed[0]} vs {marked[0]} labelled"

    # The model's own template: used as-is if it has markers, else (since TRL 1.1) TRL swaps in its training
    # version (Qwen2.5 and the other families in trl/chat_templates); either way only the reply is labelled.
    try:
        own = prepare(model, **FIX)
    except RuntimeError as e:  # TRL < 1.1 swaps in nothing: a template without markers stops here
        assert not new_trl and "no assistant tokens" in str(e), f"claim: only old TRL stops here, got {e}"
        own = None
    if own is None:
        how = "no markers and no swap before TRL 1.1: RuntimeError"
    else:
        own_text = labelled_text(own)
        assert "Paris." in own_text and "capital" not in own_text, f"claim: own template masks the prompt: {own_text!r}"
        swapped = getattr(own, "chat_template", None)  # the template TRL swapped in (since 1.1), else None
        how = "TRL swapped in its training template" if swapped else "its markers used as they are"
    return (
        f"default labels {labelled}/{tokens} tokens; unmarked template -> {error.split(':')[0]}, "
        f"transformers' mask all 0; "
        f"marked: {marked[0]}/{marked[1]} labelled, {packed[0]} after packing into {packed[2]} row(s); "
        f"model's own template: {how}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
