"""KTOTrainer logs no rewards/accuracies, and leaves rewards/rejected and
rewards/margins out of a log line whose batches held no undesirable example:
code written for DPO's metric names fails with KeyError.

Page: docs/preference/kto-metrics-not-dpo.md
中文: docs/preference/kto-metrics-not-dpo.zh.md
"""

# --8<-- [start:symptom]
from transformers import TrainerCallback

# the reward columns a DPO notebook shows (DPOTrainer logs all four)
DPO_METRICS = (
    "rewards/chosen",
    "rewards/rejected",
    "rewards/accuracies",
    "rewards/margins",
)


class DPOStyleTable(TrainerCallback):
    """A progress table written for DPOTrainer: one column per DPO metric."""

    def __init__(self):
        self.rows = []

    def on_log(self, args, state, control, logs=None, **kwargs):
        if "loss" in logs:  # training lines (evaluation lines carry eval_loss)
            self.rows.append({name: logs[name] for name in DPO_METRICS})


# --8<-- [end:symptom]


# --8<-- [start:fix]
import math

import torch
from transformers import TrainerCallback
from trl import KTOConfig

# KTO's reward metrics; it has no pairs, so no rewards/accuracies
KTO_METRICS = ("rewards/chosen", "rewards/rejected", "rewards/margins", "kl")


class KTOTable(TrainerCallback):
    """One row per training log line; a label that the line's batches did not
    hold reads nan (KTOTrainer leaves its keys out of that line)."""

    def __init__(self):
        self.rows = []

    def on_log(self, args, state, control, logs=None, **kwargs):
        if "loss" in logs:
            row = {name: logs.get(name, math.nan) for name in KTO_METRICS}
            self.rows.append({"step": state.global_step, **row})


kto_config = KTOConfig(
    eval_strategy="steps",
    eval_steps=100,
    save_steps=100,
    load_best_model_at_end=True,
    metric_for_best_model="eval_rewards/margins",  # not eval_rewards/accuracies
    logging_steps=1,
    bf16=torch.cuda.is_available(),
)
# trainer = KTOTrainer(..., args=kto_config, callbacks=[KTOTable()])
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os

import trl
from datasets import Dataset
from packaging.version import Version
from transformers import AutoTokenizer, set_seed
from trl import KTOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
# 1 on a real model; the handbook's 2-layer test model
# needs ~300x the rate to move in a few steps
LR_SCALE = float(os.environ.get("HANDBOOK_LR_SCALE", "1"))

# 6 desirable and 2 undesirable rows: in batches of 2, at least two of the four
# batches hold no undesirable row, whatever the order
PAIRS = [
    ("What is the capital of France?", " Paris.", True),
    ("Two plus two equals", " nine maybe.", False),
    ("Answer yes or no.", " Yes.", True),
    ("Say hello.", " Hello world.", True),
    ("Three times three is", " nine.", True),
    ("What is the capital of Spain?", " I do not know.", False),
    ("Two plus two equals", " four.", True),
    ("Name a colour.", " Blue.", True),
]
ROWS = Dataset.from_list(
    [{"prompt": p, "completion": c, "label": label} for p, c, label in PAIRS]
)


def train(seed, table, **overrides):
    """Four KTO steps in batches of 2, evaluated at step 2 and 4; the trainer, or
    the KeyError that stopped it."""
    set_seed(seed)
    fields = dict(
        per_device_train_batch_size=2,
        max_steps=4,
        eval_steps=2,
        learning_rate=kto_config.learning_rate * LR_SCALE,
        lr_scheduler_type="constant",
        # a check saves nothing; the best metric is still tracked at each eval
        save_strategy="no",
        load_best_model_at_end=False,
        seed=seed,
    )
    args = dataclasses.replace(kto_config, **{**fields, **overrides})
    # processing_class: TRL up to 1.2 requires it
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    trainer = KTOTrainer(
        model=MODEL,
        args=args,
        train_dataset=ROWS,
        eval_dataset=ROWS,
        processing_class=tokenizer,
        callbacks=[table],
    )
    try:
        trainer.train()
    except KeyError as error:
        return error
    return trainer


