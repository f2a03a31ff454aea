"""Resuming from a checkpoint that already reached the planned number of steps
trains nothing and returns at once; so does a new stage (DPO after SFT) started
with resume_from_checkpoint on the previous stage's checkpoint.

Page: docs/dynamics/resume-finishes-at-once.md
中文: docs/dynamics/resume-finishes-at-once.zh.md
"""

# --8<-- [start:fix]
import json
import os

import torch
from trl import SFTConfig

sft_config = SFTConfig(
    output_dir="sft-run",
    # the total from step 0, not "more epochs": was 3, so 2 more epochs
    num_train_epochs=5,
    save_strategy="epoch",
    bf16=torch.cuda.is_available(),
)


def checkpoint_step(checkpoint_dir):
    """The global_step a resume starts from, read from trainer_state.json."""
    with open(os.path.join(checkpoint_dir, "trainer_state.json")) as f:
        return json.load(f)["global_step"]


def train_more(trainer, checkpoint_dir):
    """Resume, and fail loudly when the checkpoint had already finished the plan."""
    start = checkpoint_step(checkpoint_dir)
    trainer.train(resume_from_checkpoint=checkpoint_dir)
    if trainer.state.global_step == start:
        raise RuntimeError(
            f"trained 0 steps: the checkpoint is at step {start}; raise "
            "num_train_epochs or max_steps (both count from step 0)"
        )


# A new stage (DPO after SFT) starts from the weights, not the trainer state:
#     DPOTrainer(model="sft-run/checkpoint-500", args=dpo_config, ...).train()
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import tempfile

from datasets import Dataset
from transformers import set_seed
from trl import DPOConfig, DPOTrainer, SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
TEXTS = Dataset.from_list(
    [{"text": f"Example {i}: the answer is {i * 7 % 13}."} for i in range(8)]
)
PAIRS = Dataset.from_list(
    [
        {"prompt": f"Is {i} even?", "chosen": " Yes.", "rejected": " No."}
        for i in range(8)
    ]
)


def sft(output_dir, seed, epochs, resume=None):
    """sft_config for a CPU: 8 texts, batch 2, so 4 steps an epoch; one
    checkpoint every 8 steps."""
    set_seed(seed)
    args = dataclasses.replace(
        sft_config,
        output_dir=output_dir,
        num_train_epochs=epochs,
        per_device_train_batch_size=2,
        save_strategy="steps",
        save_steps=8,
        logging_steps=1,
        report_to="none",
        seed=seed,
    )
    trainer = SFTTrainer(model=MODEL, args=args, train_dataset=TEXTS)
    if resume is None:
        trainer.train()
    else:
        train_more(trainer, resume)
    return trainer


def dpo(model, seed, resume=None, epochs=2):
    """A DPO stage of 8 pairs, batch 2: 4 steps an epoch."""
    set_seed(seed)
    args = DPOConfig(
        output_dir=tempfile.mkdtemp(),
        num_train_epochs=epochs,
        per_device_train_batch_size=2,
        max_length=32,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    trainer = DPOTrainer(model=model, args=args, train_dataset=PAIRS)
    output = trainer.train(resume_from_checkpoint=resume)
    dpo_steps = [h["step"] for h in trainer.state.log_history if "rewards/margins" in h]
    return trainer.state, output.metrics, dpo_steps


def losses(trainer):
    return [h["step"] for h in trainer.state.log_history if "loss" in h]


def check(seed: int = 0) -> str:
    # every checkpoint-* is written here and deleted afterwards
    with tempfile.TemporaryDirectory() as out:
        first = sft(out, seed, epochs=2)  # 8 steps, ends with checkpoint-8
        done = os.path.join(out, "checkpoint-8")
        assert first.state.global_step == checkpoint_step(done) == 8, (
            "claim: 2 epochs of 4 steps end with checkpoint-8"
        )

        # the same plan again, resumed: nothing is left to train
        set_seed(seed)
        again = SFTTrainer(model=MODEL, args=first.args, train_dataset=TEXTS)
        metrics = again.train(resume_from_checkpoint=done).metrics
        assert again.state.global_step == 8 and losses(again) == losses(first), (
            "claim: resuming a finished plan trains 0 steps "
            f"({again.state.global_step}, {losses(again)})"
        )
        assert metrics["train_loss"] == 0.0, f"claim: train_loss 0.0 ({metrics})"
        try:
            sft(out, seed, epochs=2, resume=done)
            refused = None
        except RuntimeError as error:
            refused = str(error)
        assert refused and "trained 0 steps" in refused, (
            f"claim: train_more names the problem ({refused})"
        )

        # the Fix: num_train_epochs is a total, so 3 means one more epoch
        more = sft(out, seed, epochs=3, resume=done)
        assert more.state.global_step == 12 and losses(more)[-4:] == [9, 10, 11, 12], (
            f"claim: 3 epochs resume at step 9 and end at 12 ({losses(more)})"
        )

        # a DPO stage resumed from the SFT checkpoint: SFT's step 8 >= DPO's 8
        resumed, resumed_metrics, resumed_steps = dpo(MODEL, seed, resume=done)
        # planned for 3 epochs (12 steps) instead: only the last 4 run
        _, _, tail_steps = dpo(MODEL, seed, resume=done, epochs=3)
        fresh, _, fresh_steps = dpo(done, seed)  # the weights only
    assert resumed.global_step == 8 and resumed_steps == [], (
        "claim: DPO resumed from the SFT checkpoint trains 0 DPO steps "
        f"({resumed.global_step}, {resumed_steps})"
    )
    assert resumed_metrics["train_loss"] == 0.0, f"claim: {resumed_metrics}"
    assert tail_steps == [9, 10, 11, 12], (
        f"claim: a longer DPO plan runs only the steps after SFT's 8 ({tail_steps})"
    )
    assert fresh.global_step == 8 and fresh_steps == list(range(1, 9)), (
        f"claim: from the weights, DPO trains its 8 steps ({fresh_steps})"
    )
    return (
        f"finished SFT plan resumed: global_step {again.state.global_step}, "
        f"train_loss {metrics['train_loss']}, runtime {metrics['train_runtime']:.3f}s; "
        f"num_train_epochs=3: steps {losses(more)[-4:]}; DPO resumed from the SFT "
        f"checkpoint: DPO steps {resumed_steps} (3 epochs: {tail_steps}); from "
        f"its weights: {len(fresh_steps)} steps"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
