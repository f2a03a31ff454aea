"""A base model fine-tuned on chat data writes <|im_end|> but generate() stops only at
<|endoftext|>: SFTConfig(eos_token="<|im_end|>") (TRL >= 1.14 also updates the
generation config) or setting generation_config.eos_token_id on the checkpoint.

Page: docs/sft/base-model-eos-generation-config.md
中文: docs/sft/base-model-eos-generation-config.zh.md
"""

# --8<-- [start:fix]
import torch
from trl import SFTConfig

sft_config = SFTConfig(
    # the token the chat template closes each turn with
    eos_token="<|im_end|>",
    learning_rate=2e-5,
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:fix-checkpoint]
def stop_at_end_of_turn(model, tokenizer, end_of_turn="<|im_end|>", save_to=None):
    """For a model already trained without eos_token (or on TRL < 1.14): make
    generate() stop at the end-of-turn token too, and make it the tokenizer's EOS."""
    end_id = tokenizer.convert_tokens_to_ids(end_of_turn)
    eos = model.generation_config.eos_token_id
    eos = [] if eos is None else [eos] if isinstance(eos, int) else list(eos)
    if end_id not in eos:
        # any id of the list stops generation: keep the base model's as well
        model.generation_config.eos_token_id = [end_id, *eos]
    tokenizer.eos_token = end_of_turn
    if save_to is not None:  # the checkpoint folder: rewrites its
        # generation_config.json and tokenizer files, weights untouched
        model.generation_config.save_pretrained(save_to)
        tokenizer.save_pretrained(save_to)


# --8<-- [end:fix-checkpoint]


# --8<-- [start:evidence]
import dataclasses
import os
import tempfile

import transformers
import trl
from datasets import Dataset
from packaging.version import Version
from transformers import (
    AutoModelForCausalLM,
    AutoTokenizer,
    GenerationConfig,
    set_seed,
)
from trl import SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
# 1 on a real model; the handbook's 2-layer test model
# needs ~300x the rate to move in a few steps
LR_SCALE = float(os.environ.get("HANDBOOK_LR_SCALE", "1"))

QUESTION = [{"role": "user", "content": "Two plus two?"}]
CHAT = Dataset.from_list(
    [{"messages": QUESTION + [{"role": "assistant", "content": "Four."}]}]
)


def as_base_model():
    """The model with the EOS settings of a base checkpoint: <|endoftext|> as the
    tokenizer's EOS (and pad) and as the only stop id of generation_config, as
    Qwen2.5 and SmolLM2 base models ship them. The chat template still closes every
    turn with <|im_end|>."""
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    model = AutoModelForCausalLM.from_pretrained(MODEL)
    tokenizer.eos_token = tokenizer.pad_token = "<|endoftext|>"
    model.config.eos_token_id = model.config.pad_token_id = tokenizer.eos_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.eos_token_id
    return model, tokenizer


def stop_ids(model):
    eos = model.generation_config.eos_token_id
    return [eos] if isinstance(eos, int) else list(eos or [])


def answer(model, tokenizer):
    """Greedy reply to the training question: the new token ids. In eval mode: left in
    training mode after train(), with SFTConfig's gradient checkpointing on, the model
    generated other tokens than its own forward pass predicts on older transformers
    releases of the version matrix."""
    model.eval()
    prompt = tokenizer.apply_chat_template(
        QUESTION, add_generation_prompt=True, return_tensors="pt", return_dict=True
    )
    out = model.generate(**prompt, max_new_tokens=16, do_sample=False)
    return out[0, prompt["input_ids"].shape[1] :].tolist()


def train(config, seed):
    set_seed(seed)
    model, tokenizer = as_base_model()
    args = dataclasses.replace(
        config,
        learning_rate=config.learning_rate * LR_SCALE,
        # a few steps on one exchange teach the reply and its <|im_end|>
        max_steps=32,
        per_device_train_batch_size=1,
        lr_scheduler_type="constant",
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
    )
    trainer = SFTTrainer(
        model=model, args=args, train_dataset=CHAT, processing_class=tokenizer
    )
    at_init = stop_ids(trainer.model)
    batch = trainer.data_collator(list(trainer.train_dataset))
    trainer.train()
    losses = [log["loss"] for log in trainer.state.log_history if "loss" in log]
    return trainer.model, tokenizer, batch, losses, at_init


