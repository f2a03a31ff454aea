""" "Token indices sequence length is longer than the specified maximum sequence
length for this model": the tokenizer warns about whole examples before
SFTTrainer truncates them to max_length; training sees at most max_length tokens.

Page: docs/sft/token-indices-longer-than-max.md
中文: docs/sft/token-indices-longer-than-max.zh.md
"""

# --8<-- [start:fix]
import torch
from trl import SFTConfig

# What the model sees: at most max_length tokens per example. Choose it on
# purpose, within the model's context (config.max_position_embeddings).
sft_config = SFTConfig(
    max_length=1024, learning_rate=2e-5, bf16=torch.cuda.is_available()
)


def quiet_length_warning(tokenizer, model, sft_config):
    """Tell the tokenizer the model's real context, so it no longer warns about
    examples that SFTTrainer truncates to max_length anyway."""
    context = model.config.max_position_embeddings
    if sft_config.max_length > context:
        raise ValueError(f"max_length {sft_config.max_length} > context {context}")
    tokenizer.model_max_length = context
    return tokenizer


# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import logging
import logging.handlers
import os
import re

import torch
from datasets import Dataset
from transformers import (
    AutoModelForCausalLM,
    AutoTokenizer,
    GPT2Config,
    GPT2LMHeadModel,
    LlamaConfig,
    LlamaForCausalLM,
    set_seed,
)
from transformers.utils import logging as hf_logging
from trl import SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
WARNING = re.compile(
    r"Token indices sequence length is longer than the specified maximum "
    r"sequence length for this model \((\d+) > (\d+)\)\. Running this sequence "
    r"through the model will result in indexing errors"
)
# Two chats longer than the max_length the Evidence trains with
CHATS = [
    {
        "messages": [
            {"role": "user", "content": "Count to forty."},
            {"role": "assistant", "content": " ".join(map(str, range(1, 41)))},
        ]
    },
    {
        "messages": [
            {"role": "user", "content": "Count down from thirty."},
            {"role": "assistant", "content": " ".join(map(str, range(30, 0, -1)))},
        ]
    },
]


def build(args, tokenizer, seed):
    """SFTTrainer over CHATS, with the length warnings logged while preparing."""
    set_seed(seed)
    captured = logging.handlers.BufferingHandler(capacity=10_000)  # keeps the records
    level = hf_logging.get_verbosity()
    # warnings are shown by default; some launchers set TRANSFORMERS_VERBOSITY=error
    hf_logging.set_verbosity_warning()
    logging.getLogger("transformers").addHandler(captured)
    try:
        trainer = SFTTrainer(
            model=AutoModelForCausalLM.from_pretrained(MODEL),
            args=args,
            train_dataset=Dataset.from_list(CHATS),
            processing_class=tokenizer,
        )
    finally:
        logging.getLogger("transformers").removeHandler(captured)
        hf_logging.set_verbosity(level)
    return trainer, [
        m for m in (r.getMessage() for r in captured.buffer) if WARNING.search(m)
    ]


def check(seed: int = 0) -> str:
    # Short sequences keep the CPU run fast; 2 steps of batch 2
    args = dataclasses.replace(
        sft_config,
        max_length=48,
        max_steps=2,
        per_device_train_batch_size=2,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
    )
    full = [
        AutoTokenizer.from_pretrained(MODEL).apply_chat_template(
            chat["messages"], return_dict=True
        )["input_ids"]
        for chat in CHATS
    ]
    assert all(len(ids) > args.max_length for ids in full), (
        "set-up: both chats are longer than max_length"
    )

    # Symptom: the tokenizer's model_max_length (from tokenizer_config.json)
    # is below the data's length. Set low here to stand in for one.
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    tokenizer.model_max_length = 32
    symptom, warned = build(args, tokenizer, seed)
    assert len(warned) == 1, (
        f"claim: the tokenizer warns once, not once per long example: {warned}"
    )
    length, limit = map(int, WARNING.search(warned[0]).groups())
    assert (length, limit) == (len(full[0]), 32), (
        "claim: the warning counts the whole untruncated first chat against "
        f"model_max_length: ({length} > {limit}), full chat {len(full[0])}"
    )
    prepared = [row["input_ids"] for row in symptom.train_dataset]
    assert prepared == [ids[: args.max_length] for ids in full], (
        "claim: SFTTrainer then truncates every example to max_length "
        f"({args.max_length}): {[len(ids) for ids in prepared]}"
    )
    symptom.train()
    losses = [log["loss"] for log in symptom.state.log_history if "loss" in log]
    assert len(losses) == 2 and all(loss == loss for loss in losses), (
        f"claim: training on {args.max_length} > {limit} tokens runs: {losses}"
    )

    # model_max_length = max_length does not silence it: the tokenizer sees
    # the whole example, before truncation.
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    tokenizer.model_max_length = args.max_length
    _, still = build(args, tokenizer, seed)
    assert len(still) == 1, f"claim: model_max_length = max_length still warns: {still}"

    # Fix: the tokenizer knows the model's context; same data, no warning
    model = AutoModelForCausalLM.from_pretrained(MODEL)
    tokenizer = quiet_length_warning(AutoTokenizer.from_pretrained(MODEL), model, args)
    fixed, warned = build(args, tokenizer, seed)
    assert warned == [], f"claim: no warning at the model's context: {warned}"
    assert [row["input_ids"] for row in fixed.train_dataset] == prepared, (
        "claim: the fix changes nothing the model trains on"
    )
    fixed.train()

    # "Indexing errors" is literal for a learned position table (GPT-2), not for RoPE
    gpt2 = GPT2LMHeadModel(GPT2Config(n_positions=16, n_embd=32, n_layer=1, n_head=2))
    try:
        gpt2(torch.arange(20)[None])
        raise AssertionError("claim: GPT-2 past n_positions raises IndexError")
    except IndexError as error:
        assert "index out of range in self" in str(error), error
    rope = LlamaConfig(
        vocab_size=320,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        max_position_embeddings=16,
    )
    with torch.no_grad():
        logits = LlamaForCausalLM(rope)(torch.arange(20)[None]).logits
    assert logits.shape[1] == 20, "claim: a RoPE model runs past its context"
    return (
        f"warned once ({length} > {limit}) and with model_max_length = "
        f"max_length; trained on {[len(ids) for ids in prepared]} tokens; "
        f"model_max_length = {tokenizer.model_max_length}: silent, same data; "
        "GPT-2 past n_positions: IndexError; Llama (RoPE) past its context: ran"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
