"""DPO's default loss sums token log-ratios, so a pair's loss depends on answer
length; since TRL 1.4 the length-normalised options are loss_type
"sigmoid_norm"/"ipo" in DPOConfig, ld_alpha (LD-DPO), and SimPO in
trl.experimental.cpo. "simpo" is not a DPOConfig loss_type.

Page: docs/preference/dpo-length-bias-normalisation.md
中文: docs/preference/dpo-length-bias-normalisation.zh.md
"""

# --8<-- [start:symptom]
import torch
from trl import DPOConfig

# DPOConfig accepts it; DPOTrainer raises at the first loss computation
simpo_config = DPOConfig(loss_type="simpo", bf16=torch.cuda.is_available())
# --8<-- [end:symptom]


# --8<-- [start:fix]
dpo_config = DPOConfig(
    # or "ipo", or ld_alpha=0.5; SimPO itself: CPOConfig in trl.experimental.cpo
    loss_type="sigmoid_norm",
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

# 1 on a real model; the handbook's 2-layer test model
# needs ~300x the rate to move in a few steps
LR_SCALE = float(os.environ.get("HANDBOOK_LR_SCALE", "1"))

LONG = [  # each answer goes on for 25-31 tokens in its own words, no repeated text
    {
        "prompt": "What is the capital of France?",
        "chosen": " The capital of France is Paris. It lies on the Seine in the north "
        "of the country, and the French government has sat there for centuries.",
        "rejected": " I do not know. Geography was never my strong subject, and I "
        "would rather not guess at an answer that I cannot check right now.",
    },
    {
        "prompt": "Two plus two equals",
        "chosen": " four. Start at two and count two more steps: three, then four. So "
        "the sum of two and two is exactly four, every time.",
        "rejected": " nine maybe. It could also be seven or eleven, I am honestly not "
        "sure how adding small numbers works, so please check elsewhere.",
    },
    {
        "prompt": "Answer yes or no.",
        "chosen": " Yes. You asked for a single word and that word is yes; I will "
        "gladly explain the reasons behind it if you want more detail.",
        "rejected": " Maybe. I do not know. It depends on many things that you did not "
        "mention, so I cannot give you any firm answer either way.",
    },
    {
        "prompt": "Write a short poem about the sea.",
        "chosen": " The sea is wide, the waves are blue. The gulls call out above the "
        "foam, and every tide that turns at night brings driftwood home.",
        "rejected": " No. I would rather not write poems today, so please ask me about "
        "something else instead, perhaps a question about numbers.",
    },
]
# the same pairs cut after their first sentence (2-10 tokens)
SHORT = [
    {
        **row,
        "chosen": row["chosen"].split(". ")[0] + ".",
        "rejected": row["rejected"].split(". ")[0] + ".",
    }
    for row in LONG
]


def train(seed):
    """A few DPO steps on the long pairs, so the policy has
    moved away from its reference."""
    set_seed(seed)
    args = dataclasses.replace(
        dpo_config,
        # the default loss trains the policy; both losses then score the same policy
        loss_type=["sigmoid"],
        # 10x DPOConfig's default 1e-6, so that a 4-step check moves the model
        learning_rate=1e-5 * LR_SCALE,
        per_device_train_batch_size=4,
        max_steps=4,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
    )
    trainer = DPOTrainer(model=MODEL, args=args, train_dataset=Dataset.from_list(LONG))
    trainer.train()
    return trainer


def evaluate(trained, rows, config):
    """One evaluation pass of the trained policy against its
    reference, with the loss of `config`."""
    data = Dataset.from_list(rows)
    args = dataclasses.replace(config, per_device_eval_batch_size=4, save_strategy="no")
    trainer = DPOTrainer(
        model=trained.model,
        ref_model=trained.ref_model,
        args=args,
        train_dataset=data,
        eval_dataset=data,
    )
    trainer.evaluate()
    # TRL < 1.5 logs eval_rewards/* but evaluate() does not return them
    out = trainer.state.log_history[-1]
    return out["eval_loss"], out["eval_rewards/margins"]


def check(seed: int = 0) -> str:
    trained = train(seed)
    # the default loss
    summed_config = dataclasses.replace(dpo_config, loss_type=["sigmoid"])
    sum_short, sum_short_margin = evaluate(trained, SHORT, summed_config)
    sum_long, sum_long_margin = evaluate(trained, LONG, summed_config)
    norm_short, norm_short_margin = evaluate(trained, SHORT, dpo_config)
    norm_long, norm_long_margin = evaluate(trained, LONG, dpo_config)

    assert (norm_short_margin, norm_long_margin) == (
        sum_short_margin,
        sum_long_margin,
    ), "claim: rewards/margins is logged from summed log-ratios whatever the loss type"
    assert abs(sum_long_margin) > 2 * abs(sum_short_margin), (
        "claim: the summed margin grows with answer length, "
        f"{sum_short_margin:.3f} -> {sum_long_margin:.3f}"
    )
    moved_sum, moved_norm = abs(sum_long - sum_short), abs(norm_long - norm_short)
    assert moved_sum > 5 * moved_norm, (
        "claim: length moves the sigmoid loss far more than sigmoid_norm, "
        f"{moved_sum:.4f} vs {moved_norm:.4f}"
    )
    assert abs(norm_long - math.log(2)) < abs(sum_long - math.log(2)), (
        "claim: sigmoid_norm stays closer to ln 2"
    )

    assert "simpo" in CPOConfig.__dataclass_fields__["loss_type"].metadata["choices"], (
        "claim: SimPO is a CPOConfig loss"
    )
    assert (
        "simpo" not in DPOConfig.__dataclass_fields__["loss_type"].metadata["help"]
    ), "claim: not a DPOConfig loss"
    assert "ld_alpha" in {f.name for f in dataclasses.fields(DPOConfig)}, (
        "claim: ld_alpha is a DPOConfig field"
    )
    try:
        evaluate(trained, SHORT[:2], simpo_config)
    except ValueError as e:
        error = str(e)
    else:
        error = ""
    assert error.startswith("Unknown loss type: simpo"), (
        f"claim: DPOTrainer rejects 'simpo' at the loss, got {error!r}"
    )
    return (
        "first sentence -> whole answer: sigmoid loss "
        f"{sum_short:.4f}->{sum_long:.4f}, sigmoid_norm "
        f"{norm_short:.4f}->{norm_long:.4f}, margins "
        f"{sum_short_margin:.3f}->{sum_long_margin:.3f} for "
        "both; loss_type='simpo': ValueError"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
