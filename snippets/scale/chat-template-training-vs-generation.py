"""The tokens SFT trains on vs the prompt generation builds: they match only if
both use the same chat template.

Page: docs/scale/chat-template-training-vs-generation.md
中文: docs/scale/chat-template-training-vs-generation.zh.md
"""

# --8<-- [start:symptom]
import os
import pathlib
import tempfile

import torch
from datasets import Dataset
from transformers import AutoTokenizer
from trl import SFTConfig, SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
MESSAGES = [
    {"role": "user", "content": "Capital of France?"},
    {"role": "assistant", "content": "Paris"},
]

# A template written for training (ChatML, a fixed system line,
# {% generation %} markers), passed by path.
TRAIN_TEMPLATE = pathlib.Path(tempfile.mkdtemp()) / "train_template.jinja"
TRAIN_TEMPLATE.write_text(
    "{{ '<|im_start|>system\nYou are a careful assistant.<|im_end|>\n' }}"
    "{% for message in messages %}{% if message['role'] == 'assistant' %}"
    "{{ '<|im_start|>assistant\n' }}"
    "{% generation %}{{ message['content'] + '<|im_end|>' }}"
    "{% endgeneration %}{{ '\n' }}"
    "{% else %}{{ '<|im_start|>' + message['role'] + '\n' + message['content'] "
    "+ '<|im_end|>\n' }}{% endif %}"
    "{% endfor %}{% if add_generation_prompt %}"
    "{{ '<|im_start|>assistant\n' }}{% endif %}"
)


def sft_trainer(processing_class=None, **options):
    args = SFTConfig(
        max_length=128,
        max_steps=1,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        bf16=torch.cuda.is_available(),
        **options,
    )
    dataset = Dataset.from_list([{"messages": MESSAGES}])
    return SFTTrainer(
        model=MODEL, args=args, train_dataset=dataset, processing_class=processing_class
    )


trainer = sft_trainer(chat_template_path=str(TRAIN_TEMPLATE), assistant_only_loss=True)
trained = trainer.train_dataset[0]["input_ids"]
# what a generation script usually loads
base_tokenizer = AutoTokenizer.from_pretrained(MODEL)
prompt = base_tokenizer.apply_chat_template(
    MESSAGES[:1], add_generation_prompt=True, tokenize=False
)
generation_prompt = base_tokenizer(prompt, add_special_tokens=False)["input_ids"]
# ... False
print(
    len(trained),
    len(generation_prompt),
    trained[: len(generation_prompt)] == generation_prompt,
)
# --8<-- [end:symptom]


# --8<-- [start:fix]
def generation_prompt_ids(tokenizer, messages):
    """The prompt generation builds, with the tokenizer (and so the
    chat template) that training used."""
    text = tokenizer.apply_chat_template(
        messages, add_generation_prompt=True, tokenize=False
    )
    return tokenizer(text, add_special_tokens=False)["input_ids"]


# trainer.save_model() saves it, template included, next to the weights
train_tokenizer = trainer.processing_class
fixed_prompt = generation_prompt_ids(train_tokenizer, MESSAGES[:1])
# --8<-- [end:fix]


# --8<-- [start:evidence]
import trl
from trl import DPOConfig, GRPOConfig, KTOConfig, RewardConfig, RLOOConfig


def trained_label_ids(trainer):
    """The token ids that carry loss in the first sample (labels !=
    -100), as the collator builds them."""
    batch = trainer.data_collator([trainer.train_dataset[0]])
    return batch["input_ids"][0][batch["labels"][0] != -100].tolist()


def check(seed: int = 0) -> str:
    # symptom: the training template's tokens are not what the base
    # tokenizer's generation prompt starts with
    assert trained[: len(generation_prompt)] != generation_prompt, (
        "claim: training and generation prompts differ"
    )
    assert train_tokenizer.chat_template == TRAIN_TEMPLATE.read_text(), (
        "claim: chat_template_path replaces it"
    )
    # fix: the trainer's own tokenizer builds exactly the prefix it trained on ...
    assert trained[: len(fixed_prompt)] == fixed_prompt, (
        "claim: the training tokenizer's prompt is the trained prefix"
    )
    # ... and the loss falls on exactly what generation must produce after
    # that prompt, stop token included
    labelled = trained_label_ids(trainer)
    answer = train_tokenizer.decode(labelled)
    assert answer == "Paris<|im_end|>", (
        f"claim: the loss covers the answer and its end-of-turn token, got {answer!r}"
    )
    following = trained[len(fixed_prompt) : len(fixed_prompt) + len(labelled)]
    assert labelled == following, (
        "claim: the tokens with loss are the ones right after the generation prompt"
    )

    # Only SFTConfig and RewardConfig have chat_template_path; GRPO, RLOO, DPO, KTO
    # take the tokenizer's template.
    accepts = {}
    for config in (
        SFTConfig,
        RewardConfig,
        GRPOConfig,
        RLOOConfig,
        DPOConfig,
        KTOConfig,
    ):
        try:
            config(
                chat_template_path=str(TRAIN_TEMPLATE), bf16=torch.cuda.is_available()
            )
            accepts[config.__name__] = True
        except TypeError:
            accepts[config.__name__] = False
    assert accepts == {
        "SFTConfig": True,
        "RewardConfig": True,
        "GRPOConfig": False,
        "RLOOConfig": False,
        "DPOConfig": False,
        "KTOConfig": False,
    }, f"claim: which configs accept chat_template_path: {accepts}"

    # TRL's own *_training.jinja: with assistant_only_loss=True, SFT swaps it in for a
    # known template without {% generation %} markers (here Qwen2.5's). It renders the
    # same tokens, so generation needs no change.
    qwen = (
        pathlib.Path(trl.__file__).parent / "chat_templates" / "qwen2_5.jinja"
    ).read_text()
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    tokenizer.chat_template = qwen  # a model shipped with Qwen2.5's template
    swapped = sft_trainer(assistant_only_loss=True, processing_class=tokenizer)
    assert (
        swapped.chat_template is not None
        and "{% generation %}" in swapped.chat_template
    ), "claim: SFT swaps in TRL's training template"
    assert swapped.processing_class.chat_template == qwen, (
        "claim: the tokenizer keeps the original template"
    )
    qwen_text = swapped.processing_class.apply_chat_template(MESSAGES, tokenize=False)
    same = swapped.processing_class(qwen_text, add_special_tokens=False)["input_ids"]
    assert swapped.train_dataset[0]["input_ids"] == same, (
        "claim: the training template renders the same tokens"
    )
    swapped_answer = swapped.processing_class.decode(trained_label_ids(swapped))
    assert swapped_answer.strip() == "Paris<|im_end|>", (
        f"claim: the mask covers the answer, got {swapped_answer!r}"
    )
    return (
        f"custom template: trained prefix {len(fixed_prompt)} tokens vs base "
        f"prompt {len(generation_prompt)}; loss on {answer!r}; chat_template_path "
        f"accepted by {[k for k, v in accepts.items() if v]}; Qwen2.5 swap: same "
        f"tokens, loss on {swapped_answer!r}"
    )


# tokenization is deterministic: the seed changes nothing, one run is enough
SEEDS = (0,)

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
