"""Reward never rises: probe the starting model with best-of-n sampling; if no sample ever scores, GRPO has no signal.

Page: docs/rewards/reward-ceiling-probe.md (中文: docs/rewards/reward-ceiling-probe.zh.md)
Run:  python snippets/rewards/reward-ceiling-probe.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# two probes and two 1-step GRPO runs per seed (~3 s): two seeds keep the suite fast; 0-3 verified
SEEDS = (0, 1)

PROMPTS = ["What is the capital of France?", "Name a colour.", "Say something.", "Count to three."]


# --8<-- [start:probe]
def best_of_n_probe(reward_func, seed: int = 0, n: int = 16) -> dict:
    """Sample n completions per prompt from the *starting* model and score them: the model's ceiling."""
    model, tok = runner.load(seed)
    scores = []
    for prompt in PROMPTS:
        enc = tok(prompt, return_tensors="pt").to(model.device)
        out = model.generate(**enc, do_sample=True, temperature=1.0, max_new_tokens=8, num_return_sequences=n,
                             pad_token_id=tok.pad_token_id)
        texts = tok.batch_decode(out[:, enc["input_ids"].shape[1]:], skip_special_tokens=True)
        scores.append(reward_func(texts))
    return {"best": [max(s) for s in scores],  # best-of-n per prompt: 0 everywhere = out of reach
            "solved_rate": sum(r > 0 for s in scores for r in s) / (n * len(PROMPTS))}


def grpo_step(reward_func, seed: int = 0) -> dict:
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    runner.setup(seed)
    args = runner.config(GRPOConfig, seed, num_generations=4, per_device_train_batch_size=16,
                         max_completion_length=8, max_steps=1)
    trainer = GRPOTrainer(model=runner.model_path(seed), reward_funcs=reward_func, args=args,
                          train_dataset=Dataset.from_list([{"prompt": p} for p in PROMPTS]))
    trainer.train()
    return trainer.state.log_history[0]
# --8<-- [end:probe]


# --8<-- [start:symptom]
def exact_answer(completions, **kwargs):
    """A task beyond this model: the reward is 1 only for the exact answer."""
    return [1.0 if "capital of France is Paris" in c else 0.0 for c in completions]


def symptom(seed: int = 0) -> dict:
    runner.setup(seed)
    return {"probe": best_of_n_probe(exact_answer, seed), "grpo": grpo_step(exact_answer, seed)}
# --8<-- [end:symptom]


# --8<-- [start:fix]
def within_reach(completions, **kwargs):
    """A task (or a model) where some samples succeed: here, any completion containing the letter 'e'."""
    return [1.0 if "e" in c else 0.0 for c in completions]


def fix(seed: int = 0) -> dict:
    runner.setup(seed)
    return {"probe": best_of_n_probe(within_reach, seed), "grpo": grpo_step(within_reach, seed)}
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    bad, good = symptom(seed), fix(seed)
    assert max(bad["probe"]["best"]) == 0.0, "the probe should find no scoring sample for the out-of-reach task"
    # No sample scores -> every group has identical rewards -> zero advantages -> no gradient.
    assert bad["grpo"]["frac_reward_zero_std"] == 1.0 and bad["grpo"]["reward"] == 0.0, bad["grpo"]
    assert bad["grpo"]["grad_norm"] == 0.0, "with beta=0 and zero advantages the gradient should be 0"
    assert 0.1 < good["probe"]["solved_rate"] < 0.9, good["probe"]
    assert good["grpo"]["frac_reward_zero_std"] < 1.0 and good["grpo"]["grad_norm"] > 0.0, good["grpo"]
    return (f"out of reach: best-of-16 {bad['probe']['best']}, frac_reward_zero_std 1.0, grad_norm 0; within reach: "
            f"solved_rate {good['probe']['solved_rate']:.2f}, frac_reward_zero_std "
            f"{good['grpo']['frac_reward_zero_std']:.2f}")
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