def train_lines(trainer):
    return [row for row in trainer.state.log_history if "loss" in row]


def check(seed: int = 0) -> str:
    # the symptom: a DPO progress table on a KTO run
    error = train(seed, DPOStyleTable())
    assert isinstance(error, KeyError) and error.args == ("rewards/accuracies",), (
        f"claim: code that reads DPO's names fails on KTO's first log line: {error!r}"
    )
    # a DPO config's metric_for_best_model
    error = train(seed, KTOTable(), metric_for_best_model="eval_rewards/accuracies")
    assert isinstance(error, KeyError), f"claim: no such eval metric: {error!r}"
    assert "'eval_rewards/accuracies', which is not found" in str(error), error

    # the fix
    table = KTOTable()
    trainer = train(seed, table)
    assert isinstance(trainer, KTOTrainer), f"claim: the fix trains: {trainer!r}"
    lines = train_lines(trainer)
    logged = set().union(*lines)
    assert {"rewards/chosen", "logps/chosen", "logits/chosen", "kl"} <= logged, logged
    assert "rewards/accuracies" not in logged, "claim: KTO logs no accuracy"
    internal = [k for k in logged if k.endswith("_sum") or k.startswith("count/")]
    assert not internal, f"claim: no *_sum or count/* key reaches the log: {internal}"

    # lines whose batch held no undesirable row: no rejected side, no margin
    gaps = [line for line in lines if "rewards/rejected" not in line]
    assert len(gaps) >= 2, (
        f"claim: two batches of four have no undesirable row: {lines}"
    )
    for line in gaps:
        absent = {"logps/rejected", "rewards/margins"} & set(line)
        assert not absent, f"claim: no rejected metric without a rejected row: {line}"
    for line in lines:
        if "rewards/rejected" in line:
            margin = line["rewards/chosen"] - line["rewards/rejected"]
            assert math.isclose(line["rewards/margins"], margin, abs_tol=1e-9), (
                f"claim: one batch a line: margins = chosen - rejected: {line}"
            )
    nan_rows = [row for row in table.rows if math.isnan(row["rewards/margins"])]
    assert len(nan_rows) == len(gaps) and len(table.rows) == 4, (
        f"claim: the table reads nan where the key is absent: {table.rows}"
    )

    # eval_rewards/margins is an evaluation metric: the best one is tracked
    evals = [
        row["eval_rewards/margins"]
        for row in trainer.state.log_history
        if "eval_loss" in row
    ]
    assert len(evals) == 2 and trainer.state.best_metric == max(evals), (
        f"claim: metric_for_best_model='eval_rewards/margins' works: {evals}, "
        f"best {trainer.state.best_metric}"
    )

    # gradient accumulation: a line averages its micro-batches, each side over
    # the micro-batches that held it; since TRL 1.7 the margin too, over those
    # that held both, so it is no longer chosen - rejected of the same line
    mixed = train(seed, KTOTable(), gradient_accumulation_steps=2, max_steps=2)
    line = train_lines(mixed)[-1]
    difference = line["rewards/chosen"] - line["rewards/rejected"]
    per_batch = Version(trl.__version__) >= Version("1.7")
    assert (line["rewards/margins"] != difference) == per_batch, (
        f"claim: since TRL 1.7 the logged margin is averaged per micro-batch: {line}"
    )
    return (
        f"DPO table -> KeyError 'rewards/accuracies'; {len(gaps)} of 4 lines without "
        f"rewards/rejected or rewards/margins; table {table.rows}; eval margins "
        f"{evals}; with accumulation margins {line['rewards/margins']:.3g} vs "
        f"chosen - rejected {difference:.3g}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