def check(seed: int = 0) -> str:
    model, tokenizer, batch, losses, _ = train(
        dataclasses.replace(sft_config, eos_token=None), seed
    )
    im_end = tokenizer.convert_tokens_to_ids("<|im_end|>")
    text_end = tokenizer.convert_tokens_to_ids("<|endoftext|>")
    assert tokenizer.eos_token == "<|endoftext|>", (
        f"claim: without eos_token the base EOS stays, got {tokenizer.eos_token}"
    )
    assert stop_ids(model) == [text_end], (
        "claim: after training generate() still stops only at <|endoftext|>, "
        f"got {stop_ids(model)}"
    )
    labels = batch["labels"]
    in_input = int((batch["input_ids"] == im_end).sum())
    assert (labels == im_end).sum() == in_input >= len(CHAT), (
        f"claim: every <|im_end|>, each reply's included, is trained: {labels}"
    )
    assert not (labels == text_end).any(), (
        f"claim: <|endoftext|> is never in the labels: {labels}"
    )
    runs_on = answer(model, tokenizer)
    assert im_end in runs_on[:-1], (
        "claim: the trained model writes <|im_end|> and generation goes on past "
        f"it: {runs_on}"
    )

    # The checkpoint fix on the same trained model (no retraining).
    with tempfile.TemporaryDirectory() as checkpoint:
        stop_at_end_of_turn(model, tokenizer, save_to=checkpoint)
        saved = GenerationConfig.from_pretrained(checkpoint).eos_token_id
        saved_eos = AutoTokenizer.from_pretrained(checkpoint).eos_token
    assert saved == [im_end, text_end] and saved_eos == "<|im_end|>", (
        f"claim: generation_config.json lists <|im_end|>, got {saved}, {saved_eos}"
    )
    patched = answer(model, tokenizer)
    assert patched == runs_on[: runs_on.index(im_end) + 1], (
        "claim: the same model now stops at its first <|im_end|>: "
        f"{patched} vs {runs_on}"
    )

    # The Fix: SFTConfig(eos_token="<|im_end|>"), trained the same way.
    model, tokenizer, fix_batch, fix_losses, at_init = train(sft_config, seed)
    assert tokenizer.eos_token == "<|im_end|>", (
        f"claim: eos_token sets the tokenizer's EOS, got {tokenizer.eos_token}"
    )
    same = all(abs(a - b) <= 1e-4 * max(1.0, b) for a, b in zip(fix_losses, losses))
    assert fix_batch["labels"].equal(labels) and same, (
        "claim: eos_token changes nothing in training on chat data: "
        f"{fix_losses} vs {losses}"
    )
    # TRL >= 1.14 copies the new EOS into generation_config when the trainer is
    # built; transformers >= 4.56 does it when train() starts (Trainer aligns the
    # model's special tokens with the tokenizer's); with neither, nobody does.
    trl_copies = Version(trl.__version__) >= Version("1.14")
    transformers_copies = Version(transformers.__version__) >= Version("4.56")
    assert at_init == ([im_end, text_end] if trl_copies else [text_end]), (
        f"claim: TRL >= 1.14 adds <|im_end|> at construction, got {at_init}"
    )
    if trl_copies or transformers_copies:
        assert stop_ids(model) == [im_end, text_end], (
            "claim: after training generation_config stops at <|im_end|> first, "
            f"got {stop_ids(model)}"
        )
        by = "TRL" if trl_copies else "transformers' Trainer"
    else:
        assert stop_ids(model) == [text_end], (
            "claim: TRL < 1.14 with transformers < 4.56 leaves generation_config "
            f"alone, got {stop_ids(model)}"
        )
        stop_at_end_of_turn(model, tokenizer)  # so that setup needs it as well
        by = "hand (TRL < 1.14, transformers < 4.56)"
    stops = answer(model, tokenizer)
    assert stops[-1] == im_end and stops.count(im_end) == 1, (
        f"claim: with the Fix generation stops at <|im_end|>: {stops}"
    )
    return (
        f"no eos_token: stop ids {[text_end]}, {len(runs_on)} new tokens running past "
        f"<|im_end|> at {runs_on.index(im_end) + 1}; stop_at_end_of_turn: "
        f"{len(patched)} tokens; eos_token: stop ids "
        f"[im_end, endoftext] set by {by}, {len(stops)} tokens, same losses"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
