"""Multi-process training hangs, then dies with a collective timeout: one rank
runs a collective (evaluate, a gather, a ZeRO-3/FSDP save) that the others skip.

Page: docs/scale/rank-zero-only-collective-hang.md
中文: docs/scale/rank-zero-only-collective-hang.zh.md
"""

# --8<-- [start:fix]
from transformers import Trainer


def evaluate_and_save(trainer: Trainer, output_dir: str) -> dict:
    """After trainer.train(): call it on EVERY process, never under a rank check."""
    metrics = trainer.evaluate()  # gathers the eval losses of every rank
    trainer.save_model(output_dir)  # ZeRO-3/FSDP: gathers shards; rank 0 writes
    if trainer.is_world_process_zero():  # rank 0 alone: what needs no other rank
        print(metrics)
    return metrics


# --8<-- [end:fix]


# --8<-- [start:evidence]
import faulthandler
import inspect
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from datetime import timedelta

import torch.distributed as dist
from datasets import Dataset
from transformers import TrainingArguments, set_seed
from trl import SFTConfig, SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
CHILD = "RANK_ZERO_HANG_PAGE_SEED"  # set by check() for the two processes it starts
TIMEOUT = 10  # seconds: the collective timeout of the demonstration (default 1800)
DUMP_AFTER = 5  # seconds into the hang: each rank writes its Python stack


def evaluate_and_save_on_rank_zero(trainer, output_dir):
    """The symptom: the same work, behind a rank check."""
    if trainer.is_world_process_zero():
        metrics = trainer.evaluate()  # rank 0 waits here for rank 1's losses
        trainer.save_model(output_dir)
        print(metrics)


def sft_trainer(seed):
    set_seed(seed)
    rows = [{"text": f"The word is {w}."} for w in ["hi", "yes", "no", "ok"]]
    args = SFTConfig(
        output_dir=tempfile.mkdtemp(),
        use_cpu=True,  # two CPU processes; on GPUs leave it out
        per_device_train_batch_size=2,
        per_device_eval_batch_size=2,
        max_length=32,
        max_steps=2,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
        bf16=False,
    )
    data = Dataset.from_list(rows)
    return SFTTrainer(MODEL, args=args, train_dataset=data, eval_dataset=data)


def attempt(work, trainer, stack_file=None):
    """Run `work`, then the next collective every rank reaches; time it."""
    if stack_file:  # what `py-spy dump` shows from outside, written from inside
        faulthandler.dump_traceback_later(DUMP_AFTER, file=stack_file)
    started = time.monotonic()
    try:
        with tempfile.TemporaryDirectory() as folder:
            metrics = work(trainer, folder)
        trainer.accelerator.wait_for_everyone()  # e.g. the next step, or the exit
        outcome = {"ok": True, "eval_loss": metrics and metrics["eval_loss"]}
    except RuntimeError as error:  # the timeout surfaces as a RuntimeError
        outcome = {"ok": False, "error": str(error).splitlines()[0][:300]}
    outcome["seconds"] = time.monotonic() - started
    faulthandler.cancel_dump_traceback_later()
    return outcome


def run_rank(seed):
    """One of two CPU processes: train, then evaluate and save both ways."""
    # set-up: a generous timeout (transformers passes ddp_timeout here on GPUs;
    # with use_cpu=True it passes none, so the page starts the group itself)
    dist.init_process_group("gloo", timeout=timedelta(seconds=120))
    trainer = sft_trainer(seed)
    trainer.train()
    rank = dist.get_rank()
    dist.barrier()  # both ranks start the two runs together ...
    # ... under a short timeout, for the demonstration only
    dist.distributed_c10d._set_pg_timeout(timedelta(seconds=TIMEOUT))
    report = {"rank": rank, "fix": attempt(evaluate_and_save, trainer)}
    dist.barrier()
    with tempfile.TemporaryFile("w+") as stack_file:
        symptom = attempt(evaluate_and_save_on_rank_zero, trainer, stack_file)
        stack_file.seek(0)
        symptom["stack"] = re.findall(r"line \d+ in (\w+)", stack_file.read())
    report["symptom"] = symptom
    return report  # the group is broken now: no teardown collective


def launch(seed):
    """`torchrun --standalone --nproc_per_node 2 <this file>`: the two reports."""
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
    return sorted(reports, key=lambda r: r["rank"])


def check(seed: int = 0) -> str:
    if os.environ.get(CHILD):  # inside one of the two launched processes
        return "RANK " + json.dumps(run_rank(seed))

    default = SFTConfig(output_dir=tempfile.mkdtemp(), bf16=False).ddp_timeout
    assert default == 1800, f"claim: ddp_timeout defaults to 30 minutes: {default}"
    setup = inspect.getsource(TrainingArguments.__dict__["_setup_devices"].func)
    assert "timedelta(seconds=self.ddp_timeout)" in setup, "claim: the group's timeout"
    save = inspect.getsource(Trainer.save_model)
    assert "get_state_dict" in save, "claim: save_model gathers under ZeRO-3 / FSDP"

    rank0, rank1 = launch(seed)
    fix0, fix1 = rank0["fix"], rank1["fix"]
    assert fix0["ok"] and fix1["ok"], f"claim: every rank evaluating finishes: {fix0}"
    assert fix0["eval_loss"] == fix1["eval_loss"], "claim: one gathered eval_loss"
    assert max(fix0["seconds"], fix1["seconds"]) < TIMEOUT, "claim: no waiting"
    sym0, sym1 = rank0["symptom"], rank1["symptom"]
    assert not sym0["ok"] and not sym1["ok"], f"claim: both ranks die: {sym0} {sym1}"
    message = f"Timed out waiting {TIMEOUT}000ms"
    timed_out = [s for s in (sym0, sym1) if message in s["error"]]
    assert timed_out, f"claim: the collective timeout ends it: {sym0} {sym1}"
    waited = max(s["seconds"] for s in timed_out)
    error = timed_out[0]["error"].split("] ")[-1]
    assert waited >= TIMEOUT * 0.9, f"claim: it hangs for the whole timeout: {waited}"
    assert "evaluate" in sym0["stack"], f"claim: rank 0 waits in evaluate: {sym0}"
    assert "all_gather" in sym0["stack"], f"claim: ... in its all_gather: {sym0}"
    assert "evaluate" not in sym1["stack"], "claim: rank 1 never entered evaluate"
    assert "wait_for_everyone" in sym1["stack"], f"claim: rank 1 waits: {sym1}"
    return (
        f"every rank evaluates: both finish, eval_loss {fix0['eval_loss']:.3f}; "
        f"rank 0 only: hung {waited:.1f} s, then '{error}'; "
        "stacks: rank 0 in evaluate's all_gather, rank 1 in wait_for_everyone"
    )


SEEDS = (0,)  # one seed: which collectives each rank runs, not a statistic

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
