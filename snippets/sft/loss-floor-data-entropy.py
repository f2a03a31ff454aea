"""SFT loss levels off above 0 when a prompt has several valid answers: the data's
conditional entropy is a floor that no model and no number of epochs gets under
on new data; training on only drives the train loss under it by memorising.

Page: docs/sft/loss-floor-data-entropy.md
中文: docs/sft/loss-floor-data-entropy.zh.md
"""

# --8<-- [start:fix]
import collections
import math

import torch
from trl import SFTConfig


def loss_mask(row):
    """1 where a token of a tokenized row counts in the loss."""
    if "labels" in row:  # TRL >= 1.7 builds the labels when it prepares the data
        return [int(label != -100) for label in row["labels"]]
    return row["completion_mask"]


def loss_floor(train_dataset):
    """The lowest mean loss per completion token that any model can reach on a
    tokenized training set (pass `trainer.train_dataset`).

    Rows that share a prompt but not a completion cannot all be predicted: the
    best a model can do is give each completion its share of that prompt's rows.
    0 when no prompt repeats with another completion. Names, numbers or free text
    in rows that do not repeat raise the real floor further; only a held-out
    eval_loss shows that part.
    """
    shares = collections.defaultdict(collections.Counter)
    rows, tokens = [], 0
    for row in train_dataset:
        mask = loss_mask(row)
        if 1 not in mask:
            continue
        start = mask.index(1)
        prompt = tuple(row["input_ids"][:start])
        completion = tuple(row["input_ids"][start:])
        shares[prompt][completion] += 1
        rows.append((prompt, completion))
        tokens += sum(mask)
    nats = sum(-math.log(shares[p][c] / sum(shares[p].values())) for p, c in rows)
    return nats / tokens


# judge the run by a held-out split and keep the step with the lowest eval_loss
sft_config = SFTConfig(
    eval_strategy="steps",
    eval_steps=50,
    save_strategy="steps",
    save_steps=50,
    metric_for_best_model="eval_loss",
    load_best_model_at_end=True,
    bf16=torch.cuda.is_available(),
)
# trainer = SFTTrainer(model, args=sft_config, train_dataset=train_split,
#                      eval_dataset=held_out_split)
# print("floor:", loss_floor(trainer.train_dataset))
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os
import random
import string

from datasets import Dataset
from transformers import set_seed
from trl import SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
# 1 on a real model; the handbook's 2-layer test model
# needs ~300x the rate to move in a few steps
LR_SCALE = float(os.environ.get("HANDBOOK_LR_SCALE", "1"))

ANSWERS = [" A", " B", " C", " D"]  # k = 4 valid answers, one token apart
# one step covers the whole training set (16 or 8 rows): steps are epochs
STEPS, LONGER, EVAL_EVERY = 36, 72, 6


def cards(names, answers):
    """Prompt-completion rows: "card q:" -> " B"."""
    rows = [{"prompt": f"card {n}:", "completion": a} for n, a in zip(names, answers)]
    return Dataset.from_list(rows)


def every_answer(names):
    """Each card four times, once with each answer."""
    return cards([n for n in names for _ in ANSWERS], ANSWERS * len(names))


def one_answer(names):
    """Each card four times, always with the first answer."""
    return cards([n for n in names for _ in ANSWERS], ANSWERS[:1] * 4 * len(names))


def train(seed, train_rows, eval_rows, steps):
    """SFT with the Fix's config; the trainer, its logged losses and eval losses."""
    set_seed(seed)
    args = dataclasses.replace(
        sft_config,
        # a few dozen steps must reach the floor
        learning_rate=4e-5 * LR_SCALE,
        lr_scheduler_type="constant",
        max_steps=steps,
        eval_steps=EVAL_EVERY,
        # the check keeps nothing on disk: no checkpoint to load at the end
        save_strategy="no",
        load_best_model_at_end=False,
        per_device_train_batch_size=16,
        per_device_eval_batch_size=16,
        logging_steps=1,
        seed=seed,
    )
    trainer = SFTTrainer(
        model=MODEL, args=args, train_dataset=train_rows, eval_dataset=eval_rows
    )
    trainer.train()
    logged = trainer.state.log_history
    losses = [row["loss"] for row in logged if "loss" in row]
    evals = [row["eval_loss"] for row in logged if "eval_loss" in row]
    return trainer, losses, evals


