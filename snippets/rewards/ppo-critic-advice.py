"""PPO critic advice (value-loss, critic learning rate, critic initialisation) has no knob in TRL 1.16: GRPO/RLOO have no critic.

Page: docs/rewards/ppo-critic-advice.md (中文: docs/rewards/ppo-critic-advice.zh.md)
Run:  python snippets/rewards/ppo-critic-advice.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# training runs cost > 1 s per seed, so the suite runs two seeds (seeds 0-2 pass; re-checked 2026-12-02)
SEEDS = (0, 1)

PPO_CRITIC_KNOBS = ("vf_coef", "cliprange_value", "value_model", "value_model_path", "gamma", "lam", "whiten_rewards")


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    """Look for the PPO critic knobs in the configs and trainers TRL 1.16 ships."""
    import dataclasses
    import inspect

    from trl import GRPOConfig, GRPOTrainer, RLOOConfig, RLOOTrainer

    runner.setup(seed)
    found = {}
    for cfg, trainer in ((GRPOConfig, GRPOTrainer), (RLOOConfig, RLOOTrainer)):
        names = {f.name for f in dataclasses.fields(cfg)} | set(inspect.signature(trainer.__init__).parameters)
        found[cfg.__name__] = sorted(set(PPO_CRITIC_KNOBS) & names)
    return found
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """A GRPO step: the baseline is the group mean, so the trained parameters are exactly the policy's."""
    from datasets import Dataset
    from transformers import AutoModelForCausalLM
    from trl import GRPOConfig, GRPOTrainer

    runner.setup(seed)

    def reward_len(completions, **kwargs):
        return [len(c) / 10 for c in completions]

    prompts = Dataset.from_list([{"prompt": f"Count to {i}:"} for i in range(4)])
    args = runner.config(GRPOConfig, seed, num_generations=4, per_device_train_batch_size=4,
                         max_completion_length=8, max_steps=1)
    trainer = GRPOTrainer(model=runner.model_path(seed), reward_funcs=reward_len, args=args, train_dataset=prompts)
    trainer.train()
    base = AutoModelForCausalLM.from_pretrained(runner.model_path(seed))
    return {
        "trained_params": sum(p.numel() for p in trainer.model.parameters()),
        "policy_params": sum(p.numel() for p in base.parameters()),
        "logged": sorted(trainer.state.log_history[0]),
    }
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    import importlib.util

    bad, good = symptom(seed), fix(seed)
    assert bad == {"GRPOConfig": [], "RLOOConfig": []}, f"a PPO critic knob exists in TRL 1.16: {bad}"
    assert importlib.util.find_spec("trl.experimental.ppo") is None, "the PPO trainer (and its critic) is back"
    assert good["trained_params"] == good["policy_params"], "GRPO trains something besides the policy"
    assert not any("value" in k or k.startswith("val/") for k in good["logged"]), good["logged"]
    assert {"reward", "reward_std", "frac_reward_zero_std"} <= set(good["logged"])
    return (f"no critic knob in GRPOConfig/RLOOConfig; GRPO trains {good['trained_params']} params = the policy's "
            f"{good['policy_params']}; no value metric logged")
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
