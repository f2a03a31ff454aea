"""GRPO + vLLM on many nodes: colocate builds one vLLM engine in every training
process; server mode builds none.

Page: docs/scale/vllm-every-rank-many-nodes.md
中文: docs/scale/vllm-every-rank-many-nodes.zh.md
"""

# --8<-- [start:fix]
import torch
from trl import GRPOConfig

# Training ranks on their own nodes; one vLLM server (started first, on other
# GPUs) generates for all of them.
grpo_config = GRPOConfig(
    use_vllm=True,
    vllm_mode="server",  # say it: use_vllm=True alone means "colocate" (TRL >= 1.0)
    # the node running the vLLM server (overrides host/port)
    vllm_server_base_url="http://10.0.0.5:8000",
    vllm_server_timeout=600,  # seconds to wait for the server at start-up (default 240)
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import inspect
import os
import socket

from datasets import Dataset
from transformers import set_seed
from trl import GRPOTrainer, RLOOConfig
from trl.generation.vllm_generation import VLLMGeneration
from trl.scripts.vllm_serve import ScriptArguments as VLLMServeArguments

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")


def branches():
    """TRL's vLLM start-up code, split into its server and colocate branches."""
    source = inspect.getsource(VLLMGeneration._init_vllm)
    server_at, colocate_at = (
        source.index('if self.mode == "server"'),
        source.index('elif self.mode == "colocate"'),
    )
    return source[server_at:colocate_at], source[colocate_at:]


def check(seed: int = 0) -> str:
    bf16 = torch.cuda.is_available()
    for config in (GRPOConfig, RLOOConfig):
        args = config(use_vllm=True, bf16=bf16)
        assert args.vllm_mode == "colocate", (
            f"claim: {config.__name__}: use_vllm=True alone means colocate"
        )
        assert args.vllm_tensor_parallel_size == 1, (
            "claim: by default each colocated engine holds the whole model"
        )

    server, colocate = branches()
    assert "accelerator.is_main_process" in server and "LLM(" not in server, (
        "claim: server mode starts no engine; only the main process opens a client"
    )
    assert "LLM(" in colocate and "is_main_process" not in colocate, (
        "claim: colocate builds an engine in every rank"
    )
    assert 'distributed_executor_backend="external_launcher"' in colocate, (
        "claim: one engine per launched process"
    )
    assert "must divide world size" in colocate, (
        "claim: vllm_tensor_parallel_size groups ranks into one engine"
    )

    assert (grpo_config.vllm_mode, grpo_config.vllm_server_base_url) == (
        "server",
        "http://10.0.0.5:8000",
    ), "claim: the Fix is in server mode, pointed at the server's node"
    assert grpo_config.vllm_server_timeout == 600, (
        "claim: the Fix waits 600 s for the server"
    )
    defaults = GRPOConfig(use_vllm=True, vllm_mode="server", bf16=bf16)
    assert (defaults.vllm_server_host, defaults.vllm_server_port) == (
        "0.0.0.0",
        8000,
    ), "claim: default address"
    assert defaults.vllm_server_base_url is None, (
        "claim: without a base URL, host and port are used"
    )
    serve = {f.name: f.default for f in dataclasses.fields(VLLMServeArguments)}
    assert (
        serve["tensor_parallel_size"],
        serve["data_parallel_size"],
        serve["port"],
    ) == (1, 1, 8000), (
        "claim: `trl vllm-serve` runs one engine on one GPU on "
        "port 8000 unless told otherwise"
    )
    nodes, gpus = 4, 8
    return (
        f"use_vllm=True alone: colocate, one engine per process (on {nodes} nodes x "
        f"{gpus} GPUs: {nodes * gpus} engines, {nodes * gpus // 2} with "
        "vllm_tensor_parallel_size=2); server mode: no engine in the trainer, rank 0 "
        f"connects to {grpo_config.vllm_server_base_url}"
    )


def check_vllm(seed: int = 0) -> str:
    """On a GPU with vLLM: colocate builds an engine in this process; server mode
    builds none and waits for one."""
    set_seed(seed)
    prompts = Dataset.from_list(
        [{"prompt": [{"role": "user", "content": "Say hi."}]}] * 8
    )

    def length_reward(completions, **kwargs):
        return [float(len(completion[0]["content"])) for completion in completions]

    common = dict(
        num_generations=4,
        per_device_train_batch_size=4,
        max_completion_length=8,
        max_steps=1,
    )
    common.update(logging_steps=1, save_strategy="no", seed=seed, bf16=True)
    args = GRPOConfig(use_vllm=True, vllm_gpu_memory_utilization=0.3, **common)
    trainer = GRPOTrainer(
        model=MODEL, reward_funcs=length_reward, args=args, train_dataset=prompts
    )
    assert trainer.vllm_generation.llm is not None, (
        "claim: colocate builds a vLLM engine inside the training process"
    )
    assert not hasattr(trainer.vllm_generation, "vllm_client"), (
        "claim: and talks to no server"
    )
    trainer.train()
    del trainer
    torch.cuda.empty_cache()

    with socket.socket() as s:  # a port where no server listens
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    no_server = dataclasses.replace(  # the Fix, pointed at a port where nothing listens
        grpo_config,
        vllm_server_base_url=f"http://127.0.0.1:{port}",
        vllm_server_timeout=5,
        # derived from steps_per_generation: GRPOConfig refuses both set, as in a copy
        generation_batch_size=None,
        **common,
    )
    try:
        GRPOTrainer(
            model=MODEL,
            reward_funcs=length_reward,
            args=no_server,
            train_dataset=prompts,
        )
    # requests' ConnectionError is not the built-in one
    except Exception as e:  # noqa: BLE001
        assert "can't be reached" in str(e), (
            f"claim: server mode waits for a server it does not start: {e!r}"
        )
    else:
        raise AssertionError(
            "claim: server mode does not start a vLLM engine of its own"
        )
    return (
        "colocate: engine in this process, 1 step trained; server mode without a "
        "server: ConnectionError after 5 s"
    )


SEEDS = (0,)  # one seed: config and source facts only (well under 1 s)

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