def answer_shares(trainer, name):
    """The trained model's probability of each whole answer to "card <name>:"."""
    tokenizer, model = trainer.processing_class, trainer.model
    start = len(tokenizer(f"card {name}:").input_ids)
    shares = []
    for answer in ANSWERS:
        ids = tokenizer(f"card {name}:{answer}{tokenizer.eos_token}").input_ids
        with torch.no_grad():
            logits = model(torch.tensor([ids], device=model.device)).logits[0]
        logps = logits[:-1].float().log_softmax(-1)
        targets = torch.tensor(ids[1:], device=model.device)[:, None]
        shares.append(logps.gather(-1, targets)[start - 1 :].sum().exp().item())
    return [round(share, 3) for share in shares]


def check(seed: int = 0) -> str:
    rng = random.Random(seed)
    names = rng.sample(string.ascii_lowercase, 24)
    few, few_held_out = names[:4], names[4:8]

    # Symptom: four cards, each with all four answers (16 rows)
    four, four_loss, four_eval = train(
        seed, every_answer(few), every_answer(few_held_out), STEPS
    )
    floor = loss_floor(four.train_dataset)
    n_tokens = sum(loss_mask(four.train_dataset[0]))
    assert abs(floor - math.log(len(ANSWERS)) / n_tokens) < 1e-9, (
        f"claim: the floor is ln(4) / {n_tokens} completion tokens, got {floor}"
    )
    assert four_loss[0] > 2 * floor and min(four_loss) > 0.99 * floor, (
        "claim: the train loss comes down from above and never under the floor "
        f"{floor:.4f}: {four_loss}"
    )
    last = four_loss[-4:]
    assert max(last) < 1.03 * floor and max(last) - min(last) < 0.02 * floor, (
        f"claim: the train loss levels off at the floor {floor:.4f}: {last}"
    )
    assert abs(four_eval[-1] - floor) < 0.05 * floor, (
        f"claim: on held-out cards too: eval_loss {four_eval}"
    )
    shares = answer_shares(four, few_held_out[0])
    assert all(abs(share - 0.25) < 0.1 for share in shares), (
        f"claim: at the floor the model gives each answer about 1/4: {shares}"
    )

    # Control: the same cards with one answer each
    one, one_loss, one_eval = train(
        seed, one_answer(few), one_answer(few_held_out), STEPS
    )
    assert loss_floor(one.train_dataset) == 0.0, "claim: one answer, floor 0"
    assert one_loss[-1] < 0.1 * floor and one_eval[-1] < 0.1 * floor, (
        "claim: with one answer the same training goes near 0: "
        f"{one_loss[-4:]}, eval {one_eval}"
    )

    # Eight cards that never repeat, each with one answer drawn at random (every
    # answer twice), trained longer; eight other cards held out the same way
    distinct, distinct_held_out = names[8:16], names[16:24]
    uniq, uniq_loss, uniq_eval = train(
        seed,
        cards(distinct, rng.sample(ANSWERS * 2, 8)),
        cards(distinct_held_out, rng.sample(ANSWERS * 2, 8)),
        LONGER,
    )
    assert loss_floor(uniq.train_dataset) == 0.0, "set-up: no prompt repeats"
    trained = sum(uniq_loss[-6:]) / 6
    assert trained < 0.9 * floor, (
        f"claim: trained longer, the train loss goes under the floor {floor:.4f}: "
        f"{uniq_loss[-6:]}"
    )
    best = uniq.state.best_metric
    assert uniq_eval[-1] > 1.2 * max(floor, best), (
        f"claim: while eval_loss rises above it, past its best {best:.4f}: {uniq_eval}"
    )
    assert best == min(uniq_eval), f"set-up: best_metric is the lowest eval_loss {best}"
    return (
        f"floor ln(4)/{n_tokens} = {floor:.4f}; four answers: loss "
        f"{four_loss[0]:.3f} -> {four_loss[-1]:.4f}, eval {four_eval[-1]:.4f}, "
        f"shares {shares}; one answer: loss {one_loss[-1]:.4f}, eval "
        f"{one_eval[-1]:.4f}; distinct cards x{LONGER}: loss {trained:.4f}, "
        f"eval best {best:.4f} -> {uniq_eval[-1]:.4f}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
