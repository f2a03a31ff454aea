"""PPO held four models (policy, reference, reward, critic); GRPOTrainer holds
the policy plus what you ask for.

Page: docs/rewards/ppo-memory-four-models.md
中文: docs/rewards/ppo-memory-four-models.zh.md
"""

# --8<-- [start:fix]
from peft import LoraConfig


# 1. No reference copy: keep beta=0.0 (the default), or, if you want a KL anchor,
#    train a LoRA adapter: the reference log-probs then come from the base weights
#    with the adapter switched off.
KL_ANCHOR = dict(beta=0.04)
LORA = LoraConfig(r=4, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM")


# 2. No reward network: score with a function where a programmatic check exists.
def length_reward(completions, **kwargs):
    return [min(len(completion[0]["content"]), 32) / 32 for completion in completions]


# 3. A smaller rollout: each process generates per_device_train_batch_size x
#    steps_per_generation completions at once (GRPOConfig.generation_batch_size
#    counts all processes); num_generations only sets how many share a prompt.
ROLLOUT = dict(per_device_train_batch_size=4, num_generations=4)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import importlib.util
import inspect
import os

import torch
import trl
from datasets import Dataset
from packaging.version import Version
from transformers import set_seed
from trl import GRPOConfig, GRPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")


def build(seed, reward_funcs, peft_config=None, **fields):
    """A GRPOTrainer, constructed but not trained: what it
    holds in memory is decided here."""
    set_seed(seed)
    prompts = Dataset.from_list(
        [{"prompt": [{"role": "user", "content": f"Count to {i}."}]} for i in range(4)]
    )
    args = GRPOConfig(
        **ROLLOUT,
        **fields,
        max_completion_length=8,
        logging_steps=1,
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    return GRPOTrainer(
        model=MODEL,
        reward_funcs=reward_funcs,
        args=args,
        train_dataset=prompts,
        peft_config=peft_config,
    )


def networks_held(trainer):
    """The trainer attributes that hold a distinct network, and the
    parameters of all of them together."""
    modules = {}
    for name, value in vars(trainer).items():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, torch.nn.Module):
                modules.setdefault(id(item), (name, item))
    params = {
        id(p): p.numel() for _, module in modules.values() for p in module.parameters()
    }
    return sorted(name for name, _ in modules.values()), sum(params.values())


def rollout_size(**fields):
    return GRPOConfig(**fields, bf16=torch.cuda.is_available()).generation_batch_size


def ppo_networks():
    """The networks PPOTrainer takes, where TRL still has it
    (trl.experimental.ppo, up to 1.12); None from 1.13."""
    if importlib.util.find_spec("trl.experimental.ppo") is None:
        return None
    from trl.experimental.ppo import PPOTrainer

    wanted = ("model", "ref_model", "reward_model", "value_model")
    return [
        name
        for name in wanted
        if name in inspect.signature(PPOTrainer.__init__).parameters
    ]


def check(seed: int = 0) -> str:
    ppo = ppo_networks()
    removed = Version(trl.__version__).release[:2] >= (1, 13)
    assert (ppo is None) == removed, (
        f"claim: PPO is in TRL up to 1.12 and gone from 1.13 (trl {trl.__version__})"
    )
    assert removed or len(ppo) == 4, (
        f"claim: PPOTrainer takes four networks (policy, ref, reward, critic): {ppo}"
    )

    # The PPO-era layout in GRPO terms: a KL anchor without PEFT, and a reward
    # model (MODEL stands in for one).
    ppo_like, ppo_params = networks_held(build(seed, MODEL, **KL_ANCHOR))
    lean, lean_params = networks_held(build(seed, length_reward))
    lora_trainer = build(seed, length_reward, peft_config=LORA, **KL_ANCHOR)
    lora, lora_params = networks_held(lora_trainer)

    assert ppo_like == ["model", "ref_model", "reward_funcs"], (
        f"claim: policy + reference + RM, no critic: {ppo_like}"
    )
    assert ppo_params > 2.5 * lean_params, (
        f"claim: that layout holds ~3x the weights ({ppo_params} vs {lean_params})"
    )
    assert lean == ["model"], (
        f"claim: beta=0 with a reward function holds the policy alone, got {lean}"
    )
    assert lora == ["model"] and lora_trainer.ref_model is None, (
        f"claim: LoRA + beta>0 loads no reference: {lora}"
    )
    assert lora_params < 1.5 * lean_params, (
        f"claim: LoRA adds only adapter weights ({lora_params} vs {lean_params})"
    )

    fewer_generations = rollout_size(per_device_train_batch_size=8, num_generations=2)
    default_generations = rollout_size(per_device_train_batch_size=8, num_generations=8)
    smaller_batch = rollout_size(per_device_train_batch_size=4, num_generations=2)
    assert fewer_generations == default_generations, (
        "claim: lowering num_generations does not shrink the rollout"
    )
    assert smaller_batch < fewer_generations, (
        "claim: lowering per_device_train_batch_size shrinks the rollout"
    )
    return (
        f"PPO: {'gone' if removed else f'{len(ppo)} networks'}; KL + RM: "
        f"{len(ppo_like)} networks, {ppo_params} params; beta=0 + function: 1 network, "
        f"{lean_params}; LoRA + KL: 1 network, {lora_params}; rollout "
        f"{default_generations} completions for num_generations 8 or 2"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
