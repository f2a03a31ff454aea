"""FSDP1 flattens each wrapped unit into one tensor of one dtype: fp32 LoRA weights
inside a bf16 unit raise "Must flatten tensors with uniform dtype".

Page: docs/integrations/fsdp-mixed-dtype-flatten.md
中文: docs/integrations/fsdp-mixed-dtype-flatten.zh.md
"""

# --8<-- [start:fix]
import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM


def lora_model_one_dtype(model_id, lora_config):
    """A LoRA model whose adapter weights keep the base model's dtype, so every
    FSDP unit flattens tensors of a single dtype."""
    base = AutoModelForCausalLM.from_pretrained(model_id, dtype=torch.bfloat16)
    peft_model = get_peft_model(base, lora_config, autocast_adapter_dtype=False)
    dtypes = {p.dtype for p in peft_model.parameters()}
    assert len(dtypes) == 1, f"mixed parameter dtypes under FSDP: {dtypes}"
    return peft_model  # pass it as model=..., with no peft_config


lora_config = LoraConfig(
    r=16,
    lora_alpha=32,
    target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "embed_tokens"],
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import functools
import inspect
import json
import os
import re
import subprocess
import sys
import tempfile

import torch.distributed as dist
import trl
from peft.utils.other import fsdp_auto_wrap_policy
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp import fully_shard
from torch.distributed.fsdp.wrap import transformer_auto_wrap_policy
from transformers import set_seed
from transformers.trainer import update_fsdp_plugin_peft

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
CHILD = "FSDP_DTYPE_PAGE_SEED"  # set by check() for the two processes it starts
TRAINER_CHILD = "FSDP_DTYPE_PAGE_TRAINER"  # set by check_multiprocess for its launches
LINEAR_ONLY = ["q_proj", "v_proj"]  # LoRA on linear layers only


def peft_default(targets):
    """What a trainer builds from peft_config: peft upcasts the adapter to fp32."""
    base = AutoModelForCausalLM.from_pretrained(MODEL, dtype=torch.bfloat16)
    return get_peft_model(base, LoraConfig(r=16, target_modules=targets))


def layer_policy(peft_model):
    """fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP, one unit per decoder layer."""
    layer = type(peft_model.base_model.model.model.layers[0])
    return functools.partial(
        transformer_auto_wrap_policy, transformer_layer_cls={layer}
    )


def wrap(peft_model, policy, use_orig_params=True):
    """FSDP1 the way accelerate calls it (device_id cpu: the gloo test run)."""
    cpu = torch.device("cpu")
    return FSDP(
        peft_model,
        auto_wrap_policy=policy,
        use_orig_params=use_orig_params,
        device_id=cpu,
    )


def one_step(model):
    """One forward and backward: the wrapped model trains."""
    ids = torch.tensor([[1, 2, 3, 4, 5, 6]])
    loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    return round(loss.item(), 4)


def attempt(build):
    """'ok: <loss>' when wrapping (and a step) works, else the exception's line."""
    try:
        return f"ok: {build()}"
    except ValueError as error:  # FSDP1 refuses while flattening
        return f"ValueError: {error}"


def run_rank(seed):
    """One of two CPU processes: wrap LoRA models the ways accelerate and the
    Trainer do, and report what each does."""
    dist.init_process_group("gloo")
    set_seed(seed)
    all_targets = lora_config.target_modules  # includes embed_tokens
    report = {"rank": dist.get_rank()}
    adapter = peft_default(LINEAR_ONLY)
    report["adapter_dtypes"] = sorted(
        {str(p.dtype) for n, p in adapter.named_parameters() if "lora_" in n}
    )
    # accelerate's TRANSFORMER_BASED_WRAP puts base weights and LoRA in one unit
    report["layer_wrap"] = attempt(lambda: wrap(adapter, layer_policy(adapter)))
    # what transformers' Trainer installs for a PeftModel: each LoRA linear alone
    linear = peft_default(LINEAR_ONLY)
    peft_policy = fsdp_auto_wrap_policy(linear)
    report["peft_wrap_linear"] = attempt(lambda: one_step(wrap(linear, peft_policy)))
    # LoRA on the embedding: its adapter tensors stay in the enclosing unit
    embed = peft_default(all_targets)
    embed_policy = fsdp_auto_wrap_policy(embed)
    report["peft_wrap_embedding"] = attempt(lambda: wrap(embed, embed_policy))
    # the fix: one dtype, use_orig_params=True (frozen and trainable share units)
    fixed = lora_model_one_dtype(MODEL, lora_config)
    fix_policy = fsdp_auto_wrap_policy(fixed)
    report["fix"] = attempt(lambda: one_step(wrap(fixed, fix_policy)))
    again = lora_model_one_dtype(MODEL, lora_config)
    again_policy = fsdp_auto_wrap_policy(again)
    report["fix_orig_params_false"] = attempt(lambda: wrap(again, again_policy, False))
    # FSDP2 checks only the trainable parameters of a unit for one dtype
    fsdp2 = peft_default(all_targets)
    for layer in fsdp2.base_model.model.model.layers:
        fully_shard(layer)
    fully_shard(fsdp2)
    report["fsdp2_fp32_adapter"] = attempt(lambda: one_step(fsdp2))
    dist.barrier()  # both ranks are done with every collective before teardown
    dist.destroy_process_group()
    return report


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
    if len(reports) != 2:  # only missing reports fail: each printed its findings
        output = f"{done.stdout[-1500:]}\n{done.stderr[-3000:]}"
        raise RuntimeError(f"torchrun failed ({done.returncode}):\n{output}")
    return sorted(reports, key=lambda r: r["rank"])


