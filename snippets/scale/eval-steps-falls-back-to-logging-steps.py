"""Evaluation takes most of the training time: with eval_strategy="steps" and no
eval_steps, the Trainer evaluates every logging_steps (TRL's default 10, or every
step after logging_steps=1), each time over the whole eval set.

Page: docs/scale/eval-steps-falls-back-to-logging-steps.md
中文: docs/scale/eval-steps-falls-back-to-logging-steps.zh.md
"""

# --8<-- [start:fix]
import torch
from trl import SFTConfig

sft_config = SFTConfig(
    output_dir="sft-out",
    logging_steps=1,  # a loss line every step
    eval_strategy="steps",
    eval_steps=200,  # set it: left unset, it becomes logging_steps
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os
import tempfile

from datasets import Dataset
from transformers import set_seed
from trl import SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
STEPS = 6


def train(config, seed):
    set_seed(seed)
    rows = [
        {"text": f"Fact {i}: the sky is blue and the grass is green."}
        for i in range(32)
    ]
    args = dataclasses.replace(
        config,
        output_dir=tempfile.mkdtemp(),
        per_device_train_batch_size=2,
        per_device_eval_batch_size=8,  # 16 eval rows: two eval batches
        max_steps=STEPS,
        max_length=32,
        save_strategy="no",
        report_to="none",
        seed=seed,
    )
    data = Dataset.from_list(rows)
    trainer = SFTTrainer(
        MODEL,
        args=args,
        train_dataset=data.select(range(16, 32)),
        eval_dataset=data.select(range(16)),
    )
    forwards = {"train": 0, "eval": 0}

    def count(module, args):
        forwards["train" if module.training else "eval"] += 1

    trainer.model.register_forward_pre_hook(count)
    trainer.train()
    history = trainer.state.log_history
    evals = [h for h in history if "eval_loss" in h]
    return {
        "eval_steps": trainer.args.eval_steps,
        "evaluated_at": [h["step"] for h in evals],
        "forwards": forwards,
        "eval_seconds": sum(h["eval_runtime"] for h in evals),
        "train_runtime": history[-1]["train_runtime"],
        "params": sum(p.numel() for p in trainer.model.parameters()),
    }


def check(seed: int = 0) -> str:
    # the symptom: the Fix without eval_steps
    unset = dataclasses.replace(sft_config, eval_steps=None)
    assert unset.eval_steps == unset.logging_steps == 1, (
        f"claim: eval_steps left unset becomes logging_steps: {unset.eval_steps}"
    )
    default = SFTConfig(
        output_dir=tempfile.mkdtemp(), eval_strategy="steps", bf16=False
    )
    assert default.eval_steps == 10, f"claim: TRL's default: 10 {default.eval_steps}"
    symptom = train(unset, seed)
    # eval_steps=6 instead of the Fix's 200: a 6-step run must evaluate at all
    fixed = train(dataclasses.replace(sft_config, eval_steps=STEPS), seed)
    assert symptom["evaluated_at"] == list(range(1, STEPS + 1)), (
        f"claim: every step {symptom}"
    )
    assert fixed["evaluated_at"] == [STEPS], f"claim: every eval_steps steps {fixed}"
    for run in (symptom, fixed):
        per_eval = run["forwards"]["eval"] / len(run["evaluated_at"])
        assert per_eval == 2, f"claim: each evaluation runs the whole eval set {run}"
        assert run["forwards"]["train"] == STEPS, f"claim: one batch a step {run}"
    share = symptom["eval_seconds"] / fixed["eval_seconds"]
    # the 2-layer test model evaluates in milliseconds, where timer noise rules:
    # the time claim is checked on real models only
    if fixed["params"] > 50_000_000:
        assert share > 2, f"claim: 6x the evaluations take longer: {share:.2f}x"
    return (
        f"eval_steps unset -> {symptom['eval_steps']}: evaluated at "
        f"{symptom['evaluated_at']}, {symptom['forwards']['eval']} eval batches for "
        f"{STEPS} training batches; eval_steps={STEPS}: {fixed['evaluated_at']}; time "
        f"in evaluation {share:.1f}x, train_runtime "
        f"{symptom['train_runtime'] / fixed['train_runtime']:.2f}x"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
