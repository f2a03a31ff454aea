"""With gradient accumulation the Trainer's progress bar, max_steps and
logging_steps count optimizer steps: the bar moves once per
gradient_accumulation_steps batches, and TRL's default logging_steps=10 prints
the first loss after 10 x gradient_accumulation_steps batches.

Page: docs/dynamics/progress-counts-optimizer-steps.md
中文: docs/dynamics/progress-counts-optimizer-steps.zh.md
"""

# --8<-- [start:fix]
import torch
from trl import SFTConfig

sft_config = SFTConfig(
    output_dir="sft-out",
    per_device_train_batch_size=1,
    gradient_accumulation_steps=16,  # one optimizer step = 16 batches
    logging_first_step=True,  # a loss line after the first optimizer step
    logging_steps=1,  # then one per optimizer step (TRL's default: 10)
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os
import tempfile

from datasets import Dataset
from transformers import set_seed
from transformers.trainer_callback import ProgressCallback
from trl import SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
ACCUMULATION = 4  # fewer batches per step than the Fix's 16: a CPU run
STEPS = 4


def train(config, seed):
    set_seed(seed)
    rows = [{"text": f"Fact {i}: the sky is blue."} for i in range(16)]
    args = dataclasses.replace(
        config,
        output_dir=tempfile.mkdtemp(),
        gradient_accumulation_steps=ACCUMULATION,
        max_steps=STEPS,
        max_length=32,
        disable_tqdm=False,  # the bar is what this run watches
        save_strategy="no",
        report_to="none",
        seed=seed,
    )
    trainer = SFTTrainer(MODEL, args=args, train_dataset=Dataset.from_list(rows))
    progress = next(
        c for c in trainer.callback_handler.callbacks if isinstance(c, ProgressCallback)
    )
    bar, total = [], set()  # what the progress bar shows when each batch starts

    def seen(module, args):
        if module.training:
            bar.append(progress.training_bar.n)
            total.add(progress.training_bar.total)

    trainer.model.register_forward_pre_hook(seen)
    trainer.train()
    losses = [h["step"] for h in trainer.state.log_history if "loss" in h]
    return {"bar": bar, "total": total.pop(), "loss_at": losses}


def check(seed: int = 0) -> str:
    default = SFTConfig(output_dir=tempfile.mkdtemp(), bf16=False).logging_steps
    assert default == 10, f"claim: TRL's default logging_steps is 10: {default}"
    # the symptom: TRL's default logging, everything else as in the Fix
    defaults = dict(logging_steps=10, logging_first_step=False)
    symptom = train(dataclasses.replace(sft_config, **defaults), seed)
    fixed = train(sft_config, seed)
    for run in (symptom, fixed):
        assert len(run["bar"]) == STEPS * ACCUMULATION, f"claim: batches {run}"
        assert run["total"] == STEPS, f"claim: the bar counts optimizer steps {run}"
        expected = [batch // ACCUMULATION for batch in range(STEPS * ACCUMULATION)]
        assert run["bar"] == expected, (
            "claim: the bar moves once per gradient_accumulation_steps batches: "
            f"{run['bar']}"
        )
    assert symptom["loss_at"] == [], (
        f"claim: with logging_steps=10 a {STEPS}-step run logs no loss "
        f"{symptom['loss_at']}"
    )
    assert fixed["loss_at"] == list(range(1, STEPS + 1)), (
        f"claim: logging_steps=1 logs every optimizer step {fixed['loss_at']}"
    )
    return (
        f"{STEPS * ACCUMULATION} batches, {STEPS} optimizer steps: the bar reads "
        f"{symptom['bar'][:ACCUMULATION]} over the first {ACCUMULATION} batches "
        f"(total {symptom['total']}); loss lines at steps {symptom['loss_at']} with "
        f"logging_steps=10, at {fixed['loss_at']} with the Fix"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
