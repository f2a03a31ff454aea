"""Multi-process training hangs after a custom compute_loss "skips" a batch on one
rank by returning a new zero tensor: that rank's backward sends no gradients.

Page: docs/scale/zero-loss-skip-hang.md
中文: docs/scale/zero-loss-skip-hang.zh.md
"""

# --8<-- [start:fix]
import torch.nn.functional as F
from trl import SFTTrainer


def masked_token_loss(logits, labels):
    """Mean next-token loss over the labelled tokens. A batch with none of them
    gives 0 computed FROM the logits, so backward still reaches every weight."""
    logits, labels = logits[:, :-1], labels[:, 1:]
    mask = labels != -100
    per_token = F.cross_entropy(
        logits.transpose(1, 2), labels.clamp(min=0), reduction="none"
    )
    return (per_token * mask).sum() / mask.sum().clamp(min=1)


class TokenMeanTrainer(SFTTrainer):
    def compute_loss(
        self, model, inputs, return_outputs=False, num_items_in_batch=None
    ):
        labels = inputs.pop("labels")
        outputs = model(**inputs)
        loss = masked_token_loss(outputs.logits, labels)
        return (loss, outputs) if return_outputs else loss


# --8<-- [end:fix]


# --8<-- [start:evidence]
import faulthandler
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from datetime import timedelta

import torch
import torch.distributed as dist
from datasets import Dataset
from transformers import AutoTokenizer, set_seed
from trl import SFTConfig

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
CHILD = "ZERO_LOSS_HANG_PAGE_SEED"  # set by check() for the two processes it starts
SETUP = 300  # seconds: a generous collective timeout while the model loads
TIMEOUT = 20  # seconds: the collective timeout of the demonstration (default 1800)
DUMP_AFTER = 10  # seconds into the hang: each rank writes its Python stack


class SkipEmptyTrainer(SFTTrainer):
    """The symptom: a batch with no labelled token returns a NEW zero tensor."""

    def compute_loss(
        self, model, inputs, return_outputs=False, num_items_in_batch=None
    ):
        labels = inputs.pop("labels")
        outputs = model(**inputs)
        mask = labels[:, 1:] != -100
        if not mask.any():  # nothing to learn here: "skip" the batch
            print(f"rank {self.accelerator.process_index}: no labels, skipping batch")
            loss = torch.tensor(0.0, device=labels.device, requires_grad=True)
        else:
            logits = outputs.logits[:, :-1]
            loss = F.cross_entropy(logits[mask], labels[:, 1:][mask])
        return (loss, outputs) if return_outputs else loss


class GuardKeptTrainer(SFTTrainer):
    """The guard kept, but its zero is built from the logits: also fine."""

    def compute_loss(
        self, model, inputs, return_outputs=False, num_items_in_batch=None
    ):
        labels = inputs.pop("labels")
        outputs = model(**inputs)
        mask = labels[:, 1:] != -100
        if not mask.any():
            loss = outputs.logits.sum() * 0.0
        else:
            logits = outputs.logits[:, :-1]
            loss = F.cross_entropy(logits[mask], labels[:, 1:][mask])
        return (loss, outputs) if return_outputs else loss


def rows():
    """Pre-tokenized: one answer to learn, and one whose answer your own
    tokenization cut off (every label -100): nothing to learn."""
    tok = AutoTokenizer.from_pretrained(MODEL)
    prompt = tok("Question: what is the capital of France? Answer:")["input_ids"]
    answer = tok(" Paris.")["input_ids"] + [tok.eos_token_id]
    learn = {"input_ids": prompt + answer, "labels": [-100] * len(prompt) + answer}
    cut = {"input_ids": prompt, "labels": [-100] * len(prompt)}
    return [learn, cut]


def sft_trainer(trainer_class, seed, data, steps=1):
    set_seed(seed)
    args = SFTConfig(
        output_dir=tempfile.mkdtemp(),
        use_cpu=True,  # two CPU processes here; on GPUs leave it out
        per_device_train_batch_size=1,
        max_steps=steps,
        dataset_kwargs={"skip_prepare_dataset": True},  # rows are pre-tokenized
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
        bf16=False,
    )
    return trainer_class(MODEL, args=args, train_dataset=Dataset.from_list(data))


