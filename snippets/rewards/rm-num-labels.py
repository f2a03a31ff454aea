"""A reward model with num_labels=2: RewardTrainer refuses it in TRL 1.16; load with num_labels=1 or pass a path.

Page: docs/rewards/rm-num-labels.md (中文: docs/rewards/rm-num-labels.zh.md)
Run:  python snippets/rewards/rm-num-labels.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# trainer construction only (~0.3 s per seed)
SEEDS = (0, 1, 2)


def pairs():
    from datasets import Dataset

    return Dataset.from_list([{"prompt": [{"role": "user", "content": "Answer me."}],
                               "chosen": [{"role": "assistant", "content": "Yes."}],
                               "rejected": [{"role": "assistant", "content": "No."}]}] * 4)


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    """The default of AutoModelForSequenceClassification is a 2-class classifier head."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer
    from trl import RewardConfig, RewardTrainer

    runner.setup(seed)
    path = runner.model_path(seed)
    model = AutoModelForSequenceClassification.from_pretrained(path)  # num_labels not given -> 2
    try:
        RewardTrainer(model=model, args=runner.config(RewardConfig, seed),
                      processing_class=AutoTokenizer.from_pretrained(path), train_dataset=pairs())
        return {"num_labels": model.config.num_labels, "error": None}
    except ValueError as e:
        return {"num_labels": model.config.num_labels, "error": str(e)}
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """Either load the model with num_labels=1, or give RewardTrainer the path and let it set num_labels=1."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer
    from trl import RewardConfig, RewardTrainer

    runner.setup(seed)
    path = runner.model_path(seed)
    explicit = AutoModelForSequenceClassification.from_pretrained(path, num_labels=1)
    t1 = RewardTrainer(model=explicit, args=runner.config(RewardConfig, seed),
                       processing_class=AutoTokenizer.from_pretrained(path), train_dataset=pairs())
    t2 = RewardTrainer(model=path, args=runner.config(RewardConfig, seed), train_dataset=pairs())
    return {"explicit": t1.model.score.out_features, "from_path": t2.model.score.out_features,
            "from_path_num_labels": t2.model.config.num_labels}
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    bad, good = symptom(seed), fix(seed)
    assert bad["num_labels"] == 2, "transformers' default head changed"
    assert bad["error"] and "reward models require `num_labels=1`" in bad["error"], bad
    assert good == {"explicit": 1, "from_path": 1, "from_path_num_labels": 1}, good
    return f"num_labels=2 -> ValueError ({bad['error'][:60]}...); num_labels=1 or a path -> one scalar per sequence"
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
