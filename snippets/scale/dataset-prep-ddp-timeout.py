"""Multi-GPU SFT/DPO dies after exactly 30 minutes while preparing the dataset: rank 0
tokenizes first, the other ranks wait at a barrier that times out after ddp_timeout.

Page: docs/scale/dataset-prep-ddp-timeout.md
中文: docs/scale/dataset-prep-ddp-timeout.zh.md
"""

# --8<-- [start:fix]
import torch
from trl import SFTConfig

sft_config = SFTConfig(
    # seconds; longer than rank 0 takes to tokenize the dataset while the others wait
    ddp_timeout=6 * 3600,
    logging_steps=1,
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import traceback
from datetime import timedelta

import torch
import torch.distributed as dist
from datasets import Dataset
from transformers import AutoModelForCausalLM, TrainingArguments, set_seed
from trl import SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
CHILD = "DATASET_PREP_TIMEOUT_PAGE"  # set by check() for the processes it starts
ROWS = 8
SECONDS_PER_ROW = 0.4  # rank 0's preparation takes ROWS x this: 3.2 s here
SHORT = 2  # seconds: the symptom's timeout, shorter than preparing


calls = []  # (rank, when) of every call of slow_format in this process


def slow_format(example):
    """A formatting function that takes a while: it stands for a big dataset."""
    calls.append((dist.get_rank(), time.time()))
    time.sleep(SECONDS_PER_ROW)
    return f"Question: {example['q']} Answer: {example['a']}"


def group_timeout():
    """The timeout, in seconds, of the process group's CPU backend (torch internals)."""
    backend = dist.distributed_c10d._get_default_group()._get_backend(
        torch.device("cpu")
    )
    return backend.options._timeout.total_seconds()


def run_rank(seed, timeout):
    """One of two CPU processes: build SFTTrainer (it prepares the dataset), train."""
    # building sft_config under torchrun started the process group with its
    # ddp_timeout (TrainingArguments._setup_devices); a later config cannot change it
    if not dist.is_initialized():
        dist.init_process_group("gloo", timeout=timedelta(seconds=timeout))
    report = {"rank": dist.get_rank(), "group_timeout": group_timeout()}
    later = dataclasses.replace(sft_config, ddp_timeout=60)  # a config built later
    report["later_device"] = str(later.device)  # sets up its device and group
    report["after_later_config"] = group_timeout()
    if timeout != sft_config.ddp_timeout:  # the symptom: a timeout shorter than
        # preparing, standing for the default 1800 s (a torch helper)
        dist.distributed_c10d._set_pg_timeout(timedelta(seconds=timeout))
    set_seed(seed)
    model = AutoModelForCausalLM.from_pretrained(MODEL)  # loaded before the sync
    dist.barrier()  # both ranks start preparing together
    args = dataclasses.replace(
        sft_config,
        output_dir=tempfile.mkdtemp(),
        use_cpu=True,  # two CPU processes; on GPUs leave it out
        per_device_train_batch_size=2,
        max_length=32,
        max_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
    )
    rows = [{"q": f"{i} + {i}?", "a": str(2 * i)} for i in range(ROWS)]
    started = time.time()
    try:
        trainer = SFTTrainer(
            model,
            args=args,
            train_dataset=Dataset.from_list(rows),
            formatting_func=slow_format,
        )
        trainer.train()
        report["trained_steps"] = trainer.state.global_step
    except RuntimeError as error:  # the timeout surfaces as a RuntimeError
        report["error"] = str(error).splitlines()[0][:300]
        report["stack"] = [
            frame.name for frame in traceback.extract_tb(error.__traceback__)
        ]
    report["seconds"] = time.time() - started
    report["calls"] = [when for _, when in calls]
    return report  # after a timeout the group is broken: no teardown collective


def launch(seed, timeout):
    """`torchrun --standalone --nproc_per_node 2 <this file>`: the two reports."""
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone"]
    command += ["--nproc_per_node", "2", __file__]
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, CHILD: f"{seed} {timeout}", "PYTHONUNBUFFERED": "1"}
        run = dict(env=env, cwd=folder, capture_output=True, text=True, timeout=600)
        done = subprocess.run(command, **run)
    decoder = json.JSONDecoder()
    found = re.finditer(r"RANK (?=\{)", done.stdout)
    reports = [decoder.raw_decode(done.stdout, m.end())[0] for m in found]
    if len(reports) != 2:  # only missing reports fail: a timeout breaks the group
        output = f"{done.stdout[-1500:]}\n{done.stderr[-3000:]}"
        raise RuntimeError(f"torchrun failed ({done.returncode}):\n{output}")
    return sorted(reports, key=lambda r: r["rank"])


def check(seed: int = 0) -> str:
    if os.environ.get(CHILD):  # inside one of the two launched processes
        child_seed, timeout = map(int, os.environ[CHILD].split())
        return "RANK " + json.dumps(run_rank(child_seed, timeout))

    default = TrainingArguments(output_dir=tempfile.mkdtemp()).ddp_timeout
    assert default == 1800, f"claim: ddp_timeout defaults to 30 minutes: {default}"
    prepare = ROWS * SECONDS_PER_ROW
    assert SHORT < prepare < sft_config.ddp_timeout, "the test's set-up: both sides"

    rank0, rank1 = launch(seed, SHORT)  # the symptom: preparing outlasts the timeout
    assert "error" in rank1, f"claim: the waiting rank dies: {rank1}"
    assert f"Timed out waiting {SHORT}000ms" in rank1["error"], f"claim: {rank1}"
    assert "_prepare_dataset" in rank1["stack"], f"claim: in SFTTrainer's {rank1}"
    assert "wait_for_everyone" in rank1["stack"], f"claim: at the barrier: {rank1}"
    assert not rank1["calls"], "claim: rank 1 never started preparing: it waited"
    assert rank0["calls"], "claim: rank 0 was preparing the dataset meanwhile"
    assert "trained_steps" not in rank0, f"claim: the run dies on rank 0 too: {rank0}"
    symptom = rank1["error"].split("] ")[-1]

    rank0, rank1 = launch(seed, sft_config.ddp_timeout)  # the Fix's ddp_timeout
    timeouts = (rank0["group_timeout"], rank1["group_timeout"])
    assert timeouts == (6 * 3600,) * 2, (
        f"claim: ddp_timeout sets the group's timeout: {timeouts}"
    )
    later = rank0["after_later_config"]
    assert later == 6 * 3600, f"claim: a later config does not change it: {later}"
    steps = (rank0.get("trained_steps"), rank1.get("trained_steps"))
    assert steps == (1, 1), f"claim: with the longer timeout both train: {rank0}"
    assert len(rank0["calls"]) == len(rank1["calls"]) == ROWS, "claim: every row"
    assert min(rank1["calls"]) > max(rank0["calls"]), "claim: rank 0 went first"
    waited = min(rank1["calls"]) - min(rank0["calls"])
    assert waited > SHORT, "claim: rank 1 waited longer than the short timeout"
    return (
        f"timeout {SHORT} s: rank 1 dies at the barrier ('{symptom}') while rank 0 "
        f"prepares; ddp_timeout={sft_config.ddp_timeout}: rank 1 waits {waited:.1f} s, "
        "both train"
    )


SEEDS = (0,)  # one seed: a timeout against a preparation time, not a statistic

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
