"""PPO held four models (policy, reference, reward, critic); GRPO in TRL 1.16 holds the policy plus only what you ask for.

Page: docs/rewards/ppo-memory-four-models.md (中文: docs/rewards/ppo-memory-four-models.zh.md)
Run:  python snippets/rewards/ppo-memory-four-models.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# trainer construction only (~1 s per seed)
SEEDS = (0, 1, 2)


# --8<-- [start:count]
def models_held(seed: int = 0, beta: float = 0.0, peft: bool = False, reward_model: bool = False) -> dict:
    """Build a GRPOTrainer and count the networks it keeps in memory."""
    import torch
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    runner.setup(seed)
    path = runner.model_path(seed)

    def reward_len(completions, **kwargs):  # a plain Python reward function: no network at all
        return [len(c) / 10 for c in completions]

    peft_config = None
    if peft:
        from peft import LoraConfig

        peft_config = LoraConfig(r=4, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM")
    args = runner.config(GRPOConfig, seed, beta=beta, num_generations=4, per_device_train_batch_size=4,
                         max_completion_length=8)
    trainer = GRPOTrainer(model=path, reward_funcs=[path if reward_model else reward_len], args=args,
                          train_dataset=Dataset.from_list([{"prompt": "Hi"}] * 4), peft_config=peft_config)
    rewards = [f for f in trainer.reward_funcs if isinstance(f, torch.nn.Module)]
    return {"policy": 1, "reference": int(trainer.ref_model is not None), "reward_models": len(rewards),
            "critic": int(hasattr(trainer.model, "v_head") or hasattr(trainer, "value_model"))}
# --8<-- [end:count]


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    """The PPO layout, rebuilt in GRPO terms: KL on (beta > 0), a learned reward model, no PEFT."""
    return models_held(seed, beta=0.04, reward_model=True)
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """The lean layouts: beta=0 (the default) drops the reference; with PEFT the reference is the base weights."""
    return {"beta0": models_held(seed, beta=0.0), "peft_beta": models_held(seed, beta=0.04, peft=True)}
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    bad, good = symptom(seed), fix(seed)
    assert bad == {"policy": 1, "reference": 1, "reward_models": 1, "critic": 0}, bad
    assert good["beta0"] == {"policy": 1, "reference": 0, "reward_models": 0, "critic": 0}, good
    assert good["peft_beta"]["reference"] == 0, "with PEFT the reference should be the adapter-disabled policy"
    return (f"GRPO beta=0.04 + RM: {sum(bad.values())} networks (no critic); beta=0 + reward function: "
            f"{sum(good['beta0'].values())}; PEFT + beta=0.04: reference {good['peft_beta']['reference']}")
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