def attempt(trainer_class, seed, stack_file=None):
    """Train one step on each rank, then reach the next collective; time it."""
    trainer = sft_trainer(trainer_class, seed, rows())  # loading: generous timeout
    dist.barrier()  # both ranks start training together ...
    # ... under a short timeout, for the demonstration only
    dist.distributed_c10d._set_pg_timeout(timedelta(seconds=TIMEOUT))
    if stack_file:  # what `py-spy dump` shows from outside, written from inside
        faulthandler.dump_traceback_later(DUMP_AFTER, file=stack_file)
    started = time.monotonic()
    try:
        trainer.train()
        weights = sum(p.detach().double().sum() for p in trainer.model.parameters())
        dist.barrier()  # e.g. the next step, an evaluation, the exit
        outcome = {"ok": True, "weights": weights.item()}
    except RuntimeError as error:  # the timeout surfaces as a RuntimeError
        outcome = {"ok": False, "error": str(error).splitlines()[0][:300]}
    outcome["seconds"] = time.monotonic() - started
    faulthandler.cancel_dump_traceback_later()
    dist.distributed_c10d._set_pg_timeout(timedelta(seconds=SETUP))
    return outcome


def run_rank(seed):
    """One of two CPU processes: the two fixes, then the symptom."""
    dist.init_process_group("gloo", timeout=timedelta(seconds=SETUP))
    report = {"rank": dist.get_rank()}
    report["fix"] = attempt(TokenMeanTrainer, seed)
    report["guard_kept"] = attempt(GuardKeptTrainer, seed)
    with tempfile.TemporaryFile("w+") as stack_file:
        symptom = attempt(SkipEmptyTrainer, seed, stack_file)
        stack_file.seek(0)
        symptom["stack"] = re.findall(r"line \d+ in (\w+)", stack_file.read())
    report["symptom"] = symptom
    return report  # the group is broken now: no teardown collective


def launch(seed):
    """`torchrun --standalone --nproc_per_node 2 <this file>`: the two reports,
    and the ranks whose guard "skipped" a batch."""
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone"]
    command += ["--nproc_per_node", "2", __file__]
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, CHILD: str(seed), "PYTHONUNBUFFERED": "1"}
        run = dict(env=env, cwd=folder, capture_output=True, text=True, timeout=600)
        done = subprocess.run(command, **run)
    decoder = json.JSONDecoder()
    found = re.finditer(r"RANK (?=\{)", done.stdout)
    reports = [decoder.raw_decode(done.stdout, m.end())[0] for m in found]
    if len(reports) != 2:  # only missing reports fail: the symptom breaks the group
        output = f"{done.stdout[-1500:]}\n{done.stderr[-3000:]}"
        raise RuntimeError(f"torchrun failed ({done.returncode}):\n{output}")
    skipped = {int(rank) for rank in re.findall(r"rank (\d): no labels", done.stdout)}
    return sorted(reports, key=lambda r: r["rank"]), skipped


def check(seed: int = 0) -> str:
    if os.environ.get(CHILD):  # inside one of the two launched processes
        return "RANK " + json.dumps(run_rank(seed))

    # one process: the guard "works" (the empty batch logs loss 0, training goes on)
    alone = sft_trainer(SkipEmptyTrainer, seed, rows() + rows()[:1], steps=3)
    alone.train()
    losses = [row["loss"] for row in alone.state.log_history if "loss" in row]
    assert len(losses) == 3 and 0.0 in losses, f"claim: one process is fine: {losses}"

    (rank0, rank1), skipped = launch(seed)
    assert len(skipped) == 1, f"claim: one rank drew the row with no labels: {skipped}"
    for name in ("fix", "guard_kept"):
        run0, run1 = rank0[name], rank1[name]
        assert run0["ok"] and run1["ok"], f"claim: {name} finishes: {run0} {run1}"
        # DDP averaged the gradients of both ranks: the weights are still equal
        assert run0["weights"] == run1["weights"], f"claim: {name} in step: {run0}"
    sym0, sym1 = rank0["symptom"], rank1["symptom"]
    assert not sym0["ok"] and not sym1["ok"], f"claim: both ranks die: {sym0} {sym1}"
    message = f"Timed out waiting {TIMEOUT}000ms"
    timed_out = [s for s in (sym0, sym1) if message in s["error"]]
    assert timed_out, f"claim: the collective timeout ends it: {sym0} {sym1}"
    waited = max(s["seconds"] for s in timed_out)
    assert waited >= TIMEOUT * 0.9, f"claim: it hangs for the whole timeout: {waited}"
    (empty,) = skipped
    behind, ahead = (sym1, sym0) if empty == 0 else (sym0, sym1)
    assert "backward" in behind["stack"], (
        f"claim: the rank with labels waits in backward (DDP's all-reduce): {behind}"
    )
    assert "backward" not in ahead["stack"], f"claim: the other has left it: {ahead}"
    assert "all_gather" in ahead["stack"], f"claim: ... and waits in a gather: {ahead}"
    error = timed_out[0]["error"].split("] ")[-1]
    return (
        f"one process: losses {[round(x, 3) for x in losses]}, finishes; "
        f"two processes: the fix and the kept guard finish in step, "
        f"the new zero (rank {empty}) hangs {waited:.1f} s, then '{error}'"
    )


SEEDS = (0,)  # one seed: which collectives each rank runs, not a statistic

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
