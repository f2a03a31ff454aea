"""Out of memory at one step late in training, after hundreds of steps ran fine:
a step's memory follows the longest sequence of its batch, and one example that
nothing truncated makes that batch. max_length bounds it in SFT and DPO, unless
it is None or SFTTrainer's dataset preparation is skipped; a one-step probe of
batch x max_length tokens tests the worst case before the run.

Page: docs/scale/oom-late-step-long-example.md
中文: docs/scale/oom-late-step-long-example.zh.md
"""

# --8<-- [start:fix]
import dataclasses

import torch
from datasets import Dataset
from trl import DPOConfig, SFTConfig, SFTTrainer

# No sequence longer than max_length reaches the model, so no step holds more
# than per_device_train_batch_size x max_length tokens (DPO: twice that, a
# chosen and a rejected sequence per pair).
sft_config = SFTConfig(
    max_length=2048,  # never None on data with a long tail (default 1024)
    per_device_train_batch_size=2,
    gradient_accumulation_steps=8,
    bf16=torch.cuda.is_available(),
)
dpo_config = DPOConfig(
    max_length=2048,  # prompt + completion, each sequence (default 1024)
    per_device_train_batch_size=2,
    gradient_accumulation_steps=8,
    bf16=torch.cuda.is_available(),
)


def truncate_rows(dataset, max_length):
    """SFTTrainer does not truncate rows passed with
    dataset_kwargs={"skip_prepare_dataset": True}: cut them yourself."""
    names = [c for c in ("input_ids", "labels", "attention_mask") if c in dataset[0]]
    return dataset.map(lambda row: {c: row[c][:max_length] for c in names})


def probe_worst_case(model, config, token_id, trainer_class=SFTTrainer, **kwargs):
    """Run before training: one step on the largest batch the config lets
    through, per_device_train_batch_size rows of max_length tokens. If it fits,
    no step of the run needs more memory for activations. Pass the model's id
    or path (the probe trains its own copy, on filler tokens) and the run's
    peft_config (and other trainer arguments) as keyword arguments."""
    rows = [[token_id] * config.max_length] * config.per_device_train_batch_size
    rows[-1] = rows[-1][:-1]  # one pad token: real batches carry a padding mask
    args = dataclasses.replace(
        config, max_steps=1, gradient_accumulation_steps=1, save_strategy="no"
    )
    probe = Dataset.from_dict({"input_ids": rows})
    trainer = trainer_class(model=model, args=args, train_dataset=probe, **kwargs)
    trainer.train()
    if torch.cuda.is_available():
        print(f"worst-case step: {torch.cuda.max_memory_allocated() / 2**30:.1f} GiB")
    return trainer


# --8<-- [end:fix]


# --8<-- [start:evidence]
import os

from torch.profiler import ProfilerActivity, profile
from transformers import AutoTokenizer, set_seed
from trl import DPOTrainer, GRPOConfig

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
SHORT, LONG = 16, 256  # tokens of the ordinary rows and of the one long row
MAX_LENGTH = 48  # stands for the Fix's 2048 in a CPU run


def held_bytes(prof):
    """Replay the profiler's allocation log: the bytes still allocated when the
    forward pass returns, the activations kept for the backward pass."""
    events = prof.profiler.kineto_results.events()
    return sum(e.nbytes() for e in events if e.name() == "[memory]")


class MeasuredSteps:
    """Profiles the forward pass of every training step: the width of the
    batch the model receives and the bytes it holds for the backward pass."""

    def compute_loss(self, model, inputs, *args, **kwargs):
        with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
            loss = super().compute_loss(model, inputs, *args, **kwargs)
        width = max(t.shape[-1] for t in inputs.values() if torch.is_tensor(t))
        self.steps = getattr(self, "steps", []) + [(width, held_bytes(prof))]
        return loss


class MeasuredSFTTrainer(MeasuredSteps, SFTTrainer):
    pass


class MeasuredDPOTrainer(MeasuredSteps, DPOTrainer):
    pass


def cpu_args(config, seed, **changes):
    return dataclasses.replace(
        config,
        gradient_accumulation_steps=1,  # every micro-batch is its own step
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
        use_cpu=True,  # the profiler sees every allocation on the CPU
        bf16=False,
        **changes,
    )


def train(trainer_class, args, rows, **kwargs):
    """Trains on rows, one step per batch; the trainer keeps (width, bytes
    held) of every step in trainer.steps."""
    set_seed(args.seed)
    batch = args.per_device_train_batch_size
    args = dataclasses.replace(args, max_steps=len(rows) // batch)
    dataset = rows if isinstance(rows, Dataset) else Dataset.from_list(rows)
    trainer = trainer_class(model=MODEL, args=args, train_dataset=dataset, **kwargs)
    trainer.train()
    return trainer


def sft_rows(seed, n=4):
    """n pre-tokenized rows of SHORT tokens, one of them LONG: random numbers,
    text on which a real model's loss is the same in short and long rows."""
    g = torch.Generator().manual_seed(seed)
    numbers = torch.randint(0, 1000, (n * LONG,), generator=g).tolist()
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    ids = tokenizer(" ".join(str(k) for k in numbers))["input_ids"]
    lengths = [SHORT] * (n - 1) + [LONG]
    starts = [sum(lengths[:i]) for i in range(n)]
    return [{"input_ids": ids[s : s + k]} for s, k in zip(starts, lengths)]


def dpo_rows(n=4):
    """n preference pairs with one-word answers; one chosen answer LONG tokens."""
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    long_answer = " yes"
    while len(tokenizer(long_answer)["input_ids"]) < LONG:
        long_answer += " yes"
    rows = [
        {"prompt": f"Is {k} even?", "chosen": " yes", "rejected": " no"}
        for k in range(n)
    ]
    rows[-1]["chosen"] = long_answer
    return rows


def split(steps):
    """(width, held) of the step that drew the long row, the widest, and the
    most any other step held."""
    longest = max(steps)
    return longest, max(held for width, held in steps if width < longest[0])


def mb(n):
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.0f} KB"


