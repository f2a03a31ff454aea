"""GRPO's default beta is 0.0: no reference model is loaded and no `kl` is logged; RLOO's default is 0.05.

Page: docs/online-rl/grpo-beta-default-no-kl-metric.md (中文: docs/online-rl/grpo-beta-default-no-kl-metric.zh.md)
Run:  python snippets/online-rl/grpo-beta-default-no-kl-metric.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# training runs cost > 1 s per seed, so the suite runs two seeds (seeds 0-2 pass; re-checked 2026-12-02)
SEEDS = (0, 1)


# --8<-- [start:run]
def one_step(seed: int = 0, **overrides):
    """One GRPO step; return the trainer so we can look at `ref_model` and the logged keys."""
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    runner.setup(seed)
    data = Dataset.from_list([{"prompt": [{"role": "user", "content": "Say hi."}]}] * 4)
    args = runner.config(GRPOConfig, seed, num_generations=4, per_device_train_batch_size=4,
                         max_completion_length=8, max_steps=1, **overrides)
    reward = lambda completions, **kw: [float(len(c[0]["content"])) for c in completions]  # noqa: E731
    trainer = GRPOTrainer(model=runner.model_path(seed), reward_funcs=reward, args=args, train_dataset=data)
    trainer.train()
    return trainer
# --8<-- [end:run]


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    """Default GRPOConfig: beta=0.0. Nothing ties the policy to the starting model."""
    trainer = one_step(seed)
    return {"beta": trainer.args.beta, "ref_model": trainer.ref_model,
            "logged": set(trainer.state.log_history[0])}
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """Starting from an instruct/SFT model and want an anchor? Set beta explicitly (R1 used 0.001)."""
    trainer = one_step(seed, beta=0.001)
    return {"beta": trainer.args.beta, "ref_model": trainer.ref_model,
            "logged": set(trainer.state.log_history[0]), "kl": runner.history(trainer, "kl")}
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    from trl import GRPOConfig, RLOOConfig

    assert GRPOConfig.beta == 0.0, f"GRPOConfig.beta default changed: {GRPOConfig.beta}"
    assert RLOOConfig.beta == 0.05, f"RLOOConfig.beta default changed: {RLOOConfig.beta}"
    bad, good = symptom(seed), fix(seed)
    assert bad["ref_model"] is None, "with beta=0.0 GRPO should not load a reference model"
    assert "kl" not in bad["logged"], "with beta=0.0 GRPO should not log a `kl` key at all"
    assert good["ref_model"] is not None, "with beta>0 GRPO should load a reference model"
    assert "kl" in good["logged"] and good["kl"] == [0.0], "first-step kl against the reference should be 0"
    return "GRPO beta default 0.0 -> ref_model None, no `kl` key; beta=0.001 -> ref model + `kl` logged (0.0 at step 1)"
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
