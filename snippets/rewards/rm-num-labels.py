"""A reward model with num_labels=2: RewardTrainer refuses it since TRL 0.29; load
with num_labels=1 or pass a path.

Page: docs/rewards/rm-num-labels.md
中文: docs/rewards/rm-num-labels.zh.md
"""

# --8<-- [start:symptom]
import os

import torch
from datasets import Dataset
from transformers import AutoModelForSequenceClassification, AutoTokenizer
from trl import RewardConfig, RewardTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

pairs = Dataset.from_list(
    [
        {
            "prompt": [{"role": "user", "content": "Answer me."}],
            "chosen": [{"role": "assistant", "content": "Yes."}],
            "rejected": [{"role": "assistant", "content": "No."}],
        }
    ]
    * 4
)
args = RewardConfig(bf16=torch.cuda.is_available())
tokenizer = AutoTokenizer.from_pretrained(MODEL)


def build_with_default_head():
    """AutoModelForSequenceClassification without num_labels: a 2-class
    head. Returns the error, if any."""
    model = AutoModelForSequenceClassification.from_pretrained(MODEL)
    try:
        RewardTrainer(
            model=model, args=args, processing_class=tokenizer, train_dataset=pairs
        )
    except ValueError as error:
        return model.config.num_labels, error
    return model.config.num_labels, None


# --8<-- [end:symptom]


# --8<-- [start:fix]
# Either load the model with one output ...
model = AutoModelForSequenceClassification.from_pretrained(MODEL, num_labels=1)
trainer = RewardTrainer(
    model=model, args=args, processing_class=tokenizer, train_dataset=pairs
)
# ... or pass the path and let RewardTrainer load it with num_labels=1.
trainer_from_path = RewardTrainer(model=MODEL, args=args, train_dataset=pairs)
# --8<-- [end:fix]


# --8<-- [start:evidence]
def check(seed: int = 0) -> str:
    num_labels, error = build_with_default_head()
    assert num_labels == 2, (
        f"claim: transformers' default head has 2 labels, got {num_labels}"
    )
    assert error is not None, "claim: RewardTrainer refuses a model with num_labels=2"
    assert "reward models require `num_labels=1`" in str(error), (
        f"claim: the error names the cause, got {error}"
    )
    outputs = {
        "explicit": trainer.model.config.num_labels,
        "from_path": trainer_from_path.model.config.num_labels,
    }
    assert outputs == {"explicit": 1, "from_path": 1}, (
        f"claim: both fixes give one output per sequence, {outputs}"
    )
    rewards = trainer_from_path.model(**tokenizer(["Yes."], return_tensors="pt")).logits
    assert rewards.shape == (1, 1), (
        "claim: the model built from a path returns one "
        f"scalar, got {tuple(rewards.shape)}"
    )
    return (
        f"num_labels=2 -> ValueError ({str(error)[:60]}...); num_labels=1 or a "
        "path -> one scalar per sequence"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
