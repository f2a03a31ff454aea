"""A gather in your own trainer code hangs multi-GPU training (or aborts it on gloo)
when ranks pass tensors of different shapes, e.g. batches padded to different
lengths; ACCELERATE_DEBUG_MODE=1 turns it into an error naming every rank's shape.

Page: docs/scale/gather-uneven-shapes-hang.md
中文: docs/scale/gather-uneven-shapes-hang.zh.md
"""

# --8<-- [start:fix]
from trl import SFTTrainer


class TokenCountingSFTTrainer(SFTTrainer):
    """Counts the real (unpadded) tokens all ranks together train on."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.global_tokens = []  # one entry per micro-batch, the same on every rank

    def compute_loss(self, model, inputs, *args, **kwargs):
        # gather one number per rank, never the (batch, length) mask: each rank
        # pads its batch to its own longest row, so the lengths differ
        local = inputs["attention_mask"].sum()
        self.global_tokens.append(int(self.accelerator.gather(local).sum()))
        return super().compute_loss(model, inputs, *args, **kwargs)


# --8<-- [end:fix]


# --8<-- [start:evidence]
import json
import os
import re
import subprocess
import sys
import tempfile
from datetime import timedelta

import torch.distributed as dist
from accelerate.utils.operations import DistributedOperationException
from datasets import Dataset
from transformers import set_seed
from trl import SFTConfig

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
CHILD = "UNEVEN_GATHER_PAGE_SEED"  # set by check() for the processes it starts
TIMEOUT = 20  # seconds: the collective timeout of the demonstration (default 1800)


class MaskGatheringSFTTrainer(TokenCountingSFTTrainer):
    """The symptom: the same count, from the gathered (batch, length) masks."""

    def compute_loss(self, model, inputs, *args, **kwargs):
        masks = self.accelerator.gather(inputs["attention_mask"])  # shapes differ
        self.global_tokens.append(int(masks.sum()))
        return SFTTrainer.compute_loss(self, model, inputs, *args, **kwargs)


def train(trainer_class, seed):
    set_seed(seed)
    # rows of different lengths: the two ranks' batches are padded differently
    rows = [{"text": "The word is" + " very" * (3 * i) + " good."} for i in range(4)]
    args = SFTConfig(
        output_dir=tempfile.mkdtemp(),
        use_cpu=True,  # two CPU processes; on GPUs leave it out
        per_device_train_batch_size=1,
        max_length=32,
        max_steps=2,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
        bf16=False,
    )
    trainer = trainer_class(MODEL, args=args, train_dataset=Dataset.from_list(rows))
    lengths = []
    trainer.model.register_forward_pre_hook(
        lambda module, args, kwargs: lengths.append(kwargs["input_ids"].shape[1]),
        with_kwargs=True,
    )
    try:
        trainer.train()
        return {"ok": True, "tokens": trainer.global_tokens, "lengths": lengths}
    except DistributedOperationException as error:  # accelerate's shape check
        return {"ok": False, "error": str(error)[:2000], "lengths": lengths}


def run_rank(seed):
    """One of two CPU processes: the Fix (with the checks on), then the symptom."""
    dist.init_process_group("gloo", timeout=timedelta(seconds=TIMEOUT))
    report = {"rank": dist.get_rank()}
    if os.environ["ACCELERATE_DEBUG_MODE"] == "1":
        report["fix"] = train(TokenCountingSFTTrainer, seed)
    report["symptom"] = train(MaskGatheringSFTTrainer, seed)
    return report  # on a mismatch the group is broken: no teardown collective


def launch(seed, debug):
    """`ACCELERATE_DEBUG_MODE=<debug> torchrun --nproc_per_node 2 <this file>`."""
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone"]
    command += ["--nproc_per_node", "2", __file__]
    env = {**os.environ, CHILD: str(seed), "PYTHONUNBUFFERED": "1"}
    env["ACCELERATE_DEBUG_MODE"] = debug  # what `accelerate launch --debug` sets
    with tempfile.TemporaryDirectory() as folder:
        run = dict(env=env, cwd=folder, capture_output=True, text=True, timeout=600)
        done = subprocess.run(command, **run)
    decoder = json.JSONDecoder()
    found = re.finditer(r"RANK (?=\{)", done.stdout)
    reports = [decoder.raw_decode(done.stdout, m.end())[0] for m in found]
    return reports, done.returncode, done.stderr


def check(seed: int = 0) -> str:
    if os.environ.get(CHILD):  # inside one of the two launched processes
        return "RANK " + json.dumps(run_rank(seed))

    # 1. accelerate's checks on: both ranks raise at once, naming both shapes
    reports, code, stderr = launch(seed, "1")
    final = {r["rank"]: r for r in reports if "symptom" in r}
    assert sorted(final) == [0, 1], (
        f"claim: both ranks report ({code}):\n{stderr[-3000:]}"
    )
    fixes = [final[rank]["fix"] for rank in (0, 1)]
    assert all(f["ok"] for f in fixes), f"claim: the Fix trains on both ranks {fixes}"
    assert fixes[0]["tokens"] == fixes[1]["tokens"], f"claim: one global count {fixes}"
    widths = [f["lengths"] for f in fixes]
    assert widths[0] != widths[1], (
        f"claim: the ranks' batches differ in length {widths}"
    )
    for rank in (0, 1):
        symptom = final[rank]["symptom"]
        assert not symptom["ok"], f"claim: rank {rank} stops at the gather {symptom}"
        error = symptom["error"]
        assert "Cannot apply desired operation due to shape mismatches" in error, error
        shapes = re.findall(r"Process (\d): \[(\d+), (\d+)\]", error)
        assert len({s[1:] for s in shapes}) == 2, f"claim: both shapes named: {error}"
    # 2. the default: no check; gloo aborts the rank that receives more bytes than
    # it expects (NCCL checks nothing: the threads report a hang)
    reports, code, stderr = launch(seed, "0")
    survived = {r["rank"] for r in reports if "symptom" in r}
    assert code != 0 and len(survived) < 2, f"claim: the default run dies ({code})"
    abort = "Received data size doesn't match expected size"
    assert abort in stderr, f"claim: gloo's size check ends it:\n{stderr[-3000:]}"
    pair = sorted({s[1:] for s in shapes})
    return (
        f"Fix: both ranks train, global tokens {fixes[0]['tokens']}; gathering the "
        f"masks (shapes {pair}): ACCELERATE_DEBUG_MODE=1 raises 'shape mismatches' "
        f"on both ranks; default: gloo aborts ('{abort}')"
    )


SEEDS = (0,)  # one seed: which shapes each rank gathers, not a statistic

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
