"""SFT evaluation with compute_metrics: the Trainer keeps the logits of every eval
token (rows x length x vocabulary) until the metric runs, and TRL 1.16 runs a second
forward pass per eval batch to build them. preprocess_logits_for_metrics shrinks what
is kept; leaving compute_metrics out skips the second pass.

Page: docs/scale/sft-compute-metrics-eval-logits.md
中文: docs/scale/sft-compute-metrics-eval-logits.zh.md
"""

# --8<-- [start:fix]
import numpy as np


def preprocess_logits_for_metrics(logits, labels):
    """Runs on every eval batch: keep one token id per position, not the vocabulary."""
    return logits.argmax(dim=-1)


def compute_metrics(eval_pred):
    """Gets the ids kept above for the whole eval set: (rows, length) integers."""
    predictions, labels = eval_pred.predictions, eval_pred.label_ids
    # the prediction at position i is for the token at position i + 1
    predictions, labels = predictions[:, :-1], labels[:, 1:]
    mask = labels != -100
    return {"token_accuracy": float(np.mean(predictions[mask] == labels[mask]))}


# --8<-- [end:fix]


# --8<-- [start:evidence]
import os
import statistics
import tempfile

from datasets import Dataset
from transformers import EvalPrediction, set_seed
from trl import SFTConfig, SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
REPEATS = 3  # evaluations per set-up; the time compared is their median


def compute_metrics_on_logits(eval_pred):
    """The symptom: compute_metrics alone, so it receives every logit."""
    ids = eval_pred.predictions.argmax(-1)  # (rows, length, vocabulary) -> ids
    return compute_metrics(EvalPrediction(ids, eval_pred.label_ids))


def evaluate(seed, **metric_functions):
    set_seed(seed)
    rows = [
        {
            "messages": [
                {"role": "user", "content": f"Name colour number {i}."},
                {"role": "assistant", "content": f"Colour {i} is a bright blue."},
            ]
        }
        for i in range(8)
    ]
    args = SFTConfig(
        output_dir=tempfile.mkdtemp(),
        per_device_eval_batch_size=4,  # 8 rows: two eval batches
        max_length=64,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
        bf16=False,
    )
    data = Dataset.from_list(rows)
    trainer = SFTTrainer(
        MODEL, args=args, train_dataset=data, eval_dataset=data, **metric_functions
    )
    received = []  # what compute_metrics is handed: the kept predictions
    if trainer.compute_metrics is not None:
        metric = trainer.compute_metrics

        def watched(eval_pred):
            received.append(eval_pred.predictions)
            return metric(eval_pred)

        trainer.compute_metrics = watched
    forwards = []  # forward passes of the model per evaluation
    trainer.model.register_forward_pre_hook(lambda module, args: forwards.append(1))
    runtimes = []
    for _ in range(REPEATS):
        forwards.clear()
        metrics = trainer.evaluate()
        runtimes.append(metrics["eval_runtime"])
    kept = received[-1] if received else None
    return {
        "metrics": metrics,
        "shape": kept.shape if kept is not None else None,
        "bytes": kept.nbytes if kept is not None else 0,
        "forwards": len(forwards),
        "batches": len(trainer.get_eval_dataloader()),
        "runtime": statistics.median(runtimes),
        "vocab": trainer.model.get_output_embeddings().weight.shape[0],
        "params": sum(p.numel() for p in trainer.model.parameters()),
    }


def check(seed: int = 0) -> str:
    plain = evaluate(seed)
    logits = evaluate(seed, compute_metrics=compute_metrics_on_logits)
    argmax = evaluate(
        seed,
        compute_metrics=compute_metrics,
        preprocess_logits_for_metrics=preprocess_logits_for_metrics,
    )
    rows, length, vocab = logits["shape"]
    assert vocab == logits["vocab"], f"claim: a logit per vocabulary entry {vocab}"
    assert argmax["shape"] == (rows, length), f"claim: one id per token {argmax}"
    shrink = logits["bytes"] / argmax["bytes"]
    assert shrink >= vocab / 2, f"claim: vocabulary-fold less kept: {shrink:.0f}x"
    for run in (logits, argmax):
        assert run["forwards"] == 2 * run["batches"], (
            "claim: with compute_metrics TRL 1.16 runs a second forward pass per "
            f"eval batch: {run['forwards']} for {run['batches']} batches"
        )
    assert plain["forwards"] == plain["batches"], f"claim: one pass each {plain}"
    accuracy = argmax["metrics"]["eval_token_accuracy"]
    assert accuracy == logits["metrics"]["eval_token_accuracy"], "claim: same metric"
    built_in = plain["metrics"]["eval_mean_token_accuracy"]
    assert abs(built_in - accuracy) < 0.05, (
        "claim: without compute_metrics SFTTrainer still logs token accuracy "
        f"({built_in:.3f} vs {accuracy:.3f})"
    )
    losses = {run["metrics"]["eval_loss"] for run in (plain, logits, argmax)}
    assert len(losses) == 1, f"claim: the metric functions leave eval_loss {losses}"
    slower = logits["runtime"] / plain["runtime"]
    # the 2-layer, 32-wide test model spends its forward pass in fixed per-call
    # overhead: the time claim is checked on real models only
    if plain["params"] > 50_000_000:
        assert slower > 1.3, (
            f"claim: evaluation with compute_metrics takes longer: {slower:.2f}x "
            f"(median eval_runtime {logits['runtime']:.2f} vs {plain['runtime']:.2f})"
        )
    return (
        f"compute_metrics on logits: keeps {rows}x{length}x{vocab} floats "
        f"({logits['bytes'] / 1e6:.1f} MB), argmax first: {shrink:.0f}x less; "
        f"{logits['forwards']} forward passes vs {plain['forwards']} without "
        f"compute_metrics, eval_runtime {slower:.2f}x; token accuracy {accuracy:.3f}"
        f" vs built-in eval_mean_token_accuracy {built_in:.3f}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
