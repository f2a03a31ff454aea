"""How each GRPO loss_type weights the tokens of short vs long completions (the length bias behind shrinking answers).

Page: docs/online-rl/grpo-length-bias-loss-type.md (中文: docs/online-rl/grpo-length-bias-loss-type.zh.md)
Run:  python snippets/online-rl/grpo-length-bias-loss-type.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# no training: one loss evaluation per loss_type (~0.2 s)
SEEDS = (0, 1, 2)

LENGTHS = (2, 8, 2, 8)  # one group: short right, long right, short wrong, long wrong
ADVANTAGES = (1.0, 1.0, -1.0, -1.0)
MAX_COMPLETION_LENGTH = 8


# --8<-- [start:weights]
def token_weights(loss_type: str, seed: int = 0) -> list[float]:
    """d(loss)/d(log-prob of one token) for each completion, read from TRL's own GRPOTrainer._compute_loss.

    On-policy (ratio 1) every token's gradient is -advantage x (the weight the loss aggregation gives it),
    so this is exactly how strongly each token of each completion is pushed up or down.
    """
    import torch
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    runner.setup(seed)
    args = runner.config(
        GRPOConfig, seed, num_generations=4, per_device_train_batch_size=4,
        max_completion_length=MAX_COMPLETION_LENGTH, loss_type=loss_type,
    )
    prompts = Dataset.from_list([{"prompt": "Hi"}] * 4)
    trainer = GRPOTrainer(model=runner.model_path(seed), reward_funcs=lambda completions, **kw: [0.0] * len(completions),
                          args=args, train_dataset=prompts)
    trainer.model.eval()  # evaluation mode: no gradient-accumulation scaling; the aggregation is the same

    n, t = len(LENGTHS), MAX_COMPLETION_LENGTH
    mask = torch.tensor([[1] * length + [0] * (t - length) for length in LENGTHS])
    logps = torch.zeros(n, t, requires_grad=True)  # stand-in log-probs; only their gradient matters
    trainer._get_per_token_logps_and_entropies = lambda *a, **k: (logps, torch.zeros(n, t), None)
    inputs = {
        "prompt_ids": torch.ones(n, 1, dtype=torch.long), "prompt_mask": torch.ones(n, 1, dtype=torch.long),
        "completion_ids": torch.ones(n, t, dtype=torch.long), "completion_mask": mask,
        "advantages": torch.tensor(ADVANTAGES), "num_items_in_batch": mask.sum(),
    }
    trainer._compute_loss(trainer.model, inputs).backward()
    return [-logps.grad[i, 0].item() / ADVANTAGES[i] for i in range(n)]  # per-token weight, sign removed
# --8<-- [end:weights]


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    return {"grpo": token_weights("grpo", seed)}  # per-sequence mean: 1 / (G x |o_i|)
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    # TRL 1.16's default is already "dapo"; "dr_grpo" and "bnpo" are also length-neutral per token.
    return {lt: token_weights(lt, seed) for lt in ("dapo", "dr_grpo", "bnpo")}
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    import math

    bad, good = symptom(seed), fix(seed)
    defaults = runner.config(__import__("trl").GRPOConfig, seed, num_generations=2)
    assert defaults.loss_type == "dapo", f"TRL 1.16 default loss_type is 'dapo', got {defaults.loss_type!r}"
    g = bad["grpo"]
    # grpo: each token of a 2-token completion weighs 4x a token of an 8-token one (1/8 vs 1/32) ...
    assert math.isclose(g[0], 1 / (4 * 2), rel_tol=1e-5) and math.isclose(g[1], 1 / (4 * 8), rel_tol=1e-5), g
    assert math.isclose(g[0] / g[1], 4.0, rel_tol=1e-5), g
    # ... so a long wrong answer is penalised 4x less per token than a short wrong one.
    assert math.isclose(g[3] / g[2], 0.25, rel_tol=1e-5), g
    # dapo / bnpo: 1 / (tokens in the batch) = 1/20 for every token; dr_grpo: 1 / (G x max_completion_length) = 1/32.
    for lt, w in good.items():
        assert max(w) - min(w) < 1e-7, f"{lt} should weigh every token the same, got {w}"
    assert math.isclose(good["dapo"][0], 1 / 20, rel_tol=1e-5) and math.isclose(good["bnpo"][0], 1 / 20, rel_tol=1e-5)
    assert math.isclose(good["dr_grpo"][0], 1 / 32, rel_tol=1e-5), good["dr_grpo"]
    return (
        f"per-token weight (short, long, short, long): grpo {[round(x, 4) for x in g]}; "
        + "; ".join(f"{lt} {[round(x, 4) for x in w]}" for lt, w in good.items())
    )
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
