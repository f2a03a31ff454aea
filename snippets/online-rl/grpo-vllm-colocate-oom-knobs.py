"""Colocated vLLM in GRPO: which memory knobs exist, which mode they act in, and
their defaults (TRL 1.0 and later).

Page: docs/online-rl/grpo-vllm-colocate-oom-knobs.md
中文: docs/online-rl/grpo-vllm-colocate-oom-knobs.zh.md
"""

# --8<-- [start:fix]
import torch
from trl import GRPOConfig

# Colocate mode (vLLM inside the training process, on its GPU): leave the trainer room.
grpo_config = GRPOConfig(
    use_vllm=True,
    vllm_mode="colocate",
    # vLLM's share of the GPU, weights + KV cache (default 0.3)
    vllm_gpu_memory_utilization=0.2,
    # free vLLM's weights and cache while the trainer steps
    vllm_enable_sleep_mode=True,
    # longest prompt + max_completion_length, not the model's full context
    vllm_max_model_length=1024,
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os

from datasets import Dataset
from transformers import set_seed
from trl import GRPOTrainer, RLOOConfig
from trl.scripts.vllm_serve import ScriptArguments as VLLMServeArguments

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
COLOCATE_ONLY = "only applies when `vllm_mode` is set to `'colocate'`"


def check(seed: int = 0) -> str:
    bf16 = torch.cuda.is_available()
    assert GRPOConfig(bf16=bf16).use_vllm is False, "claim: vLLM is opt-in"
    plain = GRPOConfig(use_vllm=True, bf16=bf16)  # what use_vllm=True alone gives
    assert plain.vllm_mode == "colocate", (
        f"claim: use_vllm=True alone means colocate mode, got {plain.vllm_mode}"
    )
    assert plain.vllm_gpu_memory_utilization == 0.3, (
        "claim: colocated vLLM takes 30% of the GPU by default"
    )
    assert plain.vllm_enable_sleep_mode is False, "claim: sleep mode is off by default"
    assert plain.vllm_max_model_length is None, (
        "claim: the vLLM context comes from the model config by default"
    )
    for config in (GRPOConfig, RLOOConfig):
        fields = {f.name: f for f in dataclasses.fields(config)}
        for name in ("vllm_gpu_memory_utilization", "vllm_tensor_parallel_size"):
            assert COLOCATE_ONLY in fields[name].metadata["help"], (
                f"claim: {config.__name__}.{name} is colocate-only"
            )
        assert (
            fields["vllm_mode"].default,
            fields["vllm_gpu_memory_utilization"].default,
        ) == ("colocate", 0.3), f"claim: {config.__name__} has the same vLLM defaults"
    serve = {f.name: f.default for f in dataclasses.fields(VLLMServeArguments)}
    assert serve["gpu_memory_utilization"] == 0.9, (
        "claim: in server mode the share is set on `trl vllm-serve` (0.9)"
    )
    fix = (
        grpo_config.vllm_mode,
        grpo_config.vllm_gpu_memory_utilization,
        grpo_config.vllm_enable_sleep_mode,
    )
    assert fix == ("colocate", 0.2, True), (
        f"claim: the Fix sets a smaller share and sleep mode: {fix}"
    )
    return (
        "use_vllm=True alone: colocate, vllm_gpu_memory_utilization 0.3 "
        "(colocate-only), sleep mode off, context from the model config; server mode: "
        f"`trl vllm-serve` share {serve['gpu_memory_utilization']}"
    )


def check_vllm(seed: int = 0) -> str:
    """On a GPU with vLLM installed: colocated vLLM with the Fix settings
    lives in this process and trains."""
    set_seed(seed)
    prompts = Dataset.from_list(
        [{"prompt": [{"role": "user", "content": "Say hi."}]}] * 8
    )
    args = dataclasses.replace(  # the Fix's config, sized for two quick steps
        grpo_config,
        num_generations=4,
        per_device_train_batch_size=4,
        # GRPOConfig derived it from the old batch size: let it derive it again
        generation_batch_size=None,
        max_completion_length=16,
        max_steps=2,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        bf16=True,
    )

    def length_reward(completions, **kwargs):
        return [float(len(completion[0]["content"])) for completion in completions]

    trainer = GRPOTrainer(
        model=MODEL, reward_funcs=length_reward, args=args, train_dataset=prompts
    )
    assert trainer.vllm_generation.llm is not None, (
        "claim: colocate mode builds the vLLM engine in this process"
    )
    trainer.train()
    assert trainer.state.global_step == 2, (
        "claim: colocated vLLM with the Fix settings trains"
    )
    free, total = torch.cuda.mem_get_info()
    return (
        "colocated vLLM at 20% with sleep mode: 2 steps on one GPU, "
        f"{free / total:.0%} of it still free"
    )


# the test suite runs check() once per seed (config facts only, well under 1 s)
SEEDS = (0, 1, 2)

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
