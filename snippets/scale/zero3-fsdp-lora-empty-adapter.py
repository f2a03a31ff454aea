"""A LoRA adapter saved from a sharded (FSDP / ZeRO-3) run holds each rank's shard,
not the adapter: gather first.

Page: docs/scale/zero3-fsdp-lora-empty-adapter.md
中文: docs/scale/zero3-fsdp-lora-empty-adapter.zh.md
"""

# --8<-- [start:fix]
import torch.distributed as dist
from torch.distributed.checkpoint.state_dict import (
    StateDictOptions,
    get_model_state_dict,
)


def save_full_adapter(peft_model, sharded_model, output_dir):
    """Gather every rank's LoRA shards into full tensors, then save one
    adapter. Call it on EVERY rank."""
    # the trainable (LoRA) part only
    options = StateDictOptions(full_state_dict=True, ignore_frozen_params=True)
    # a collective: all ranks must take part
    full = get_model_state_dict(sharded_model, options=options)
    if dist.get_rank() == 0:
        peft_model.save_pretrained(output_dir, state_dict=full)


# --8<-- [end:fix]


# --8<-- [start:evidence]
import importlib.resources
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import warnings

import peft
import torch
import transformers
import yaml
from packaging.version import Version
from peft import LoraConfig, PeftModel, get_peft_model
from safetensors.torch import load_file
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import FullyShardedDataParallel, fully_shard
from transformers import AutoModelForCausalLM, set_seed

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
# set by check() for the two processes it launches: where they save
CHILD = "ADAPTER_PAGE_DIR"
LORA = dict(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"])


def saved_shapes(folder):
    """Shape of every LoRA tensor in the adapter file that save_pretrained wrote."""
    tensors = load_file(os.path.join(folder, "adapter_model.safetensors"))
    return {name: list(t.shape) for name, t in tensors.items() if ".lora_" in name}


def load_error(folder):
    """What loading the adapter onto a fresh base model says: None if it loads."""
    try:
        PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(MODEL), folder)
    except Exception as e:  # noqa: BLE001 - the error text is the observation
        return f"{type(e).__name__}: {str(e)[:300]}"
    return None


def shard_and_train(version, seed, rank):
    """A LoRA model sharded over the two CPU processes (FSDP1 or
    FSDP2), after one optimizer step."""
    set_seed(seed)
    peft_model = get_peft_model(
        AutoModelForCausalLM.from_pretrained(MODEL), LoraConfig(**LORA)
    )
    # FSDP1, one flat unit over the whole model,
    # use_orig_params=True (accelerate's default)
    if version == 1:
        sharded = FullyShardedDataParallel(
            peft_model, use_orig_params=True, device_id=torch.device("cpu")
        )
    # what accelerate builds for fsdp_version 2 (fully_shard
    # per decoder layer, then the root)
    else:
        mesh = init_device_mesh("cpu", (dist.get_world_size(),))
        for layer in peft_model.base_model.model.model.layers:
            fully_shard(layer, mesh=mesh)
        sharded = fully_shard(peft_model, mesh=mesh)
    optimizer = torch.optim.SGD(
        [p for p in sharded.parameters() if p.requires_grad], lr=0.5
    )
    ids = torch.randint(
        0, 100, (2, 12), generator=torch.Generator().manual_seed(seed + rank)
    )
    sharded(input_ids=ids, labels=ids).loss.backward()
    optimizer.step()
    return peft_model, sharded


def run_rank(seed, folder):
    """One launched process: train, save naively and with save_full_adapter;
    rank 0 then loads what was saved."""
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    report = {"rank": rank}
    for version in (1, 2):
        peft_model, sharded = shard_and_train(version, seed, rank)
        naive = os.path.join(folder, f"fsdp{version}-naive-rank{rank}")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                # what a script does after trainer.train(): the symptom
                peft_model.save_pretrained(naive)
                report[f"fsdp{version}_naive"] = saved_shapes(naive)
            except Exception as e:  # noqa: BLE001 - the error text is the observation
                report[f"fsdp{version}_naive"] = f"{type(e).__name__}: {str(e)[:200]}"
        report[f"fsdp{version}_peft_warned"] = any(
            "were not gathered" in str(w.message) for w in caught
        )
        full = os.path.join(folder, f"fsdp{version}-full")
        save_full_adapter(peft_model, sharded, full)
        dist.barrier()  # every rank has saved before rank 0 reads
        if rank == 0:
            report[f"fsdp{version}_full"] = saved_shapes(full)
            tensors = load_file(os.path.join(full, "adapter_model.safetensors"))
            report[f"fsdp{version}_full_trained"] = all(
                t.abs().sum() > 0 for n, t in tensors.items() if "lora_B" in n
            )
            report[f"fsdp{version}_full_load"] = load_error(full)
            if version == 1:
                report["fsdp1_naive_rank1_load"] = load_error(
                    os.path.join(folder, "fsdp1-naive-rank1")
                )
        dist.barrier()
    dist.destroy_process_group()
    return report


