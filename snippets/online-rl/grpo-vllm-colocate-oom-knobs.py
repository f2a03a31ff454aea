"""Colocated vLLM in GRPO: the memory knobs and their defaults in TRL 1.16 (the OOM itself needs a GPU).

Page: docs/online-rl/grpo-vllm-colocate-oom-knobs.md (中文: docs/online-rl/grpo-vllm-colocate-oom-knobs.zh.md)
Run:  python snippets/online-rl/grpo-vllm-colocate-oom-knobs.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# fact checks only (~0 s)
SEEDS = (0, 1, 2)


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    """What `use_vllm=True` gives you if you set nothing else."""
    from trl import GRPOConfig

    cfg = runner.config(GRPOConfig, seed, use_vllm=True, per_device_train_batch_size=8)
    return {k: getattr(cfg, k) for k in ("use_vllm", "vllm_mode", "vllm_gpu_memory_utilization",
                                         "vllm_enable_sleep_mode", "vllm_max_model_length")}
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """Leave the trainer room: a smaller vLLM share, sleep mode, a bounded context (or vllm_mode='server')."""
    from trl import GRPOConfig

    cfg = runner.config(GRPOConfig, seed, use_vllm=True, per_device_train_batch_size=8, vllm_mode="colocate",
                       vllm_gpu_memory_utilization=0.2, vllm_enable_sleep_mode=True, vllm_max_model_length=1024)
    return {k: getattr(cfg, k) for k in ("use_vllm", "vllm_mode", "vllm_gpu_memory_utilization",
                                         "vllm_enable_sleep_mode", "vllm_max_model_length")}
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    from trl import GRPOConfig, RLOOConfig

    assert GRPOConfig.use_vllm is False, "use_vllm should be opt-in"
    bad, good = symptom(seed), fix(seed)
    assert bad["vllm_mode"] == "colocate", f"default vllm_mode changed: {bad['vllm_mode']}"
    assert bad["vllm_gpu_memory_utilization"] == 0.3, f"default share changed: {bad['vllm_gpu_memory_utilization']}"
    assert bad["vllm_enable_sleep_mode"] is False and bad["vllm_max_model_length"] is None
    assert (RLOOConfig.vllm_mode, RLOOConfig.vllm_gpu_memory_utilization) == ("colocate", 0.3)
    assert good["vllm_gpu_memory_utilization"] == 0.2 and good["vllm_enable_sleep_mode"] is True
    return "use_vllm=True alone -> colocate, 30% of the GPU for vLLM, sleep mode off, context from the model config"
# --8<-- [end:verify]


# --8<-- [start:verify_vllm]
def verify_vllm(seed: int = 0) -> str:
    """On a GPU with vLLM: a colocated run with the fix settings trains and leaves memory for the trainer."""
    import torch
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    runner.setup(seed)
    data = Dataset.from_list([{"prompt": [{"role": "user", "content": "Say hi."}]}] * 8)
    args = runner.config(GRPOConfig, seed, use_vllm=True, vllm_mode="colocate", vllm_gpu_memory_utilization=0.2,
                         vllm_enable_sleep_mode=True, vllm_max_model_length=256, num_generations=4,
                         per_device_train_batch_size=4, max_completion_length=16, max_steps=2)
    reward = lambda completions, **kw: [float(len(c[0]["content"])) for c in completions]  # noqa: E731
    trainer = GRPOTrainer(model=runner.model_path(seed), reward_funcs=reward, args=args, train_dataset=data)
    trainer.train()
    free, total = torch.cuda.mem_get_info()
    assert trainer.state.global_step == 2
    return f"colocated vLLM at 20% with sleep mode: 2 steps, {free / total:.0%} of the GPU still free"
# --8<-- [end:verify_vllm]


if __name__ == "__main__":
    runner.verdict(True, verify())
