"""Every completion hits max_completion_length: clipped_ratio 1.0, reward 0, no learning signal.

Page: docs/online-rl/grpo-all-completions-clipped.md (中文: docs/online-rl/grpo-all-completions-clipped.zh.md)
Run:  python snippets/online-rl/grpo-all-completions-clipped.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# training runs cost > 1 s per seed, so the suite runs two seeds (seeds 0-2 pass; re-checked 2026-12-02)
SEEDS = (0, 1)

ANSWER_TOKENS = 10  # the stand-in policy needs 10 tokens before it can end its answer


# --8<-- [start:run]
def run_grpo(max_completion_length: int, seed: int = 0, **overrides) -> dict:
    """Two GRPO steps with a policy whose answers need ANSWER_TOKENS tokens before EOS."""
    from datasets import Dataset
    from transformers import AutoTokenizer
    from trl import GRPOConfig, GRPOTrainer

    runner.setup(seed)
    eos = AutoTokenizer.from_pretrained(runner.model_path(seed)).eos_token_id

    def finished_answer(completions, completion_ids, **kwargs):
        # Stand-in for an accuracy check: an answer cut off before its end can never be right.
        return [1.0 if ids and ids[-1] == eos else 0.0 for ids in completion_ids]

    prompts = Dataset.from_list([{"prompt": [{"role": "user", "content": f"Count to {i}."}]} for i in range(8)])
    args = runner.config(
        GRPOConfig, seed, num_generations=4, per_device_train_batch_size=4, max_steps=2,
        max_completion_length=max_completion_length,
        # The tiny model is random, so we script its length: no EOS before ANSWER_TOKENS tokens, then EOS is likely.
        generation_kwargs={"min_new_tokens": ANSWER_TOKENS, "sequence_bias": [[[eos], 6.0]]},
        **overrides,
    )
    trainer = GRPOTrainer(model=runner.model_path(seed), reward_funcs=finished_answer, args=args, train_dataset=prompts)
    trainer.train()
    keys = ("completions/clipped_ratio", "completions/mean_length", "completions/mean_terminated_length",
            "reward", "frac_reward_zero_std", "grad_norm", "loss")
    return {k: runner.history(trainer, k) for k in keys}
# --8<-- [end:run]


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    return run_grpo(max_completion_length=8, seed=seed)  # shorter than any finished answer
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    # Give the answers room to finish. Check completions/clipped_ratio before tuning anything else.
    return run_grpo(max_completion_length=24, seed=seed)
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    from trl import GRPOConfig

    defaults = runner.config(GRPOConfig, seed, num_generations=2)  # fast settings; these two fields keep TRL defaults
    assert defaults.max_completion_length == 512, "TRL 1.16 default max_completion_length is 512 (was 256)"
    assert defaults.mask_truncated_completions is False, "truncated completions are trained on by default"

    bad, good = symptom(seed), fix(seed)
    assert bad["completions/clipped_ratio"] == [1.0, 1.0], f"expected every completion clipped: {bad}"
    assert bad["completions/mean_length"] == [8.0, 8.0] and bad["completions/mean_terminated_length"] == [0.0, 0.0]
    assert bad["reward"] == [0.0, 0.0] and bad["frac_reward_zero_std"] == [1.0, 1.0]
    assert max(bad["grad_norm"]) == 0.0, "all-zero rewards give zero advantages, hence no gradient"
    assert max(good["completions/clipped_ratio"]) <= 0.25, f"the longer budget should end most answers: {good}"
    assert min(good["reward"]) >= 0.75, f"finished answers should now be scored: {good['reward']}"
    assert min(good["completions/mean_terminated_length"]) > ANSWER_TOKENS
    return (
        f"max_completion_length=8: clipped_ratio {bad['completions/clipped_ratio']}, reward {bad['reward']}, "
        f"grad_norm {bad['grad_norm']}; 24: clipped_ratio {good['completions/clipped_ratio']}, "
        f"reward {good['reward']}, mean_length {good['completions/mean_length']}"
    )
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
