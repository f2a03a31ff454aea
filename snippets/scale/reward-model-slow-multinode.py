"""RewardTrainer runs chosen and rejected through one forward pass: 2 x
per_device_train_batch_size sequences.

Page: docs/scale/reward-model-slow-multinode.md
中文: docs/scale/reward-model-slow-multinode.zh.md
"""

# --8<-- [start:fix]
import torch
from trl import RewardConfig

# per_device_train_batch_size counts PAIRS: every forward pass holds twice as many
# sequences. The same 4 pairs per optimizer step as per_device_train_batch_size=4, with
# half the sequences (and activation memory) per forward pass:
reward_config = RewardConfig(
    # 2 chosen + 2 rejected = 4 sequences per forward pass
    per_device_train_batch_size=2,
    gradient_accumulation_steps=2,  # 2 forward passes per optimizer step
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os

from datasets import Dataset
from transformers import set_seed
from trl import RewardTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")


def pairs(n, seed):
    """Preference pairs whose chosen answer is about three
    times longer than the rejected one."""
    rng = torch.Generator().manual_seed(seed)
    rows = []
    for i in range(n):
        words = 6 + int(torch.randint(0, 4, (1,), generator=rng))
        rows.append(
            {
                "chosen": f"Answer {i}: " + "the sky is blue " * words,
                "rejected": f"No idea {i}.",
            }
        )
    return Dataset.from_list(rows)


def train(seed, config):
    """Two optimizer steps; return the shape and the real tokens of
    every forward pass, and the logs."""
    set_seed(seed)
    args = dataclasses.replace(
        config,
        max_steps=2,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
    )
    trainer = RewardTrainer(model=MODEL, args=args, train_dataset=pairs(16, seed))
    forwards = []

    def record(module, args, kwargs):
        mask = kwargs["attention_mask"]
        # the collator puts the chosen first, then the rejected
        half = mask.shape[0] // 2
        forwards.append(
            {
                "shape": list(kwargs["input_ids"].shape),
                "real_tokens": int(mask.sum()),
                "chosen_tokens": mask[:half].sum(1).tolist(),
                "rejected_tokens": mask[half:].sum(1).tolist(),
            }
        )

    trainer.model.register_forward_pre_hook(record, with_kwargs=True)
    trainer.train()
    steps = [row for row in trainer.state.log_history if "loss" in row]
    return forwards, steps


def check(seed: int = 0) -> str:
    # The symptom: 4 pairs per forward pass, 8 sequences padded to the longest of them.
    symptom_config = RewardConfig(
        per_device_train_batch_size=4,
        gradient_accumulation_steps=1,
        bf16=reward_config.bf16,
    )
    results = {}
    for name, config in (("symptom", symptom_config), ("fix", reward_config)):
        forwards, steps = train(seed, config)
        per_device, accumulation = (
            config.per_device_train_batch_size,
            config.gradient_accumulation_steps,
        )
        assert len(forwards) == 2 * accumulation, (
            f"claim: {accumulation} forward pass(es) per optimizer step"
        )
        for f in forwards:
            rows, width = f["shape"]
            assert rows == 2 * per_device, (
                f"claim: one forward holds {per_device} chosen + {per_device} rejected"
            )
            assert width == max(f["chosen_tokens"] + f["rejected_tokens"]), (
                "claim: padded to the longest of all"
            )
            assert max(f["rejected_tokens"]) < width, (
                "claim: the short rejected answers are padded up"
            )
        real = sum(f["real_tokens"] for f in forwards)
        assert steps[-1]["num_tokens"] == real, (
            "claim: num_tokens counts the chosen and the rejected tokens"
        )
        padded = sum(f["shape"][0] * f["shape"][1] for f in forwards)
        results[name] = (
            forwards[0]["shape"],
            len(forwards) // 2,
            real,
            padded,
            [row["loss"] for row in steps],
        )

    (shape_s, fwd_s, real_s, padded_s, loss_s), (shape_f, fwd_f, real_f, _, loss_f) = (
        results.values()
    )
    assert shape_f[0] * 2 == shape_s[0], (
        "claim: the fix halves the sequences in one forward pass"
    )
    assert real_s == real_f, (
        "claim: both settings train on the same pairs and tokens per optimizer step"
    )
    assert all(abs(a - b) <= 1e-2 * abs(a) for a, b in zip(loss_s, loss_f)), (
        "claim: and log the same loss"
    )
    return (
        f"batch 4 x 1: {fwd_s} forward of {shape_s[0]} sequences per step; batch 2 x "
        f"2: {fwd_f} forwards of {shape_f[0]}; same {real_s} real tokens over 2 steps "
        f"({padded_s - real_s} padding tokens in the symptom run), losses "
        f"{[round(x, 4) for x in loss_s]} vs {[round(x, 4) for x in loss_f]}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
