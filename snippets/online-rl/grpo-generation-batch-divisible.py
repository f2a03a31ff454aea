"""The "global train batch size must be evenly divisible by num_generations" error, as TRL 1.16 words and checks it.

Page: docs/online-rl/grpo-generation-batch-divisible.md (中文: docs/online-rl/grpo-generation-batch-divisible.zh.md)
Run:  python snippets/online-rl/grpo-generation-batch-divisible.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

SEEDS = (0, 1, 2)


def _error(**overrides) -> str | None:
    """The ValueError text GRPOConfig raises for these settings, or None if it accepts them."""
    from trl import GRPOConfig

    try:
        runner.config(GRPOConfig, **overrides)
    except ValueError as e:
        return str(e)
    return None


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    # 1 process x 2 completions per device x 1 accumulation step = 2 completions per generation,
    # which cannot hold whole groups of 3. GRPOConfig raises while it is built, before any model loads.
    return {
        "pdbs2_ng3": _error(per_device_train_batch_size=2, num_generations=3),
        "ng1": _error(per_device_train_batch_size=2, num_generations=1),
    }
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """Make the *generation* batch a multiple of num_generations; any of these is accepted."""
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    accepted = {
        "pdbs3": _error(per_device_train_batch_size=3, num_generations=3),
        "steps_per_generation3": _error(per_device_train_batch_size=2, num_generations=3, steps_per_generation=3),
        "generation_batch_size6": _error(per_device_train_batch_size=2, num_generations=3, generation_batch_size=6),
        # the exact setup from huggingface/trl#2858, rejected by TRL 0.14/0.15, accepted now:
        "trl2858": _error(per_device_train_batch_size=1, gradient_accumulation_steps=8, num_generations=8),
    }
    # And it trains: one optimizer step built from 4 micro-batches of 1 completion = 1 group of 4.
    runner.setup(seed)
    args = runner.config(
        GRPOConfig, seed, per_device_train_batch_size=1, gradient_accumulation_steps=4, num_generations=4,
        max_completion_length=4, max_steps=1,
    )
    prompts = Dataset.from_list([{"prompt": [{"role": "user", "content": f"Count to {i}."}]} for i in range(4)])
    trainer = GRPOTrainer(
        model=runner.model_path(seed), reward_funcs=lambda completions, **kw: [float(len(c[0]["content"])) for c in completions],
        args=args, train_dataset=prompts,
    )
    trainer.train()
    return {"accepted": accepted, "generation_batch_size": args.generation_batch_size,
            "steps_per_generation": args.steps_per_generation, "steps": trainer.state.global_step}
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    import inspect

    from trl.trainer import grpo_config, grpo_trainer

    bad, good = symptom(seed), fix(seed)
    assert bad["pdbs2_ng3"] == "generation_batch_size (2) must be divisible by num_generations (3).", bad
    assert bad["ng1"].startswith("GRPO requires at least 2 generations per prompt"), bad
    assert all(err is None for err in good["accepted"].values()), good["accepted"]
    assert (good["generation_batch_size"], good["steps_per_generation"], good["steps"]) == (4, 4, 1), good
    # The message users paste from older TRL releases no longer exists in 1.16 source.
    old = "must be evenly divisible by the number of generations per prompt"
    for module in (grpo_config, grpo_trainer):
        assert old not in inspect.getsource(module), f"the old message is still in {module.__name__}"
    return f"TRL 1.16 raises {bad['pdbs2_ng3']!r}; steps_per_generation / generation_batch_size / #2858's setup pass"
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