def launch(seed, folder):
    """`torchrun --standalone --nproc_per_node 2 <this file>`: two CPU processes;
    their reports and the wall time."""
    command = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        "--nproc_per_node",
        "2",
        __file__,
    ]
    started = time.perf_counter()
    done = subprocess.run(
        command,
        env={**os.environ, CHILD: folder},
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=600,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(
            f"torchrun failed ({done.returncode}):\n{done.stderr[-3000:]}"
        )
    # both ranks print to one pipe: read each "RANK {...}" report wherever
    # it starts, whatever follows it
    decoder = json.JSONDecoder()
    reports = [
        decoder.raw_decode(done.stdout, m.end())[0]
        for m in re.finditer(r"RANK (?=\{)", done.stdout)
    ]
    return sorted(reports, key=lambda r: r["rank"]), seconds


def expected_shapes():
    """The shapes a complete adapter has, read from the unsharded model."""
    model = get_peft_model(
        AutoModelForCausalLM.from_pretrained(MODEL), LoraConfig(**LORA)
    )
    return {
        n.replace(".default", ""): list(p.shape)
        for n, p in model.named_parameters()
        if ".lora_" in n
    }


def check(seed: int = 0) -> str:
    if os.environ.get(TRAINER_CHILD):  # inside check_multiprocess's accelerate launch
        return trainer_rank(seed, os.environ[CHILD], os.environ[TRAINER_CHILD])
    if os.environ.get(CHILD):  # inside check()'s torchrun
        return "RANK " + json.dumps(run_rank(seed, os.environ[CHILD]))

    versions = {"transformers": transformers.__version__, "peft": peft.__version__}
    # the versions the common advice says fix ZeRO-3 + LoRA
    floors = {"transformers": "4.45", "peft": "0.10"}
    assert all(Version(versions[k]) >= Version(floors[k]) for k in floors), (
        f"claim: run above the floors {versions}"
    )

    trl_configs = importlib.resources.files("trl") / "accelerate_configs"
    for name in ("fsdp1.yaml", "fsdp2.yaml"):
        state_dict_type = yaml.safe_load((trl_configs / name).read_text())[
            "fsdp_config"
        ]["fsdp_state_dict_type"]
        assert state_dict_type == "FULL_STATE_DICT", (
            f"claim: TRL's {name} gathers the full state dict on save"
        )
    zero3 = yaml.safe_load((trl_configs / "zero3.yaml").read_text())["deepspeed_config"]
    assert zero3["zero3_save_16bit_model"] is True, (
        "claim: TRL's zero3.yaml gathers the weights on save"
    )

    expected = expected_shapes()
    with tempfile.TemporaryDirectory() as folder:
        (rank0, rank1), seconds = launch(seed, folder)

    naive = [rank0["fsdp1_naive"], rank1["fsdp1_naive"]]
    assert all(set(n) == set(expected) for n in naive), (
        "claim: each rank's naive save lists every LoRA tensor"
    )
    assert all(len(shape) == 1 for n in naive for shape in n.values()), (
        "claim: naive FSDP1 tensors are flat shards"
    )
    assert any(shape == [0] for n in naive for shape in n.values()), (
        "claim: some saved tensors are torch.Size([0])"
    )
    for name, shape in expected.items():
        pieces = naive[0][name][0] + naive[1][name][0]
        assert pieces == shape[0] * shape[1], (
            f"claim: {name}: the ranks' pieces add up to one tensor, got {pieces}"
        )
    error = rank0["fsdp1_naive_rank1_load"] or ""
    assert "size mismatch" in error and "torch.Size([0])" in error, (
        f"claim: loading it fails, got {error!r}"
    )
    assert rank0["fsdp2_naive"] != expected, (
        "claim: a naive save under FSDP2 is not the adapter either"
    )

    for version in (1, 2):
        assert rank0[f"fsdp{version}_full"] == expected, (
            f"claim: FSDP{version}: gathered save has full shapes"
        )
        assert rank0[f"fsdp{version}_full_load"] is None, (
            f"claim: FSDP{version}: the gathered adapter loads"
        )
        assert rank0[f"fsdp{version}_full_trained"], (
            f"claim: FSDP{version}: it holds the trained lora_B"
        )
    zero_sized = sum(shape == [0] for n in naive for shape in n.values())
    return (
        f"transformers {versions['transformers']}, peft {versions['peft']}; torchrun, "
        f"2 CPU processes ({seconds:.0f} s). FSDP1 naive save: flat shards, "
        f"{zero_sized} of {2 * len(expected)} tensors torch.Size([0]), loading fails "
        f"with size mismatch (PEFT warned: {rank0['fsdp1_peft_warned']}); FSDP2 naive "
        f"save: {str(rank0['fsdp2_naive'])[:70]}; gathered: full shapes, loads, "
        "lora_B trained"
    )


# set by check_multiprocess for its accelerate launch
TRAINER_CHILD = "ADAPTER_PAGE_STATE_DICT_TYPE"


def trainer_rank(seed, folder, state_dict_type):
    """TRL's SFTTrainer with LoRA under accelerate's FSDP2; trainer.save_model()
    into <folder>/<state_dict_type>."""
    from datasets import Dataset
    from trl import SFTConfig, SFTTrainer

    set_seed(seed)
    args = SFTConfig(
        output_dir=folder,
        per_device_train_batch_size=2,
        max_steps=2,
        max_length=32,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
        bf16=True,
    )
    rows = Dataset.from_list([{"text": f"Fact {i}: water is wet."} for i in range(8)])
    trainer = SFTTrainer(
        model=MODEL, args=args, train_dataset=rows, peft_config=LoraConfig(**LORA)
    )
    trainer.train()
    trainer.save_model(os.path.join(folder, state_dict_type))  # every rank calls it
    return f"rank {trainer.accelerator.process_index} saved"


def check_multiprocess(seed: int = 0) -> str:
    """On 2 GPUs: accelerate FSDP2 + SFTTrainer + LoRA, trainer.save_model()
    with each fsdp_state_dict_type."""
    expected = expected_shapes()
    found = {}
    for state_dict_type in ("SHARDED_STATE_DICT", "FULL_STATE_DICT"):
        command = [
            sys.executable,
            "-m",
            "accelerate.commands.launch",
            "--use_fsdp",
            "--fsdp_version",
            "2",
        ]
        command += [
            "--fsdp_state_dict_type",
            state_dict_type,
            "--fsdp_auto_wrap_policy",
            "TRANSFORMER_BASED_WRAP",
        ]
        command += [
            "--num_processes",
            "2",
            "--num_machines",
            "1",
            "--mixed_precision",
            "bf16",
        ]
        command += ["--dynamo_backend", "no", "--main_process_port", "0", __file__]
        with tempfile.TemporaryDirectory() as folder:
            env = {**os.environ, CHILD: folder, TRAINER_CHILD: state_dict_type}
            done = subprocess.run(
                command,
                env=env,
                cwd=folder,
                capture_output=True,
                text=True,
                timeout=1200,
            )
            if done.returncode != 0:
                raise RuntimeError(f"accelerate launch failed:\n{done.stderr[-3000:]}")
            adapter = os.path.join(folder, state_dict_type)
            exists = os.path.exists(os.path.join(adapter, "adapter_model.safetensors"))
            found[state_dict_type] = saved_shapes(adapter) if exists else None
    assert found["SHARDED_STATE_DICT"] is None, (
        "claim: with SHARDED_STATE_DICT, save_model writes no adapter file"
    )
    assert found["FULL_STATE_DICT"] == expected, (
        "claim: with FULL_STATE_DICT, save_model writes the full adapter"
    )
    return (
        "FSDP2 + SFTTrainer: save_model wrote no adapter with SHARDED_STATE_DICT, "
        "the full one with FULL_STATE_DICT"
    )


SEEDS = (0,)  # one seed: it reproduces a save path, and each run launches two processes

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
