"""How many processes `accelerate launch --num_processes 2` really gives you,
and what that does to the batch.

Page: docs/scale/num-processes-vs-launched.md
中文: docs/scale/num-processes-vs-launched.zh.md
"""

# --8<-- [start:fix]
from accelerate import PartialState


def describe_run(args):
    """Say once, at start-up, how many processes the launcher gave you and
    the batch of one optimizer step."""
    state = PartialState()
    global_batch = (
        args.per_device_train_batch_size
        * args.world_size
        * args.gradient_accumulation_steps
    )
    if state.is_main_process:
        print(
            f"{state.num_processes} process(es), {state.distributed_type}: global "
            f"batch {global_batch} = {args.per_device_train_batch_size} per device x "
            f"{args.world_size} x {args.gradient_accumulation_steps} accumulation"
        )
    return state.num_processes, global_batch


# --8<-- [end:fix]


# --8<-- [start:evidence]
import contextlib
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import torch
from accelerate.commands.launch import launch_command_parser
from datasets import Dataset
from transformers import set_seed
from trl import GRPOConfig, SFTConfig, SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
# set by check() for the processes it launches: they run one seed and report
CHILD = "NUM_PROCESSES_PAGE_SEED"
# Two processes need two GPUs; with fewer, both run on the CPU
# (gloo) and count the same way.
DEVICE = dict(
    use_cpu=torch.cuda.device_count() < 2, bf16=torch.cuda.device_count() >= 2
)


def grpo_error(**fields):
    """The ValueError GRPOConfig raises for these fields in this
    process, or None if it accepts them."""
    try:
        GRPOConfig(
            output_dir=tempfile.gettempdir(), report_to="none", **DEVICE, **fields
        )
    except ValueError as e:
        return str(e)
    return None


def run_rank(seed, output_dir):
    """What one process sees. The launcher runs this same file once per process."""
    set_seed(seed)
    args = SFTConfig(
        output_dir=output_dir,
        per_device_train_batch_size=2,
        gradient_accumulation_steps=2,
        num_train_epochs=1,
        max_length=16,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
        **DEVICE,
    )
    rows = Dataset.from_list(
        [{"text": f"Fact number {i}: the sky is blue."} for i in range(16)]
    )
    trainer = SFTTrainer(model=MODEL, args=args, train_dataset=rows)
    processes, global_batch = describe_run(trainer.args)
    seen = []  # rows this process trains on, one entry per micro-batch
    collate = trainer.data_collator

    def counting_collator(features):
        seen.append(len(features))
        return collate(features)

    trainer.data_collator = counting_collator
    trainer.train()
    return {
        "rank": PartialState().process_index,
        "processes": processes,
        "world_size": trainer.args.world_size,
        "global_batch": global_batch,
        "optimizer_steps": trainer.state.global_step,
        "logged_steps": len(
            [row for row in trainer.state.log_history if "loss" in row]
        ),
        "rows_seen": sum(seen),
        # 4 per device, generation_batch_size 4, num_generations 4: one
        # process accepts it, two need 8
        "grpo_fixed_generation_batch": grpo_error(
            per_device_train_batch_size=4, generation_batch_size=4, num_generations=4
        ),
        # per_device_train_batch_size 2, num_generations 4: the default
        # generation batch is 2 x processes
        "grpo_small_per_device": grpo_error(
            per_device_train_batch_size=2, num_generations=4
        ),
    }


# An accelerate config file that asks for 4 processes, as
# `accelerate config` leaves it behind.
CONFIG_FILE = """compute_environment: LOCAL_MACHINE
distributed_type: MULTI_GPU
num_machines: 1
num_processes: 4
mixed_precision: 'no'
"""


