"""A random test split of templated prompts shares templates with training and reports a
far better loss than prompts written from templates the model never saw; split by
template to get the honest number.

Page: docs/dynamics/test-split-vs-deployment.md
中文: docs/dynamics/test-split-vs-deployment.zh.md
"""


# --8<-- [start:fix]
def split_by_group(dataset, column, test_groups):
    """Hold out whole groups (template, source, user,
    document), never single rows of a group."""
    test = dataset.filter(lambda row: row[column] in test_groups)
    train = dataset.filter(lambda row: row[column] not in test_groups)
    return train, test


# --8<-- [end:fix]


# --8<-- [start:evidence]
import os

import torch
from datasets import Dataset
from transformers import set_seed
from trl import SFTConfig, SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
# 1 on a real model; the handbook's 2-layer test model
# needs ~300x the rate to move in a few steps
LR_SCALE = float(os.environ.get("HANDBOOK_LR_SCALE", "1"))

# (question, answer): every row of a template is a near-duplicate of its siblings
TEMPLATES = [
    ("Where is {x} located?", "{x} is located on the map, near the coast."),
    ("Tell me about {x}.", "Here is a short note about {x}: it is well known."),
    ("Is {x} worth a visit?", "Yes, {x} is worth a visit in spring."),
    ("What is {x} famous for?", "{x} is famous for its old market."),
    ("How do I get to {x}?", "Take the train to {x} and walk from the station."),
    ("Describe {x} in one line.", "One line on {x}: quiet streets and good food."),
]
PLACES = ["Lyon", "Porto", "Kyoto", "Oslo", "Quito", "Cairo"]
# plain-text prompt and completion: short sequences keep a CPU check fast
ROWS = Dataset.from_list(
    [
        {
            "prompt": q.format(x=place) + "\n",
            "completion": a.format(x=place),
            "template": i,
        }
        for i, (q, a) in enumerate(TEMPLATES)
        for place in PLACES
    ]
)


def check(seed: int = 0) -> str:
    set_seed(seed)
    # two templates never trained on
    seen, unseen = split_by_group(ROWS, "template", test_groups={4, 5})
    # the usual random split of the rest
    shuffled = seen.train_test_split(test_size=0.25, seed=seed)
    args = SFTConfig(
        # a usual SFT rate for a small model; 12 steps are about 4 epochs here
        learning_rate=2e-5 * LR_SCALE,
        per_device_train_batch_size=6,
        per_device_eval_batch_size=12,
        max_steps=12,
        lr_scheduler_type="constant",
        eval_strategy="steps",  # both test sets, every 4 steps
        eval_steps=4,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    trainer = SFTTrainer(
        model=MODEL,
        args=args,
        train_dataset=shuffled["train"],
        eval_dataset={"random_split": shuffled["test"], "new_templates": unseen},
    )
    before = trainer.evaluate()
    trainer.train()
    after = trainer.evaluate()
    random_gain = before["eval_random_split_loss"] - after["eval_random_split_loss"]
    new_gain = before["eval_new_templates_loss"] - after["eval_new_templates_loss"]
    assert random_gain > 0.5, (
        f"claim: training lowers the loss on the random split: {before} -> {after}"
    )
    assert random_gain > new_gain + 0.5, (
        "claim: the random split improves far more than prompts from unseen "
        f"templates: {random_gain:.2f} vs {new_gain:.2f} nats"
    )
    return (
        f"eval loss before -> after {args.max_steps} steps: random split "
        f"{before['eval_random_split_loss']:.2f} -> "
        f"{after['eval_random_split_loss']:.2f}, held-out templates "
        f"{before['eval_new_templates_loss']:.2f} -> "
        f"{after['eval_new_templates_loss']:.2f}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
