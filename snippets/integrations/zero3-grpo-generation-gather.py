"""GRPO under ZeRO-3: generating from sharded weights gathers each layer per token.

Page: docs/integrations/zero3-grpo-generation-gather.md
(中文: docs/integrations/zero3-grpo-generation-gather.zh.md)
"""

# --8<-- [start:fix]
import torch
from trl import GRPOConfig

# The policy fits one GPU once gathered (bf16: 2 bytes per parameter): keep the default.
grpo_config = GRPOConfig(
    ds3_gather_for_generation=True,  # default: gather the whole model once per rollout
    max_completion_length=512,
    bf16=torch.cuda.is_available(),
)

# It does not fit one GPU: let vLLM generate, split over GPUs by its own tensor
# parallelism, instead of setting ds3_gather_for_generation=False.
large_policy_config = GRPOConfig(
    use_vllm=True,
    vllm_mode="colocate",  # or "server", on GPUs of its own
    vllm_tensor_parallel_size=2,  # must divide the number of training processes
    max_completion_length=512,
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import inspect
import json
import os
import re
import subprocess
import sys
import tempfile

import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import FSDPModule, fully_shard
from transformers import AutoModelForCausalLM, set_seed
from trl import GRPOTrainer
from trl.models.utils import _unwrap_model_for_generation

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
CHILD = "ZERO3_GENERATION_PAGE_SEED"  # set by check() for the two processes it starts
GATHER = "ZERO3_GENERATION_PAGE_GATHER"  # set by check_multiprocess for its launches
NEW_TOKENS = 8


def count_all_gathers():
    """Count the all-gathers FSDP2 issues (it calls torch.distributed's function)."""
    calls = {"all_gathers": 0}
    original = dist.all_gather_single

    def counted(*args, **kwargs):
        calls["all_gathers"] += 1
        return original(*args, **kwargs)

    dist.all_gather_single = counted
    return calls


def run_rank(seed):
    """One of two CPU processes: generate with the model sharded, then gathered once."""
    if not dist.is_initialized():  # building a GRPOConfig under torchrun already did
        dist.init_process_group("gloo")
    calls = count_all_gathers()
    set_seed(seed)
    model = AutoModelForCausalLM.from_pretrained(MODEL)
    mesh = init_device_mesh("cpu", (dist.get_world_size(),))
    for layer in model.model.layers:  # one shard unit per decoder layer, as ZeRO-3
        fully_shard(layer, mesh=mesh)  # and TRL's fsdp2.yaml (reshard_after_forward)
    fully_shard(model, mesh=mesh)
    prompt = torch.tensor([[1, 2, 3, 4]])
    mask = torch.ones_like(prompt)
    new = NEW_TOKENS
    settings = dict(max_new_tokens=new, min_new_tokens=new, do_sample=False)
    report = {"rank": dist.get_rank(), "layers": len(model.model.layers)}
    for name, keep_gathered in (("sharded", False), ("gathered_once", True)):
        # reshard_after_forward=False keeps each layer gathered between tokens
        model.set_reshard_after_forward(not keep_gathered)
        calls["all_gathers"] = 0
        with torch.no_grad():
            out = model.generate(prompt, attention_mask=mask, **settings)
        tokens = out[0, prompt.shape[1] :].tolist()
        report[name] = {"all_gathers": calls["all_gathers"], "tokens": tokens}
        for module in model.modules():
            if isinstance(module, FSDPModule):
                module.reshard()
    dist.barrier()  # both ranks are done with every collective before teardown
    dist.destroy_process_group()
    return report


def launch(seed):
    """`torchrun --standalone --nproc_per_node 2 <this file>`: the two reports."""
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone"]
    command += ["--nproc_per_node", "2", __file__]
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, CHILD: str(seed), "PYTHONUNBUFFERED": "1"}
        run = dict(env=env, cwd=folder, capture_output=True, text=True, timeout=900)
        done = subprocess.run(command, **run)
    decoder = json.JSONDecoder()
    found = re.finditer(r"RANK (?=\{)", done.stdout)
    reports = [decoder.raw_decode(done.stdout, m.end())[0] for m in found]
    # a process that printed its report and then aborted at exit (gloo's threads
    # on a loaded CPU) has still made its observation: only missing reports fail
    if len(reports) != 2:
        output = f"{done.stdout[-1500:]}\n{done.stderr[-3000:]}"
        raise RuntimeError(f"torchrun failed ({done.returncode}):\n{output}")
    return sorted(reports, key=lambda r: r["rank"])


