"""GRPO's logged `loss` is ~0 on-policy (beta=0) even though the model trains; with beta>0 it is the KL term.

Page: docs/online-rl/grpo-loss-not-progress-signal.md (中文: docs/online-rl/grpo-loss-not-progress-signal.zh.md)
Run:  python snippets/online-rl/grpo-loss-not-progress-signal.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# training runs cost > 1 s per seed, so the suite runs two seeds (seeds 0-2 pass; re-checked 2026-12-02)
SEEDS = (0, 1)


# --8<-- [start:run]
def run_grpo(seed: int = 0, **overrides) -> dict:
    """Two GRPO steps on the tiny model; return the logged metrics and how far the weights moved."""
    import torch
    from datasets import Dataset
    from transformers import AutoModelForCausalLM
    from trl import GRPOConfig, GRPOTrainer

    runner.setup(seed)

    def longer_is_better(completions, **kwargs):  # any reward that differs inside a group
        return [float(len(c[0]["content"])) for c in completions]

    prompts = Dataset.from_list([{"prompt": [{"role": "user", "content": f"Count to {i}."}]} for i in range(12)])
    args = runner.config(
        GRPOConfig, seed, num_generations=4, per_device_train_batch_size=4, max_completion_length=8, max_steps=2,
        **overrides,
    )
    model = AutoModelForCausalLM.from_pretrained(runner.model_path(seed))
    before = [p.detach().clone() for p in model.parameters()]
    trainer = GRPOTrainer(model=model, reward_funcs=longer_is_better, args=args, train_dataset=prompts)
    trainer.train()
    moved = sum((p.detach() - b).abs().sum().item() for p, b in zip(model.parameters(), before))
    keys = ("loss", "grad_norm", "reward", "kl")
    return {"weights_moved": moved, **{k: runner.history(trainer, k) for k in keys}}
# --8<-- [end:run]


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    # On-policy defaults: num_iterations=1, beta=0.0. loss_type="grpo" makes the cancellation exact
    # (the 1.16 default "dapo" cancels exactly only when all completions have the same length).
    return run_grpo(seed, loss_type="grpo")
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    # Nothing is broken, so the "fix" is what to read instead. If you want a loss that moves,
    # add the KL penalty: the logged loss then is ~beta * kl (the policy term still cancels).
    return run_grpo(seed, loss_type="grpo", beta=0.1)
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    bad, good = symptom(seed), fix(seed)
    # beta=0: the importance ratio is exactly 1 and advantages are group-centred -> loss is 0 up to rounding ...
    assert all(abs(x) < 1e-6 for x in bad["loss"]), f"expected loss ~0 with beta=0, got {bad['loss']}"
    # ... yet the gradient is not zero and the optimizer moves the weights.
    assert min(bad["grad_norm"]) > 0.0, f"expected a non-zero gradient, got grad_norm {bad['grad_norm']}"
    assert bad["weights_moved"] > 0.0, "the weights did not change: the loss=0 run should still train"
    assert bad["kl"] == [], "kl is only logged when beta > 0"
    # beta>0: step 1 is still 0 (policy == reference), later steps carry the KL term: loss ~ beta * kl > 0.
    assert abs(good["loss"][0]) < 1e-6 and good["kl"][0] == 0.0, f"step 1 should have kl 0: {good}"
    for loss, kl in zip(good["loss"][1:], good["kl"][1:]):
        assert kl > 0.0 and loss > 0.0, f"expected a positive KL term after step 1, got loss {loss}, kl {kl}"
        assert abs(loss - 0.1 * kl) <= 0.05 * 0.1 * kl + 1e-7, f"loss {loss} is not beta*kl = {0.1 * kl}"
    return (
        f"beta=0: loss {[f'{x:.1g}' for x in bad['loss']]} while grad_norm {[round(x, 2) for x in bad['grad_norm']]} "
        f"and reward {bad['reward']}; beta=0.1: loss {[f'{x:.2g}' for x in good['loss']]} = 0.1*kl"
    )
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
