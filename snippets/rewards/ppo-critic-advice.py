"""PPO critic advice (value loss, critic learning rate, critic init) has no knob in
GRPO/RLOO: they have no critic.

Page: docs/rewards/ppo-critic-advice.md
中文: docs/rewards/ppo-critic-advice.zh.md
"""

# --8<-- [start:symptom]
import dataclasses
import inspect

from trl import GRPOConfig, GRPOTrainer, RLOOConfig, RLOOTrainer

# The critic fields of the old PPOConfig / PPOTrainer (TRL 0.12-1.12).
PPO_CRITIC_KNOBS = {
    "vf_coef",
    "cliprange_value",
    "value_model",
    "gamma",
    "lam",
    "whiten_rewards",
}


def critic_knobs(config_cls, trainer_cls):
    """The PPO critic knobs a config's fields or its
    trainer's arguments still accept."""
    names = {f.name for f in dataclasses.fields(config_cls)} | set(
        inspect.signature(trainer_cls).parameters
    )
    return sorted(PPO_CRITIC_KNOBS & names)


print(
    "GRPO:",
    critic_knobs(GRPOConfig, GRPOTrainer),
    "RLOO:",
    critic_knobs(RLOOConfig, RLOOTrainer),
)
# --8<-- [end:symptom]


# --8<-- [start:fix]
# The knobs that take over the critic's job in GRPO: the group is the baseline,
# one learning rate (the policy's).
CRITIC_FREE = dict(
    # completions per prompt: a larger group gives a steadier baseline
    num_generations=4,
    scale_rewards="group",  # what "normalise rewards for the critic" became
    epsilon=0.2,  # the policy-ratio clip
    max_grad_norm=1.0,
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import os

import torch
from datasets import Dataset
from transformers import AutoModelForCausalLM, set_seed

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")


def length_reward(completions, **kwargs):
    return [len(completion[0]["content"]) / 10 for completion in completions]


def check(seed: int = 0) -> str:
    knobs = {
        "GRPO": critic_knobs(GRPOConfig, GRPOTrainer),
        "RLOO": critic_knobs(RLOOConfig, RLOOTrainer),
    }
    assert knobs == {"GRPO": [], "RLOO": []}, (
        f"claim: no PPO critic knob exists in GRPO or RLOO, found {knobs}"
    )

    set_seed(seed)
    prompts = Dataset.from_list(
        [{"prompt": [{"role": "user", "content": f"Count to {i}."}]} for i in range(4)]
    )
    args = GRPOConfig(
        **CRITIC_FREE,
        per_device_train_batch_size=4,
        max_completion_length=8,
        max_steps=1,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    trainer = GRPOTrainer(
        model=MODEL, reward_funcs=length_reward, args=args, train_dataset=prompts
    )
    trainer.train()

    policy_params = sum(
        p.numel() for p in AutoModelForCausalLM.from_pretrained(MODEL).parameters()
    )
    optimised = sum(
        p.numel() for group in trainer.optimizer.param_groups for p in group["params"]
    )
    assert optimised == policy_params, (
        f"claim: the optimizer trains only the policy ({optimised} vs {policy_params})"
    )
    rates = {group["lr"] for group in trainer.optimizer.param_groups}
    assert len(rates) == 1, (
        f"claim: one learning rate for everything trained, got {rates}"
    )
    logged = set(trainer.state.log_history[0])
    value_keys = sorted(k for k in logged if "value" in k or k.startswith("val/"))
    assert not value_keys, (
        f"claim: no value-function metric is logged, got {value_keys}"
    )
    group_keys = {"reward", "reward_std", "frac_reward_zero_std"}
    assert group_keys <= logged, (
        f"claim: the group-baseline metrics are logged, missing {group_keys - logged}"
    )
    return (
        f"no critic knob in GRPO/RLOO; the optimizer holds {optimised} params "
        "= the policy's; no value metric"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