def vllm_branch(source):
    """The `if self.use_vllm:` branch of GRPOTrainer's generation code."""
    start = source.index("if self.use_vllm:")
    return source[start : source.index("\n        elif ", start)]


def check(seed: int = 0) -> str:
    if os.environ.get(CHILD):  # inside one of the two launched processes
        return "RANK " + json.dumps(run_rank(seed))
    if os.environ.get(GATHER):  # inside check_multiprocess's accelerate launch
        return trainer_step(seed, os.environ[GATHER] == "1")

    assert GRPOConfig(bf16=False).ds3_gather_for_generation, "claim: default True"
    # use_vllm=True with the flag off is accepted silently: nothing validates it ...
    GRPOConfig(use_vllm=True, ds3_gather_for_generation=False, bf16=False)
    # ... and the vLLM path never reads it; only generate() with transformers does.
    generation = inspect.getsource(GRPOTrainer._generate_single_turn)
    passed = "gather_deepspeed3_params=self.args.ds3_gather_for_generation"
    assert "ds3_gather_for_generation" not in vllm_branch(generation), "claim: vLLM"
    assert passed in generation, "claim: generate() with transformers reads it"
    unwrap = inspect.getsource(_unwrap_model_for_generation)
    assert "GatheredParameters(model.parameters())" in unwrap, "claim: gather all once"

    rank0, rank1 = launch(seed)
    layers = rank0["layers"]
    sharded, once = rank0["sharded"], rank0["gathered_once"]
    assert sharded["all_gathers"] >= layers * NEW_TOKENS, (
        f"claim: sharded, every layer is gathered again for every token: {sharded}"
    )
    assert once["all_gathers"] <= layers + 1, f"claim: gathered once per call: {once}"
    assert sharded["tokens"] == once["tokens"], "claim: the same completion either way"
    assert rank1["sharded"] == sharded, "claim: both ranks take part in every gather"
    return (
        f"{layers} layers, {NEW_TOKENS} new tokens on 2 processes: sharded generate "
        f"{sharded['all_gathers']} all-gathers, gathered once {once['all_gathers']}; "
        "same tokens; TRL: default True, not read on the vLLM path"
    )


def check_multiprocess(seed: int = 0) -> str:
    """On 2 GPUs: GRPOTrainer under ZeRO-3, one step with each setting, timed."""
    seconds = {}
    for gather in ("1", "0"):
        command = [sys.executable, "-m", "accelerate.commands.launch"]
        command += ["--use_deepspeed", "--zero_stage", "3", "--num_processes", "2"]
        command += ["--mixed_precision", "bf16", "--main_process_port", "0", __file__]
        env = {**os.environ, GATHER: gather}
        done = subprocess.run(command, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"accelerate launch failed:\n{done.stderr[-3000:]}")
        seconds[gather] = float(re.findall(r"STEP_SECONDS (\S+)", done.stdout)[0])
    assert seconds["0"] > seconds["1"], f"claim: not gathering is slower: {seconds}"
    return f"ZeRO-3 GRPO step: gathered {seconds['1']:.1f} s, not {seconds['0']:.1f} s"


def trainer_step(seed, gather):
    """One launched process of check_multiprocess: one GRPO step, timed."""
    import time

    from datasets import Dataset
    from transformers import TrainerCallback

    class Timer(TrainerCallback):
        def on_step_begin(self, args, state, control, **kwargs):
            self.started = time.monotonic()

        def on_step_end(self, args, state, control, **kwargs):
            self.seconds = time.monotonic() - self.started

    set_seed(seed)
    args = GRPOConfig(
        output_dir=tempfile.mkdtemp(),
        ds3_gather_for_generation=gather,
        per_device_train_batch_size=2,
        num_generations=2,
        max_completion_length=64,
        max_steps=1,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
        bf16=True,
    )
    prompts = Dataset.from_list([{"prompt": "Count to twenty:"}] * 8)
    timer = Timer()
    trainer = GRPOTrainer(
        MODEL,
        lambda completions, **kw: [float(len(c)) for c in completions],
        args=args,
        train_dataset=prompts,
        callbacks=[timer],
    )
    trainer.train()
    if trainer.accelerator.is_main_process:
        print(f"STEP_SECONDS {timer.seconds}")
    return "stepped"


SEEDS = (0,)  # one seed: counts of collectives, and each run starts two processes

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
