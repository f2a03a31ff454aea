"""setup_chat_format and other helpers that `from trl import ...` no longer
finds, the release that removed each, and clone_chat_template in its place.

Page: docs/integrations/removed-helpers-setup-chat-format.md
中文: docs/integrations/removed-helpers-setup-chat-format.zh.md
"""

# --8<-- [start:symptom]
try:
    from trl import setup_chat_format  # noqa: F401 (the import is the test)
except ImportError as error:
    print(error)  # TRL >= 0.26: cannot import name 'setup_chat_format' from 'trl'
# --8<-- [end:symptom]


# --8<-- [start:fix]
from trl import clone_chat_template  # TRL >= 0.19


def add_chat_template(model, tokenizer, source_tokenizer="Qwen/Qwen3-0.6B"):
    """Replaces `model, tokenizer = setup_chat_format(model, tokenizer)`."""
    # copies the source's chat template, its special tokens and its EOS, and
    # resizes the embeddings (to a multiple of 64); returns 3 values since TRL 0.20
    model, tokenizer, added_tokens = clone_chat_template(
        model, tokenizer, source_tokenizer
    )
    if tokenizer.pad_token is None:  # setup_chat_format set one, this does not
        tokenizer.pad_token = tokenizer.eos_token
    return model, tokenizer


# --8<-- [end:fix]


# --8<-- [start:evidence]
import importlib
import os

import trl
from transformers import AutoModelForCausalLM, AutoTokenizer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
REMOVED = {  # name once exported by trl: the first release without it
    "SFTScriptArguments": "0.13",  # both became trl.ScriptArguments
    "DPOScriptArguments": "0.13",
    "DataCollatorForCompletionOnlyLM": "0.20",
    "TextEnvironment": "0.21",
    "DDPOTrainer": "0.24",
    "AlignPropTrainer": "0.24",
    "DDPOStableDiffusionPipeline": "0.24",
    "IterativeSFTTrainer": "0.24",
    "BestOfNSampler": "0.25",
    "setup_chat_format": "0.26",
}
GONE_MODULES = {"trl.commands": "0.13", "trl.core": "0.25"}


def check(seed: int = 0) -> str:
    for name, release in REMOVED.items():
        try:
            exec(f"from trl import {name}", {})
            message = ""
        except ImportError as error:
            message = str(error)
        assert message.startswith(f"cannot import name '{name}' from 'trl'"), (
            f"claim: `from trl import {name}` fails from TRL {release}: {message!r}"
        )
    for module, release in GONE_MODULES.items():
        try:
            importlib.import_module(module)
            message = ""
        except ModuleNotFoundError as error:
            message = str(error)
        assert message == f"No module named '{module}'", (
            f"claim: {module} is gone from TRL {release}: {message!r}"
        )
    assert trl.TrlParser.__module__ == "trl.scripts.utils", (
        "claim: TrlParser (once in trl.commands.cli_utils) is trl.TrlParser"
    )

    # A base model: no chat template, and an EOS that is not the chat turn's end.
    model = AutoModelForCausalLM.from_pretrained(MODEL)
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    source = AutoTokenizer.from_pretrained(MODEL)  # the template to clone
    tokenizer.chat_template = None
    tokenizer.eos_token = "<|endoftext|>"
    tokenizer.pad_token = None
    chat = [{"role": "user", "content": "Hi"}]
    try:
        tokenizer.apply_chat_template(chat)
        before = ""
    except ValueError as error:
        before = str(error)
    assert "tokenizer.chat_template is not set" in before, (
        f"claim: a base tokenizer has no chat template: {before!r}"
    )

    # The Fix, with the handbook's model as the source (the reader's default,
    # Qwen/Qwen3-0.6B, would be downloaded).
    model, tokenizer = add_chat_template(model, tokenizer, source_tokenizer=MODEL)
    assert tokenizer.chat_template == source.chat_template, (
        "claim: clone_chat_template copies the source's template"
    )
    text = tokenizer.apply_chat_template(chat, tokenize=False)
    assert "Hi" in text and text != "Hi", f"claim: the template now renders: {text!r}"
    eos = tokenizer.convert_tokens_to_ids(source.eos_token)
    assert (tokenizer.eos_token_id, model.generation_config.eos_token_id) == (
        eos,
        eos,
    ), (
        "claim: EOS becomes the source's end-of-turn token, in the tokenizer and "
        "in the model's generation config"
    )
    rows = model.get_input_embeddings().weight.shape[0]
    assert rows % 64 == 0 and rows == len(tokenizer.vocab), (
        f"claim: embeddings resized to the vocabulary, a multiple of 64: {rows}"
    )
    assert tokenizer.pad_token == tokenizer.eos_token, "claim: the Fix sets a pad token"
    return (
        f"TRL {trl.__version__}: {len(REMOVED)} names and {len(GONE_MODULES)} modules "
        f"gone; cloned template, EOS {source.eos_token!r}, {rows} embedding rows"
    )


SEEDS = (0,)  # import and tokenizer facts: the seed changes nothing

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
