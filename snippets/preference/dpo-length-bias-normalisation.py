"""DPO's default loss sums token log-ratios, so a pair's loss depends on answer length; since TRL 1.4 the
length-normalised options are loss_type "sigmoid_norm"/"ipo" in DPOConfig, ld_alpha (LD-DPO), and SimPO in
trl.experimental.cpo. "simpo" is not a DPOConfig loss_type.

Page: docs/preference/dpo-length-bias-normalisation.md (中文: docs/preference/dpo-length-bias-normalisation.zh.md)
"""

# --8<-- [start:symptom]
import torch
from trl import DPOConfig

# DPOConfig accepts it; DPOTrainer raises at the first loss computation
simpo_config = DPOConfig(loss_type="simpo", bf16=torch.cuda.is_available())
# --8<-- [end:symptom]


# --8<-- [start:fix]
dpo_config = DPOConfig(
    loss_type="sigmoid_norm",  # or "ipo", or ld_alpha=0.5; SimPO itself: CPOConfig in trl.experimental.cpo
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import math
import os

from datasets import Dataset
from transformers import set_seed
from trl import DPOTrainer
from trl.experimental.cpo import CPOConfig

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

SHORT = [
    {
        "prompt": "What is the capital of France?",
        "chosen": " The capital of France is Paris.",
        "rejected": " I do not know.",
    },
    {"prompt": "Two plus two equals", "chosen": " four.", "rejected": " nine maybe."},
    {"prompt": "Answer yes or no.", "chosen": " Yes.", "rejected": " Maybe. I do not know."},
    {
        "prompt": "Write a short poem about the sea.",
        "chosen": " The sea is wide, the waves are blue.",
        "rejected": " No.",
    },
]
LONG = [{**row, "chosen": row["chosen"] * 4, "rejected": row["rejected"] * 4} for row in SHORT]  # same text, 4x


def train(seed):
    """A few DPO steps on the short pairs, so the policy has moved away from its reference."""
    set_seed(seed)
    args = dataclasses.replace(
        dpo_config,
        loss_type=["sigmoid"],  # the default loss trains the policy; both losses then score the same policy
        learning_rate=1e-5,  # 10x DPOConfig's default 1e-6, so that a 4-step check moves the model
        per_device_train_batch_size=4,
        max_steps=4,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
    )
    trainer = DPOTrainer(model=MODEL, args=args, train_dataset=Dataset.from_list(SHORT))
    trainer.train()
    return trainer


def evaluate(trained, rows, config):
    """One evaluation pass of the trained policy against its reference, with the loss of `config`."""
    data = Dataset.from_list(rows)
    args = dataclasses.replace(config, per_device_eval_batch_size=4, save_strategy="no")
    trainer = DPOTrainer(
        model=trained.model, ref_model=trained.ref_model, args=args, train_dataset=data, eval_dataset=data
    )
    trainer.evaluate()
    out = trainer.state.log_history[-1]  # TRL < 1.5 logs eval_rewards/* but evaluate() does not return them
    return out["eval_loss"], out["eval_rewards/margins"]


def check(seed: int = 0) -> str:
    trained = train(seed)
    summed_config = dataclasses.replace(dpo_config, loss_type=["sigmoid"])  # the default loss
    sum_short, sum_short_margin = evaluate(trained, SHORT, summed_config)
    sum_long, sum_long_margin = evaluate(trained, LONG, summed_config)
    norm_short, norm_short_margin = evaluate(trained, SHORT, dpo_config)
    norm_long, norm_long_margin = evaluate(trained, LONG, dpo_config)

    assert (norm_short_margin, norm_long_margin) == (sum_short_margin, sum_long_margin), (
        "claim: rewards/margins is logged from summed log-ratios whatever the loss type"
    )
    assert abs(sum_long_margin) > 2 * abs(sum_short_margin), (
        f"claim: the summed margin grows with length, {sum_short_margin:.3f} -> {sum_long_margin:.3f}"
    )
    moved_sum, moved_norm = abs(sum_long - sum_short), abs(norm_long - norm_short)
    assert moved_sum > 5 * moved_norm, (
        f"claim: length moves the sigmoid loss far more than sigmoid_norm, {moved_sum:.4f} vs {moved_norm:.4f}"
    )
    assert abs(norm_long - math.log(2)) < abs(sum_long - math.log(2)), "claim: sigmoid_norm stays closer to ln 2"

    assert "simpo" in CPOConfig.__dataclass_fields__["loss_type"].metadata["choices"], (
        "claim: SimPO is a CPOConfig loss"
    )
    assert "simpo" not in DPOConfig.__dataclass_fields__["loss_type"].metadata["help"], "claim: not a DPOConfig loss"
    assert "ld_alpha" in {f.name for f in dataclasses.fields(DPOConfig)}, "claim: ld_alpha is a DPOConfig field"
    try:
        evaluate(trained, SHORT[:2], simpo_config)
    except ValueError as e:
        error = str(e)
    else:
        error = ""
    assert error.startswith("Unknown loss type: simpo"), f"claim: DPOTrainer rejects 'simpo' at the loss, got {error!r}"
    return (
        f"x4 length: sigmoid loss {sum_short:.4f}->{sum_long:.4f}, sigmoid_norm {norm_short:.4f}->{norm_long:.4f}, "
        f"margins {sum_short_margin:.3f}->{sum_long_margin:.3f} for both; loss_type='simpo': ValueError"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
