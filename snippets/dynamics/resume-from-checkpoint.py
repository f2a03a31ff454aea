"""What a Trainer checkpoint holds and how resume_from_checkpoint continues a run
exactly, versus reloading only the weights (or resuming from a save_only_model
checkpoint): fresh AdamW state and a restarted learning rate.

Page: docs/dynamics/resume-from-checkpoint.md
中文: docs/dynamics/resume-from-checkpoint.zh.md
"""

# --8<-- [start:fix]
import os

import torch
from trl import SFTConfig

sft_config = SFTConfig(
    output_dir="my-run",  # resuming looks here for the newest checkpoint-*
    save_strategy="steps",
    save_steps=500,  # the most work an interruption can cost
    # the default: keep it, or checkpoints lose optimizer, scheduler and RNG state
    save_only_model=False,
    bf16=torch.cuda.is_available(),
)
RESUME_FILES = ("optimizer.pt", "scheduler.pt", "rng_state.pth", "trainer_state.json")


def missing_resume_files(checkpoint_dir):
    """The files a resume would silently go without; an empty list
    means the run can continue exactly."""
    return [
        name
        for name in RESUME_FILES
        if not os.path.isfile(os.path.join(checkpoint_dir, name))
    ]


# After an interruption: the same script and arguments, then
#     # the newest checkpoint-* in output_dir (or pass its path)
#     trainer.train(resume_from_checkpoint=True)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import tempfile

from datasets import Dataset
from transformers import set_seed
from trl import SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
DATA = Dataset.from_list(
    [
        {"text": f"Example {i}: the answer is {i * 7 % 13}." + " More." * (i % 4)}
        for i in range(16)
    ]
)


def config(output_dir, seed, max_steps=6, **overrides):
    """sft_config sized for a CPU check: 6 steps, a checkpoint every
    3, the default linear schedule."""
    return dataclasses.replace(
        sft_config,
        output_dir=output_dir,
        save_steps=3,
        max_steps=max_steps,
        per_device_train_batch_size=2,
        # above SFTConfig's 2e-5 so that 3 steps move the weights measurably
        learning_rate=1e-3,
        logging_steps=1,
        seed=seed,
        **overrides,
    )


def run(model, args, seed, resume=None):
    set_seed(seed)
    trainer = SFTTrainer(model=model, args=args, train_dataset=DATA)
    trainer.train(resume_from_checkpoint=resume)
    return {
        row["step"]: (row["loss"], row["learning_rate"])
        for row in trainer.state.log_history
        if "loss" in row
    }


def check(seed: int = 0) -> str:
    # every checkpoint-* is written here and deleted afterwards
    with tempfile.TemporaryDirectory() as out:
        full = run(MODEL, config(out, seed), seed)  # the uninterrupted run
        # what an interruption after step 3 leaves behind
        checkpoint = os.path.join(out, "checkpoint-3")
        assert missing_resume_files(checkpoint) == [], (
            "claim: a default checkpoint holds optimizer, scheduler, RNG"
        )
        resumed = run(MODEL, config(out, seed), seed, resume=checkpoint)
        with tempfile.TemporaryDirectory() as out2:
            # a new run from the weights
            weights_only = run(checkpoint, config(out2, seed, max_steps=3), seed)
        with tempfile.TemporaryDirectory() as out3:
            run(MODEL, config(out3, seed, save_only_model=True), seed)
            slim = os.path.join(out3, "checkpoint-3")
            slim_missing = missing_resume_files(slim)
            slim_resumed = run(
                MODEL, config(out3, seed, save_only_model=True), seed, resume=slim
            )

    for step in (4, 5, 6):
        (loss, lr), (r_loss, r_lr) = full[step], resumed[step]
        assert abs(r_loss - loss) <= 1e-4 * loss and r_lr == lr, (
            f"claim: resuming continues the run exactly (step {step}: "
            f"{r_loss} vs {loss}, lr {r_lr} vs {lr})"
        )
    assert weights_only[1][1] == 1e-3 > full[4][1], (
        "claim: reloading only the weights restarts the lr schedule"
    )
    assert abs(weights_only[3][0] - full[6][0]) > 1e-3, (
        "claim: reloading only the weights changes the trajectory"
    )
    assert slim_missing == ["optimizer.pt", "scheduler.pt", "rng_state.pth"], (
        f"claim: save_only_model: {slim_missing}"
    )
    assert sorted(slim_resumed) == [1, 2, 3, 4, 5, 6], (
        "claim: resuming a save_only_model checkpoint raises nothing"
    )
    assert slim_resumed[4][1] == 1e-3 > full[4][1], (
        "claim: it silently restarts the learning rate schedule"
    )
    assert abs(slim_resumed[6][0] - full[6][0]) > 1e-3, (
        "claim: and the losses leave the uninterrupted curve"
    )
    return (
        "loss at steps 4-6: uninterrupted "
        f"{[round(full[s][0], 4) for s in (4, 5, 6)]}, resumed "
        f"{[round(resumed[s][0], 4) for s in (4, 5, 6)]}; weights only "
        f"{[round(weights_only[s][0], 4) for s in (1, 2, 3)]} (lr "
        f"{weights_only[1][1]:g} instead of {full[4][1]:g}); save_only_model "
        f"resume {[round(slim_resumed[s][0], 4) for s in (4, 5, 6)]} (lr "
        f"{slim_resumed[4][1]:g})"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
