"""Which setting leaves the end-of-turn token without a label? Not assistant_only_loss=False.

Page: docs/sft/eos-never-learned.md (中文: docs/sft/eos-never-learned.zh.md)
Run:  python snippets/sft/eos-never-learned.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# no training: labels are read from the prepared dataset
SEEDS = (0, 1, 2)

CHAT = [{"messages": [{"role": "user", "content": "Two plus two?"}, {"role": "assistant", "content": "Four."}]}]

# A template whose {% generation %} block closes BEFORE <|im_end|>: the end-of-turn token is outside the mask.
EOT_OUTSIDE = (
    "{% for message in messages %}"
    "{% if message['role'] == 'assistant' %}"
    "{{ '<|im_start|>assistant\n' }}{% generation %}{{ message['content'] }}{% endgeneration %}{{ '<|im_end|>\n' }}"
    "{% else %}{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n' }}{% endif %}"
    "{% endfor %}"
)


def eos_labels(seed: int, assistant_only_loss: bool, template: str | None = None) -> dict:
    """Count how many <|im_end|> tokens are in input_ids and how many carry a label."""
    from datasets import Dataset
    from transformers import AutoTokenizer
    from trl import SFTConfig, SFTTrainer
    from trl.chat_template_utils import is_chat_template_stop_token_trained

    runner.setup(seed)
    path = runner.model_path(seed)
    tok = AutoTokenizer.from_pretrained(path)
    if template is not None:
        tok.chat_template = template
    args = runner.config(SFTConfig, seed, assistant_only_loss=assistant_only_loss)
    trainer = SFTTrainer(model=path, args=args, train_dataset=Dataset.from_list(CHAT), processing_class=tok)
    row = trainer.train_dataset[0]
    eos = tok.eos_token_id
    return {
        "eos_in_input": sum(t == eos for t in row["input_ids"]),
        "eos_labelled": sum(t == eos for t in row["labels"]),
        "labelled_tokens": sum(t != -100 for t in row["labels"]),
        "tokens": len(row["input_ids"]),
        "trl_check_stop_token_trained": is_chat_template_stop_token_trained(tok),
    }


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    """assistant_only_loss=True with a template that puts <|im_end|> outside {% generation %}."""
    return eos_labels(seed, assistant_only_loss=True, template=EOT_OUTSIDE)
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """The end-of-turn token inside {% generation %} (the tiny model's ChatML template), and the default mode."""
    return {
        "assistant_only": eos_labels(seed, assistant_only_loss=True),
        "full_sequence": eos_labels(seed, assistant_only_loss=False),
    }
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    bad, good = symptom(seed), fix(seed)
    full, asst = good["full_sequence"], good["assistant_only"]
    # The seed's claim: with assistant_only_loss off, EOS is masked. TRL 1.16: every token is labelled.
    assert full["labelled_tokens"] == full["tokens"] and full["eos_labelled"] == full["eos_in_input"] == 2, full
    assert asst["eos_labelled"] == 1 and asst["trl_check_stop_token_trained"], f"assistant EOS not trained: {asst}"
    assert bad["eos_labelled"] == 0 and not bad["trl_check_stop_token_trained"], f"EOS unexpectedly labelled: {bad}"
    return (
        f"assistant_only_loss=False labels all {full['tokens']} tokens incl. both <|im_end|>; True labels the "
        f"assistant's <|im_end|> with a proper template, and 0 when the template puts it outside {{% generation %}}"
    )
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