def check(seed: int = 0) -> str:
    assert SFTConfig(bf16=False).max_length == 1024, "claim: SFT default 1024"
    assert DPOConfig(bf16=False).max_length == 1024, "claim: DPO default 1024"
    grpo_fields = {f.name for f in dataclasses.fields(GRPOConfig)}
    assert "max_completion_length" in grpo_fields, "claim: GRPO caps completions"
    assert "max_prompt_length" not in grpo_fields, (
        "claim: GRPOConfig has no prompt limit, prompts reach the model whole"
    )

    rows = sft_rows(seed)
    skip = {"skip_prepare_dataset": True}
    labelled = Dataset.from_list([dict(row, labels=row["input_ids"]) for row in rows])
    trainers = {
        "SFT max_length=None": train(
            MeasuredSFTTrainer, cpu_args(sft_config, seed, max_length=None), rows
        ),
        "SFT skip_prepare_dataset": train(
            MeasuredSFTTrainer,
            cpu_args(sft_config, seed, max_length=MAX_LENGTH, dataset_kwargs=skip),
            labelled,
        ),
        "SFT max_length": train(
            MeasuredSFTTrainer, cpu_args(sft_config, seed, max_length=MAX_LENGTH), rows
        ),
        "DPO max_length=None": train(
            MeasuredDPOTrainer, cpu_args(dpo_config, seed, max_length=None), dpo_rows()
        ),
        "DPO max_length": train(
            MeasuredDPOTrainer,
            cpu_args(dpo_config, seed, max_length=MAX_LENGTH),
            dpo_rows(),
        ),
    }
    steps = {name: trainer.steps for name, trainer in trainers.items()}
    measured = {name: split(s) for name, s in steps.items()}

    for name in (
        "SFT max_length=None",
        "SFT skip_prepare_dataset",
        "DPO max_length=None",
    ):
        (width, held), others = measured[name]
        assert width >= LONG, f"claim: {name}: the long row reaches the model whole"
        assert held > 4 * others, (
            f"claim: {name}: the step that draws the long row holds several times "
            f"what any other step holds: {mb(held)} vs {mb(others)}"
        )
    (_, untruncated), _ = measured["SFT max_length=None"]
    (_, skipped), _ = measured["SFT skip_prepare_dataset"]
    assert abs(skipped - untruncated) <= 0.01 * untruncated, (
        "claim: with skip_prepare_dataset=True, max_length cuts nothing: "
        f"{mb(skipped)} vs {mb(untruncated)} with max_length=None"
    )
    for name in ("SFT", "DPO"):
        (width, held), others = measured[f"{name} max_length=None"]
        (cut_width, cut_held), cut_others = measured[f"{name} max_length"]
        assert cut_width <= MAX_LENGTH, f"claim: {name} cuts every sequence"
        assert cut_held - cut_others < (held - others) / 4, (
            f"claim: {name} max_length removes most of what the long row adds: "
            f"+{mb(cut_held - cut_others)} instead of +{mb(held - others)}"
        )

    cut = truncate_rows(labelled, MAX_LENGTH)
    prepared = trainers["SFT max_length"].train_dataset
    assert sorted(cut["input_ids"]) == sorted(prepared["input_ids"]), (
        "claim: truncate_rows cuts rows as SFTTrainer's preparation does"
    )
    eos = AutoTokenizer.from_pretrained(MODEL).eos_token_id
    capped = cpu_args(sft_config, seed, max_length=MAX_LENGTH)
    probe = probe_worst_case(MODEL, capped, eos, MeasuredSFTTrainer).steps
    [(probe_width, probe_held)] = probe
    worst = max(held for _, held in steps["SFT max_length"])
    assert probe_width == MAX_LENGTH and probe_held >= worst, (
        "claim: the probe step holds at least what the worst step of the capped "
        f"run holds: {mb(probe_held)} vs {mb(worst)}"
    )

    at = [w for w, _ in steps["SFT max_length=None"]].index(LONG) + 1
    (_, sft_long), sft_short = measured["SFT max_length=None"]
    (_, sft_cut), _ = measured["SFT max_length"]
    (dpo_width, dpo_long), dpo_short = measured["DPO max_length=None"]
    (_, dpo_cut), _ = measured["DPO max_length"]
    return (
        f"SFT: long row at step {at}; held {mb(sft_short)} short, "
        f"{mb(sft_long)} with {LONG} tokens (skip_prepare_dataset: {mb(skipped)}), "
        f"{mb(sft_cut)} cut to {MAX_LENGTH}; probe {mb(probe_held)}. "
        f"DPO: {mb(dpo_short)} short, {mb(dpo_long)} at width {dpo_width}, "
        f"{mb(dpo_cut)} cut to {MAX_LENGTH}"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
