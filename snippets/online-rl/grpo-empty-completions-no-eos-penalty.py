"""GRPO rollouts shrink to empty strings: the reward makes stopping at once optimal; GRPOConfig has no missing_eos_penalty.

Page: docs/online-rl/grpo-empty-completions-no-eos-penalty.md (中文: docs/online-rl/grpo-empty-completions-no-eos-penalty.zh.md)
Run:  python snippets/online-rl/grpo-empty-completions-no-eos-penalty.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment
from handbook import toydata

# training runs cost > 1 s per seed, so the suite runs two seeds (seeds 0-2 pass; re-checked 2026-12-02)
SEEDS = (0, 1)


# --8<-- [start:run]
def eos_prone_policy(seed: int = 0):
    """The tiny model with a +3 logit bias on EOS: like a model that sometimes stops right away (tiny only)."""
    import torch

    model, tokenizer = runner.load(seed)
    if runner.is_tiny():
        old = model.lm_head
        head = torch.nn.Linear(old.in_features, old.out_features, bias=True)
        with torch.no_grad():
            head.weight.copy_(old.weight)
            head.bias.zero_()
            head.bias[tokenizer.eos_token_id] = 3.0
        model.config.tie_word_embeddings = False
        model.lm_head = head
    return model, tokenizer


def run_grpo(reward_func, seed: int = 0, **overrides) -> dict:
    from trl import GRPOConfig, GRPOTrainer

    model, tokenizer = eos_prone_policy(seed)
    runner.setup(seed)
    data = toydata.chat_prompts()  # 8 short chat prompts
    args = runner.config(GRPOConfig, seed, num_generations=8, per_device_train_batch_size=8,
                         max_completion_length=8, max_steps=6,
                         learning_rate=3e-2 if runner.is_tiny() else 1e-5, lr_scheduler_type="constant",
                         **overrides)
    trainer = GRPOTrainer(model=model, processing_class=tokenizer, reward_funcs=reward_func, args=args,
                          train_dataset=data)
    trainer.train()
    keys = ("completions/mean_length", "completions/min_length", "completions/clipped_ratio")
    return {k: runner.history(trainer, k) for k in keys}
# --8<-- [end:run]


# --8<-- [start:symptom]
def penalty_only(completion_ids, **kwargs):
    """Minus one per 'bad' token (id >= 64). An empty answer has no bad tokens, so it scores best."""
    return [-float(sum(t >= 64 for t in ids)) for ids in completion_ids]


def symptom(seed: int = 0) -> dict:
    return run_grpo(penalty_only, seed)
# --8<-- [end:symptom]


# --8<-- [start:fix]
def share_of_good(completion_ids, eos_id: int = 2, **kwargs):
    """Score the share of good tokens in the answer; an empty answer scores 0, never the maximum."""
    out = []
    for ids in completion_ids:
        body = [t for t in ids if t != eos_id]
        out.append(sum(t < 64 for t in body) / len(body) if body else 0.0)
    return out


def fix(seed: int = 0) -> dict:
    return run_grpo(share_of_good, seed)
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    import dataclasses

    from trl import GRPOConfig

    names = {f.name for f in dataclasses.fields(GRPOConfig)}
    assert "missing_eos_penalty" not in names, "GRPOConfig gained missing_eos_penalty"
    assert "mask_truncated_completions" in names and GRPOConfig.mask_truncated_completions is False
    try:
        runner.config(GRPOConfig, seed, missing_eos_penalty=1.0)
        raise AssertionError("GRPOConfig accepted missing_eos_penalty")
    except TypeError:
        pass
    bad, good = symptom(seed), fix(seed)
    mean_bad, mean_good = bad["completions/mean_length"], good["completions/mean_length"]
    assert mean_bad[-1] < mean_bad[0] - 2, f"penalty-only reward should shrink completions: {mean_bad}"
    assert min(bad["completions/min_length"]) == 1, "some completion should be EOS only (an empty string)"
    assert mean_good[-1] > mean_bad[-1] + 2, f"share-of-good reward should keep answers long: {mean_good}"
    return (f"penalty-only reward: completions/mean_length {mean_bad[0]} -> {mean_bad[-1]}; "
            f"share-of-good reward: -> {mean_good[-1]}")
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
