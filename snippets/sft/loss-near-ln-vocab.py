"""Loss stuck at ln(vocab size) means uniform predictions (weights that carry
nothing); pad = eos is not it.

Page: docs/sft/loss-near-ln-vocab.md
中文: docs/sft/loss-near-ln-vocab.zh.md
"""

# --8<-- [start:fix]
import math

import torch


def loss_vs_uniform(model, tokenizer, texts):
    """Before training: the model's loss on a few texts, and ln(V),
    the loss of a uniform prediction.

    A loaded pretrained model sits far below ln(V); within a few percent of it,
    the weights carry nothing (random init, a failed or partial load): check the
    load report, not the pad token.
    """
    batch = tokenizer(texts, return_tensors="pt", padding=True)
    labels = batch.input_ids.masked_fill(batch.attention_mask == 0, -100)
    with torch.no_grad():
        loss = model(**batch, labels=labels).loss.item()
    return loss, math.log(model.config.get_text_config().vocab_size)


# --8<-- [end:fix]


# --8<-- [start:evidence]
import os

from datasets import Dataset
from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer, set_seed
from transformers import DataCollatorForLanguageModeling as TransformersLMCollator
from trl import SFTConfig, SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
TEXTS = [
    "What is the capital of France? The capital of France is Paris.",
    "Two plus two equals four.",
]


def train(model, tokenizer, seed, learning_rate, steps):
    """SFT on TEXTS (8 rows, one batch per step); return the logged rows."""
    set_seed(seed)
    args = SFTConfig(
        learning_rate=learning_rate,
        lr_scheduler_type="constant",
        max_steps=steps,
        logging_steps=1,
        seed=seed,
        bf16=torch.cuda.is_available(),
        # transformers 5 saves a checkpoint at the last step otherwise
        save_strategy="no",
    )
    data = Dataset.from_list([{"text": text} for text in TEXTS] * 4)
    trainer = SFTTrainer(
        model=model, args=args, train_dataset=data, processing_class=tokenizer
    )
    trainer.train()
    return [
        row for row in trainer.state.log_history if "loss" in row and "entropy" in row
    ]


def warm_up(model, tokenizer, steps=8, learning_rate=1e-2):
    """A few plain AdamW steps on TEXTS: only for a random model (the tiny test model)
    to stand in for a trained one."""
    batch = tokenizer(TEXTS, return_tensors="pt", padding=True)
    labels = batch.input_ids.masked_fill(batch.attention_mask == 0, -100)
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate)
    for _ in range(steps):
        model(**batch, labels=labels).loss.backward()
        optimizer.step()
        optimizer.zero_grad()


def eos_labels_when_pad_is_eos(model, tokenizer, seed):
    """pad_token = eos_token (the folklore fix): EOS labels in TRL's
    batch vs transformers' LM collator."""
    tokenizer.pad_token = tokenizer.eos_token
    args = SFTConfig(seed=seed, bf16=torch.cuda.is_available())
    data = Dataset.from_list([{"text": text} for text in TEXTS])
    trainer = SFTTrainer(
        model=model, args=args, train_dataset=data, processing_class=tokenizer
    )
    # TRL appended one EOS to each
    rows = [{"input_ids": row["input_ids"]} for row in trainer.train_dataset]
    trl_batch = trainer.data_collator(
        [{**row, "labels": row["input_ids"]} for row in rows]
    )
    # builds labels, masks every pad id
    hf_batch = TransformersLMCollator(tokenizer, mlm=False)(rows)
    eos = tokenizer.eos_token_id
    return int((trl_batch["labels"] == eos).sum()), int(
        (hf_batch["labels"] == eos).sum()
    )


def check(seed: int = 0) -> str:
    set_seed(seed)
    tokenizer = AutoTokenizer.from_pretrained(MODEL)

    # Symptom: weights that carry nothing (what a failed load amounts to)
    # predict uniformly: loss = ln(V).
    broken = AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(MODEL))
    start, ln_v = loss_vs_uniform(broken, tokenizer, TEXTS)
    assert abs(start - ln_v) < 0.05 * ln_v, (
        f"claim: random weights give loss ~ ln(V)={ln_v:.2f}, got {start:.2f}"
    )
    logs = train(broken, tokenizer, seed, learning_rate=2e-5, steps=2)
    losses, entropies = [row["loss"] for row in logs], [row["entropy"] for row in logs]
    assert abs(losses[0] - ln_v) < 0.05 * ln_v, (
        f"claim: the first logged loss ~ ln(V)={ln_v:.2f}: {losses}"
    )
    assert all(abs(v - ln_v) < 0.05 * ln_v for v in entropies), (
        f"claim: logged entropy ~ ln(V): {entropies}"
    )
    # ... but training moves it: a loss that STAYS at ln(V) also means
    # that nothing is being updated.
    assert losses[-1] < losses[0], (
        f"claim: an update at learning_rate=2e-5 lowers a random model's loss: {losses}"
    )

    # A model that learned something, then frozen (learning_rate=0): it keeps its own
    # loss, it does not drift to ln(V).
    model, info = AutoModelForCausalLM.from_pretrained(MODEL, output_loading_info=True)
    assert not info["missing_keys"], (
        f"claim: the checkpoint loads completely, missing {info['missing_keys']}"
    )
    loaded, _ = loss_vs_uniform(model, tokenizer, TEXTS)
    # the tiny test model is itself random: a few steps make
    # it stand in for a pretrained one
    if loaded > 0.8 * ln_v:
        warm_up(model, tokenizer)
    before, _ = loss_vs_uniform(model, tokenizer, TEXTS)
    assert before < 0.8 * ln_v, (
        f"claim: a model that learned sits below ln(V)={ln_v:.2f}, got {before:.2f}"
    )
    frozen = [
        row["loss"] for row in train(model, tokenizer, seed, learning_rate=0.0, steps=2)
    ]
    assert max(frozen) - min(frozen) < 0.01 * before, (
        f"claim: learning_rate=0 keeps the loss fixed: {frozen}"
    )
    assert max(frozen) < 0.8 * ln_v, (
        f"claim: a frozen model stays below ln(V)={ln_v:.2f}: {frozen}"
    )

    # The folklore fix: pad = eos keeps EOS labels in TRL, while
    # transformers' LM collator drops them.
    trl_eos, hf_eos = eos_labels_when_pad_is_eos(model, tokenizer, seed)
    assert trl_eos == len(TEXTS), (
        f"claim: TRL keeps one EOS label per example when pad = eos, got {trl_eos}"
    )
    assert hf_eos == 0, (
        f"claim: transformers' LM collator masks every EOS when pad = eos, got {hf_eos}"
    )
    return (
        f"random weights: loss {start:.3f} vs ln(V)={ln_v:.3f}, logged {losses[0]:.3f} "
        f"-> {losses[-1]:.3f} at 2e-5; learned then frozen: {before:.3f} -> "
        f"{frozen[-1]:.3f}; pad=eos keeps {trl_eos}/{len(TEXTS)} EOS labels in TRL, "
        f"{hf_eos} in transformers' collator"
    )


SEEDS = (0, 1)  # it trains, so the suite runs two seeds

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
