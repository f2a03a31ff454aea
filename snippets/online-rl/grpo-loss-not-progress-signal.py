"""GRPO's logged `loss` is ~0 on-policy (beta=0) even though the model trains;
with beta>0 it is the KL term.

Page: docs/online-rl/grpo-loss-not-progress-signal.md
中文: docs/online-rl/grpo-loss-not-progress-signal.zh.md
"""

# --8<-- [start:fix]
import torch
from trl import GRPOConfig

# Nothing is broken: watch reward, reward_std, frac_reward_zero_std and
# grad_norm instead of loss. If you want a loss that moves, add the KL penalty:
# the logged loss then is about beta * kl.
grpo_config = GRPOConfig(
    beta=0.04,
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os

import transformers
from datasets import Dataset
from packaging.version import Version
from transformers import AutoModelForCausalLM, set_seed
from trl import GRPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")


def longer_is_better(completions, **kwargs):
    """Any reward that differs inside a group."""
    return [float(len(completion[0]["content"])) for completion in completions]


WATCH = ("reward", "reward_std", "frac_reward_zero_std", "grad_norm")


def train(seed, **changes):
    """Two GRPO steps; return the logged metrics and how far the weights moved."""
    set_seed(seed)
    prompts = Dataset.from_list(
        [{"prompt": [{"role": "user", "content": f"Count to {i}."}]} for i in range(12)]
    )
    args = dataclasses.replace(
        grpo_config,
        # On-policy defaults (num_iterations=1). loss_type="grpo" makes the
        # cancellation exact; the default "dapo" cancels exactly only when all
        # completions have the same length.
        loss_type="grpo",
        num_generations=4,
        per_device_train_batch_size=4,
        # GRPOConfig derived it from the old batch size: let it derive it again
        generation_batch_size=None,
        max_completion_length=8,
        max_steps=2,
        # far above a real run's 1e-6: two CPU steps must move the weights measurably
        learning_rate=1e-3,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        **changes,
    )
    model = AutoModelForCausalLM.from_pretrained(MODEL)
    before = [p.detach().cpu().clone() for p in model.parameters()]
    trainer = GRPOTrainer(
        model=model, reward_funcs=longer_is_better, args=args, train_dataset=prompts
    )
    trainer.train()
    moved = sum(
        (p.detach().cpu().float() - b.float()).abs().sum().item()
        for p, b in zip(model.parameters(), before)
    )
    logs = {
        k: [row[k] for row in trainer.state.log_history if k in row]
        for k in ("loss", "kl") + WATCH
    }
    return {"weights_moved": moved, **logs}


def check(seed: int = 0) -> str:
    bad = train(seed, beta=0.0)  # the default
    assert all(abs(x) < 1e-6 for x in bad["loss"]), (
        f"claim: with beta=0 the logged loss is ~0, got {bad['loss']}"
    )
    assert min(bad["grad_norm"]) > 0.0, (
        f"claim: the gradient is not zero, got grad_norm {bad['grad_norm']}"
    )
    assert bad["weights_moved"] > 0.0, (
        "claim: the weights change although the loss reads 0"
    )
    assert bad["kl"] == [], "claim: kl is only logged when beta > 0"

    good = train(seed)  # beta=0.04
    beta = grpo_config.beta
    assert abs(good["loss"][0]) < 1e-6 and abs(good["kl"][0]) < 1e-6, (
        f"claim: step 1 has kl 0: {good}"
    )
    loss, kl = good["loss"][1], good["kl"][1]
    assert kl > 0.0, f"claim: after step 1 the KL term is positive: kl {kl}"
    # 4.x logs the loss rounded to 4 decimals
    if Version(transformers.__version__) < Version("5.0"):
        assert loss == round(beta * kl, 4), (
            f"claim: the logged loss is beta * kl, rounded: {loss} vs {beta * kl}"
        )
    else:
        assert abs(loss - beta * kl) <= 0.05 * beta * kl, (
            f"claim: the logged loss is beta * kl: {loss} vs {beta * kl}"
        )
    return (
        f"beta=0: loss {[f'{x:.1g}' for x in bad['loss']]} while grad_norm "
        f"{[round(x, 2) for x in bad['grad_norm']]} and reward {bad['reward']}; "
        f"beta={beta}: loss {[f'{x:.2g}' for x in good['loss']]} = {beta} * kl "
        f"{[f'{x:.2g}' for x in good['kl']]}"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