def check(seed: int = 0) -> str:
    if os.environ.get(CHILD):  # inside one of the two launched processes
        return "RANK " + json.dumps(run_rank(int(os.environ[CHILD])))
    if os.environ.get(TRAINER_CHILD):  # inside check_multiprocess's accelerate launch
        return trainer_steps(seed, os.environ[TRAINER_CHILD])

    # the Trainer swaps in peft's wrap policy for a PeftModel under FSDP ...
    trainer_fsdp = inspect.getsource(update_fsdp_plugin_peft)
    assert "fsdp_auto_wrap_policy(model)" in trainer_fsdp, "claim: peft's policy"
    # ... and TRL keeps the adapter in the base dtype only under ZeRO-3, not FSDP
    sft_init = inspect.getsource(trl.SFTTrainer.__init__)
    keep_dtype = 'get_peft_model_kwargs["autocast_adapter_dtype"] = False'
    assert keep_dtype in sft_init, "claim: TRL keeps the adapter dtype somewhere"
    assert "zero_stage == 3 and not _is_quantized_model" in sft_init, "claim: ZeRO-3"

    rank0, rank1 = launch(seed)
    uniform = "Must flatten tensors with uniform dtype but got torch.bfloat16 and "
    uniform += "torch.float32"
    assert rank0["adapter_dtypes"] == ["torch.float32"], "claim: peft upcasts LoRA"
    assert uniform in rank0["layer_wrap"], f"claim: one unit, two dtypes: {rank0}"
    assert rank0["peft_wrap_linear"].startswith("ok"), f"claim: LoRA linears: {rank0}"
    assert uniform in rank0["peft_wrap_embedding"], f"claim: embedding LoRA: {rank0}"
    assert rank0["fix"].startswith("ok"), f"claim: one dtype wraps and trains: {rank0}"
    flags = "Must flatten tensors with uniform `requires_grad` when `use_orig_params"
    assert flags in rank0["fix_orig_params_false"], f"claim: keep orig params: {rank0}"
    fsdp2 = rank0["fsdp2_fp32_adapter"]
    assert fsdp2.startswith("ok"), f"claim: FSDP2 takes fp32 adapters: {rank0}"
    assert {**rank1, "rank": 0} == rank0, "claim: both ranks see the same"
    return (
        "FSDP1, fp32 LoRA on bf16: layer wrap and embedding LoRA raise uniform dtype; "
        f"one dtype trains (loss {rank0['fix'][4:]}); FSDP2 trains ({fsdp2[4:]})"
    )


def trainer_steps(seed, mode):
    """One launched process of check_multiprocess: SFTTrainer, two LoRA steps."""
    from datasets import Dataset
    from trl import SFTConfig, SFTTrainer

    set_seed(seed)
    args = SFTConfig(
        output_dir=tempfile.mkdtemp(),
        per_device_train_batch_size=2,
        max_length=32,
        max_steps=2,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
        bf16=True,
    )
    rows = Dataset.from_list([{"text": f"Fact {i}: water is wet."} for i in range(8)])
    if mode == "peft_config":  # the trainer builds the PeftModel: fp32 adapter
        base = AutoModelForCausalLM.from_pretrained(MODEL, dtype=torch.bfloat16)
        kwargs = dict(model=base, peft_config=lora_config)
    else:  # the Fix: the PeftModel built in one dtype, no peft_config
        kwargs = dict(model=lora_model_one_dtype(MODEL, lora_config))
    trainer = SFTTrainer(args=args, train_dataset=rows, **kwargs)
    trainer.train()
    if trainer.accelerator.is_main_process:
        print(f"TRAINED {trainer.state.log_history[-1]}")
    return "trained"


def check_multiprocess(seed: int = 0) -> str:
    """On 2 GPUs: SFTTrainer + LoRA (embed_tokens too) under accelerate's FSDP1."""
    outcome = {}
    for mode in ("peft_config", "one_dtype"):
        command = [sys.executable, "-m", "accelerate.commands.launch", "--use_fsdp"]
        command += ["--fsdp_version", "1", "--fsdp_use_orig_params", "true"]
        command += ["--fsdp_auto_wrap_policy", "TRANSFORMER_BASED_WRAP"]
        command += ["--num_processes", "2", "--num_machines", "1"]
        command += ["--mixed_precision", "bf16", "--dynamo_backend", "no"]
        command += ["--main_process_port", "0", __file__]
        env = {**os.environ, TRAINER_CHILD: mode}
        run = dict(env=env, capture_output=True, text=True, timeout=1200)
        done = subprocess.run(command, **run)
        outcome[mode] = (done.returncode, done.stdout[-2000:] + done.stderr[-4000:])
    code, output = outcome["peft_config"]
    uniform = "Must flatten tensors with uniform dtype"
    assert code != 0 and uniform in output, f"claim: peft_config crashes: {output}"
    code, output = outcome["one_dtype"]
    assert code == 0 and "TRAINED" in output, f"claim: the Fix trains: {output}"
    return "FSDP1 + SFTTrainer: peft_config with embed_tokens raises, the Fix trains"


SEEDS = (0,)  # one seed: a rule on dtypes, and each run starts two processes

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
