"""GRPO of a 7B model on four GPUs with colocated vLLM: the recipe as a TRL config, its
batch rules for 4 processes, one step of it on the tiny model, and a per-GPU 7B
memory estimate from bytes per parameter measured on the trainer.

Page: docs/scale/recipe-grpo-7b-four-gpus.md
中文: docs/scale/recipe-grpo-7b-four-gpus.zh.md
"""

# --8<-- [start:fix]
import torch

# GRPOConfig(**GRPO_7B_FOUR_GPUS, ...), launched as 4 processes (the bash block below)
GRPO_7B_FOUR_GPUS = dict(
    use_vllm=True,
    # one vLLM engine inside each training process, on that process's GPU
    vllm_mode="colocate",
    # TRL's default share of each GPU for vLLM: its bf16 weights + KV cache
    vllm_gpu_memory_utilization=0.3,
    num_generations=8,  # G, completions per prompt
    # no longer the default (0.0): beta > 0 makes TRL load a full reference copy
    beta=0.04,
    # full fine-tuning: keep the weights in float32 (no
    # model_init_kwargs dtype), see Evidence
    learning_rate=1e-6,
    per_device_train_batch_size=2,  # completions per process and micro-step
    # 2 x 4 processes x 4 = 32 completions = 4 prompts x 8 per generation
    gradient_accumulation_steps=4,
    bf16=torch.cuda.is_available(),  # bf16 autocast for the compute
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import functools
import inspect
import os
import tempfile
from importlib import resources
from unittest import mock

import trl
import yaml
from datasets import Dataset
from packaging.version import Version
from transformers import (
    AutoModelForCausalLM,
    AutoTokenizer,
    Qwen2Config,
    TrainerCallback,
    set_seed,
)
from trl import GRPOConfig, GRPOTrainer
from trl.generation import vllm_generation

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

# The shape of Qwen/Qwen2.5-7B-Instruct's config.json
# (AutoConfig.from_pretrained gives the same numbers)
QWEN25_7B = Qwen2Config(
    hidden_size=3584,
    intermediate_size=18944,
    num_hidden_layers=28,
    num_attention_heads=28,
    num_key_value_heads=4,
    vocab_size=152064,
    tie_word_embeddings=False,
)
PROMPTS = [
    {"prompt": [{"role": "user", "content": f"Count to {i}."}]} for i in range(8)
]


def length_reward(completions, **kwargs):
    return [float(len(completion[0]["content"])) for completion in completions]


def config(world_size=1, **overrides):
    """The recipe's GRPOConfig as seen by each of `world_size` processes
    (normally read from the launcher)."""
    with mock.patch.object(GRPOConfig, "world_size", property(lambda self: world_size)):
        return GRPOConfig(**dict(GRPO_7B_FOUR_GPUS, **overrides))


def config_error(world_size, **overrides):
    try:
        config(world_size, **overrides)
    except ValueError as e:
        return str(e)
    return None


class ByteLedger(TrainerCallback):
    """Bytes per parameter right after the first optimizer step, and the share of
    weights that step really moved."""

    def on_train_begin(self, args, state, control, model=None, **kwargs):
        self.before = {n: p.detach().clone() for n, p in model.named_parameters()}

    def on_optimizer_step(
        self, args, state, control, model=None, optimizer=None, **kwargs
    ):
        held = dict(params=0, weights=0, grads=0, adam=0)
        for p in model.parameters():  # full fine-tuning: every parameter is trainable
            held["params"] += p.numel()
            held["weights"] += p.nbytes
            held["grads"] += 0 if p.grad is None else p.grad.nbytes
            # exp_avg and exp_avg_sq; the 0-dim "step" counter per tensor is left out
            held["adam"] += sum(
                t.nbytes
                for t in optimizer.state.get(p, {}).values()
                if torch.is_tensor(t) and t.dim()
            )
        self.per_param = {
            k: held[k] / held["params"] for k in ("weights", "grads", "adam")
        }
        self.pushed = {
            n: p.grad != 0 for n, p in model.named_parameters() if p.grad is not None
        }

    def on_step_end(self, args, state, control, model=None, **kwargs):
        moved = sum(
            ((p.detach() != self.before[n]) & self.pushed[n]).sum().item()
            for n, p in model.named_parameters()
        )
        self.moved = moved / max(
            1, sum(mask.sum().item() for mask in self.pushed.values())
        )


def one_step(seed, checkpoint, **overrides):
    """One optimizer step of the recipe's shape in one process on the
    CPU: no vLLM, lengths scaled down."""
    set_seed(seed)
    args = config(
        1,
        use_vllm=False,
        max_completion_length=8,
        max_steps=1,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        **overrides,
    )
    ledger = ByteLedger()
    trainer = GRPOTrainer(
        model=checkpoint,
        reward_funcs=length_reward,
        args=args,
        train_dataset=Dataset.from_list(PROMPTS),
        callbacks=[ledger],
    )
    trainer.train()
    ref = (
        [p for p in trainer.ref_model.parameters()]
        if trainer.ref_model is not None
        else []
    )
    ledger.ref_per_param = sum(p.nbytes for p in ref) / max(
        1, sum(p.numel() for p in ref)
    )
    return trainer, ledger


@functools.cache
def count_7b():
    with torch.device("meta"):  # no memory used
        return sum(
            p.numel() for p in AutoModelForCausalLM.from_config(QWEN25_7B).parameters()
        )


def check(seed: int = 0) -> str:
    fields = GRPOConfig.__dataclass_fields__
    assert set(GRPO_7B_FOUR_GPUS) <= set(fields), (
        "claim: every name in the recipe is a GRPOConfig field"
    )
    # what you get without the recipe
    default_config = GRPOConfig(bf16=torch.cuda.is_available())
    defaults = {
        k: getattr(default_config, k)
        for k in ("beta", "num_generations", "learning_rate", "vllm_mode")
    }
    # 0.29 defaulted to server
    mode = "colocate" if Version(trl.__version__) >= Version("1.0") else "server"
    assert defaults == {
        "beta": 0.0,
        "num_generations": 8,
        "learning_rate": 1e-6,
        "vllm_mode": mode,
    }, f"claim: G=8 and 1e-6 are the defaults, beta=0.04 is not: {defaults}"

    four = config(4)  # 4 processes, one per GPU
    sizes = (four.generation_batch_size, four.steps_per_generation)
    assert sizes == (32, 4), (
        f"claim: 2 x 4 processes x 4 steps = 32 completions per generation: {sizes}"
    )
    not_whole = "generation_batch_size ({}) must be divisible by {}."
    errors = {
        "batch 1, no accumulation": config_error(
            4, per_device_train_batch_size=1, gradient_accumulation_steps=1
        ),
        "batch 1, generation_batch_size=12": config_error(
            4, per_device_train_batch_size=1, generation_batch_size=12
        ),
        "batch 2, generation_batch_size=12": config_error(4, generation_batch_size=12),
    }
    assert errors == {
        "batch 1, no accumulation": not_whole.format(4, "num_generations (8)"),
        "batch 1, generation_batch_size=12": not_whole.format(
            12, "num_generations (8)"
        ),
        "batch 2, generation_batch_size=12": not_whole.format(
            12, "the global batch size (8)"
        ),
    }, (
        "claim: GRPOConfig rejects generation batches that do not hold whole "
        f"groups on 4 processes: {errors}"
    )
    # 3 training GPUs + `trl vllm-serve` on the fourth
    server = config(3, vllm_mode="server")
    assert server.generation_batch_size == 24, (
        "claim: 3 training processes give 24 completions = 3 prompts x 8"
    )
    assert "must divide world size" in inspect.getsource(vllm_generation), (
        "claim: colocate mode requires vllm_tensor_parallel_size to "
        "divide the number of processes"
    )
    launcher = yaml.safe_load(
        resources.files("trl.accelerate_configs").joinpath("zero3.yaml").read_text()
    )
    shipped = (
        launcher["deepspeed_config"]["zero_stage"],
        launcher["num_processes"],
        launcher["mixed_precision"],
    )
    assert shipped == (3, 8, "bf16"), (
        f"claim: TRL's zero3.yaml is for 8 processes; pass --num_processes 4: {shipped}"
    )

    # a bf16 checkpoint, like every 7B on the Hub
    with tempfile.TemporaryDirectory() as checkpoint:
        AutoModelForCausalLM.from_pretrained(
            MODEL, dtype=torch.bfloat16
        ).save_pretrained(checkpoint)
        AutoTokenizer.from_pretrained(MODEL).save_pretrained(checkpoint)
        trainer, fp32 = one_step(seed, checkpoint)
        _, bf16 = one_step(seed, checkpoint, model_init_kwargs={"dtype": "bfloat16"})

    assert (trainer.args.generation_batch_size, trainer.state.global_step) == (8, 1), (
        "claim: one group of 8 trains"
    )
    assert (
        fp32.per_param == {"weights": 4.0, "grads": 4.0, "adam": 8.0}
        and fp32.ref_per_param == 4.0
    ), (
        "claim: default load = float32 weights, grads and Adam moments + a "
        f"float32 reference: {fp32.per_param}"
    )
    assert (
        bf16.per_param == {"weights": 2.0, "grads": 2.0, "adam": 4.0}
        and bf16.ref_per_param == 2.0
    ), f"claim: dtype=bfloat16 halves every term: {bf16.per_param}"
    assert fp32.moved > 0.9 and bf16.moved < 0.1, (
        f"claim: at lr 1e-6 bf16 weights swallow the update: moved {fp32.moved:.1%} "
        f"(fp32) vs {bf16.moved:.1%} (bf16)"
    )

    n = count_7b()
    # every process holds a full replica
    per_gpu = n * (sum(fp32.per_param.values()) + fp32.ref_per_param) / 1e9
    # under the bf16 zero3.yaml, prepare_deepspeed hands the reference to
    # deepspeed.initialize, which casts it to bf16
    zero3 = n * (sum(fp32.per_param.values()) + bf16.ref_per_param) / 1e9 / 4
    # vLLM serves the bf16 checkpoint
    vllm_weights = n * bf16.per_param["weights"] / 1e9
    return (
        "4 processes: generation batch 32 = 4 prompts x 8; measured 16 B/param "
        "trained + 4 B/param reference (bf16 would be 8 + 2, but moved "
        f"{bf16.moved:.1%} of the weights vs {fp32.moved:.1%}); 7B ({n / 1e9:.2f}B): "
        f"{per_gpu:.0f} GB per GPU replicated, {zero3:.0f} GB sharded over 4 (ZeRO-3, "
        f"bf16 reference), plus vLLM's {vllm_weights:.1f} GB of weights inside its "
        f"{GRPO_7B_FOUR_GPUS['vllm_gpu_memory_utilization']:.0%} share"
    )


def check_vllm(seed: int = 0) -> str:
    """On one GPU with vLLM installed: the recipe's colocate shape (1 process:
    one group of 8) trains one step."""
    set_seed(seed)
    args = GRPOConfig(
        **dict(GRPO_7B_FOUR_GPUS, bf16=True),
        max_completion_length=16,
        max_steps=1,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
    )
    trainer = GRPOTrainer(
        model=MODEL,
        reward_funcs=length_reward,
        args=args,
        train_dataset=Dataset.from_list(PROMPTS),
    )
    assert trainer.vllm_generation.llm is not None, (
        "claim: colocate mode builds the vLLM engine in this process"
    )
    trainer.train()
    assert trainer.state.global_step == 1, "claim: the colocated recipe trains"
    free, total = torch.cuda.mem_get_info()
    return (
        "colocated vLLM at 30%: one step of 8 completions; "
        f"{free / total:.0%} of the GPU still free"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
