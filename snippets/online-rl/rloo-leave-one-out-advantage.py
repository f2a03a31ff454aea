"""RLOO after the rewrite: old rloo_k / kl_coef arguments fail; advantage = reward minus
the mean of the OTHER samples.

Page: docs/online-rl/rloo-leave-one-out-advantage.md
中文: docs/online-rl/rloo-leave-one-out-advantage.zh.md
"""

# --8<-- [start:fix]
import torch
from trl import RLOOConfig

# Pre-0.25 RLOO -> current RLOO: rloo_k is now num_generations, kl_coef is now
# beta (a KL penalty on the reward).
rloo_config = RLOOConfig(
    num_generations=4,  # was rloo_k=4
    beta=0.05,  # was kl_coef=0.05
    bf16=torch.cuda.is_available(),
)
# Advantages are not divided by the std: pick the reward scale knowingly, or
# add normalize_advantages=True.
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import math
import os

from datasets import Dataset
from transformers import set_seed
from trl import RLOOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")


def config_error(**kwargs):
    """Build an RLOOConfig; return the error it raised ('Type: message'), or None."""
    try:
        RLOOConfig(bf16=torch.cuda.is_available(), **kwargs)
    except (TypeError, ValueError) as e:
        return f"{type(e).__name__}: {e}"
    return None


class RecordingRLOOTrainer(RLOOTrainer):
    """RLOOTrainer that also keeps every advantage it
    computes; it changes nothing else."""

    def _generate_and_score_completions(self, inputs):
        out = super()._generate_and_score_completions(inputs)
        self.advantages.extend(out["advantages"].flatten().tolist())
        return out


def first_step(seed):
    """One RLOO step, 4 completions of one prompt, reward = number of characters;
    return rewards, advantages, logs."""
    set_seed(seed)
    rewards = []

    def chars(completions, **kwargs):
        scores = [float(len(completion[0]["content"])) for completion in completions]
        rewards.extend(scores)
        return scores

    prompts = Dataset.from_list(
        [{"prompt": [{"role": "user", "content": f"Count to {i}."}]} for i in range(4)]
    )
    args = dataclasses.replace(  # the Fix's config, sized for one CPU step
        rloo_config,
        per_device_train_batch_size=4,  # one group of 4
        # RLOOConfig derived it from the old batch size: let it derive it again
        generation_batch_size=None,
        max_completion_length=8,
        max_steps=1,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
    )
    trainer = RecordingRLOOTrainer(
        model=MODEL, reward_funcs=chars, args=args, train_dataset=prompts
    )
    trainer.advantages = []
    trainer.train()
    return rewards, trainer.advantages, trainer.state.log_history[0]


def check(seed: int = 0) -> str:
    rloo_k, kl_coef = config_error(rloo_k=4), config_error(kl_coef=0.05)
    assert rloo_k and rloo_k.startswith("TypeError") and "'rloo_k'" in rloo_k, (
        f"claim: rloo_k is rejected: {rloo_k}"
    )
    assert kl_coef and kl_coef.startswith("TypeError") and "'kl_coef'" in kl_coef, (
        f"claim: kl_coef is rejected: {kl_coef}"
    )
    one = config_error(num_generations=1, per_device_train_batch_size=4)
    assert (one or "").startswith(
        "ValueError: RLOO requires at least 2 generations per prompt"
    ), f"claim: {one}"
    defaults = RLOOConfig(bf16=torch.cuda.is_available())
    assert defaults.beta == 0.05, (
        f"claim: RLOO's KL coefficient beta defaults to 0.05, got {defaults.beta}"
    )
    assert defaults.normalize_advantages is False, (
        "claim: RLOO does not normalise advantages by default"
    )

    r, a, logged = first_step(seed)
    assert len(r) == len(a) == 4, f"one group of 4: {r}, {a}"
    # At step 1 the policy equals the reference, so the KL penalty is 0 and the
    # advantage is pure leave-one-out.
    for i in range(4):
        others = [r[j] for j in range(4) if j != i]
        assert math.isclose(a[i], r[i] - sum(others) / 3, abs_tol=1e-4), (
            f"claim: A_i = r_i - mean(others): {r}, {a}"
        )
    mean = sum(r) / 4
    assert all(
        math.isclose(ai, 4 / 3 * (ri - mean), abs_tol=1e-4) for ai, ri in zip(a, r)
    ), f"claim: advantages are 4/3 x (r - mean), not divided by the std: {r}, {a}"
    assert "kl" in logged and "reward" in logged, (
        f"claim: RLOO logs kl by default: {sorted(logged)}"
    )
    return (
        f"rewards {r} -> advantages {[round(x, 3) for x in a]} (r - mean of the other "
        "3); rloo_k, kl_coef: TypeError"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed (one training run per seed)

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