def launch(seed, workdir):
    """`accelerate launch --config_file <4 processes> --num_processes 2 <this file>`:
    reports and wall time."""
    config = os.path.join(workdir, "accelerate_config.yaml")
    with open(config, "w") as f:
        f.write(CONFIG_FILE)
    command = [
        sys.executable,
        "-m",
        "accelerate.commands.launch",
        "--config_file",
        config,
        "--num_processes",
        "2",
    ]
    # port 0: accelerate picks a free one
    command += ["--main_process_port", "0", __file__]
    started = time.perf_counter()
    done = subprocess.run(
        command,
        env={**os.environ, CHILD: str(seed)},
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=600,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(
            f"accelerate launch failed ({done.returncode}):\n{done.stderr[-3000:]}"
        )
    # both ranks print to one pipe: read each "RANK {...}" report wherever
    # it starts, whatever follows it
    decoder = json.JSONDecoder()
    reports = [
        decoder.raw_decode(done.stdout, m.end())[0]
        for m in re.finditer(r"RANK (?=\{)", done.stdout)
    ]
    return sorted(reports, key=lambda r: r["rank"]), seconds


def rejected_flag(flag):
    """The last line `accelerate launch <flag> 2 train.py` prints, run as you
    would type it (None if it starts)."""
    # what the `accelerate` command runs
    cli = [sys.executable, "-m", "accelerate.commands.accelerate_cli"]
    done = subprocess.run(
        [*cli, "launch", flag, "2", "train.py"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.stderr.strip().splitlines()[-1] if done.returncode else None


def accepted_flag(flag):
    """Whether `accelerate launch` parses `<flag> 2 train.py`
    (parsed only, nothing is launched)."""
    errors = io.StringIO()
    try:
        with contextlib.redirect_stderr(errors):
            launch_command_parser().parse_args([flag, "2", "train.py"])
    except SystemExit:
        return False
    return True


def check(seed: int = 0) -> str:
    if os.environ.get(CHILD):  # inside a launched process: report what this rank saw
        if seed != int(os.environ[CHILD]):
            return "not this seed"
        with tempfile.TemporaryDirectory() as tmp:
            report = run_rank(seed, tmp)
        # end the process group before exit: left to interpreter shutdown,
        # gloo's threads can abort the process (SIGABRT)
        torch.distributed.barrier()
        torch.distributed.destroy_process_group()
        return "RANK " + json.dumps(report)

    nproc = rejected_flag("--nproc_per_node")
    assert (
        nproc == "Accelerate CLI tool: error: unrecognized arguments: --nproc_per_node"
    ), f"claim: accelerate launch rejects torchrun's flag, got {nproc!r}"
    assert accepted_flag("--num_processes"), (
        "claim: accelerate's own flag is --num_processes"
    )

    with tempfile.TemporaryDirectory() as tmp:
        alone = run_rank(seed, tmp)  # `python train.py`: no launcher, one process
        ranks, seconds = launch(seed, tmp)
    assert (alone["processes"], alone["world_size"]) == (1, 1), (
        "claim: plain python runs one process"
    )
    assert alone["global_batch"] == 2 * 1 * 2, (
        "claim: global batch = per device x processes x accumulation"
    )
    assert alone["optimizer_steps"] == alone["logged_steps"] == 16 // 4, (
        "claim: one process, 16 rows: 4 steps"
    )

    assert [r["rank"] for r in ranks] == [0, 1], (
        f"claim: the flag (2) beats the config file (4), got {ranks}"
    )
    for r in ranks:
        assert (r["processes"], r["world_size"]) == (2, 2), (
            "claim: every rank sees num_processes = world_size = 2"
        )
        assert r["global_batch"] == 2 * 2 * 2, (
            "claim: the global batch doubles with the second process"
        )
        assert r["optimizer_steps"] == r["logged_steps"] == 16 // 8, (
            "claim: two processes halve the steps per epoch"
        )
    assert sum(r["rows_seen"] for r in ranks) == alone["rows_seen"] == 16, (
        "claim: the ranks split one epoch"
    )

    assert alone["grpo_fixed_generation_batch"] is None, (
        "claim: generation_batch_size 4 is valid on one process"
    )
    launched_error = ranks[0]["grpo_fixed_generation_batch"] or ""
    assert "must be divisible by the global batch size (8)" in launched_error, (
        f"claim: the same GRPOConfig fails on two processes, got {launched_error!r}"
    )
    alone_error = alone["grpo_small_per_device"] or ""
    assert (
        "generation_batch_size (2) must be divisible by num_generations (4)"
        in alone_error
    ), (
        "claim: per_device_train_batch_size 2 with num_generations 4 fails on "
        f"one process, got {alone_error!r}"
    )
    assert ranks[0]["grpo_small_per_device"] is None, (
        "claim: the same config is valid on two processes"
    )
    return (
        "python: 1 process, global batch 4, 4 steps/epoch; config file 4 + "
        f"--num_processes 2 ({seconds:.0f} s): ranks {[r['rank'] for r in ranks]}, "
        "world_size 2, global batch 8, 2 steps/epoch, rows per rank "
        f"{[r['rows_seen'] for r in ranks]}; GRPOConfig(per_device 4, "
        "generation_batch_size 4) fails only when launched, GRPOConfig(per_device 2, "
        "num_generations 4) only without the launcher"
    )


def check_multiprocess(seed: int = 0) -> str:
    """`accelerate launch --cpu --num_processes 2` starts ONE process (the
    flag asks for MPI, see the page)."""
    command = [
        sys.executable,
        "-m",
        "accelerate.commands.launch",
        "--cpu",
        "--num_processes",
        "2",
        __file__,
    ]
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            command,
            env={**os.environ, CHILD: str(seed)},
            cwd=tmp,
            capture_output=True,
            text=True,
            timeout=600,
        )
    reports = [
        json.loads(line.split(" ", 1)[1])
        for line in done.stdout.splitlines()
        if line.startswith("RANK ")
    ]
    assert done.returncode == 0 and len(reports) == 1, (
        f"claim: --cpu --num_processes 2 runs one process: {reports}"
    )
    assert reports[0]["world_size"] == 1, "claim: and that process trains alone"
    return (
        f"accelerate launch --cpu --num_processes 2: {len(reports)} process, "
        f"world_size {reports[0]['world_size']}"
    )


# one seed: these are counts, not training dynamics, and each run launches two processes
SEEDS = (0,)

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
