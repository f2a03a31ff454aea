"""SFTTrainer takes no model_init: hyperparameter search needs a fresh SFTTrainer
(or a model SFTTrainer built) for every trial.

Page: docs/sft/model-init-hyperparameter-search.md
中文: docs/sft/model-init-hyperparameter-search.zh.md
"""

# --8<-- [start:fix]
import dataclasses
import os

import torch
from peft import LoraConfig
from trl import SFTConfig, SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
sft_config = SFTConfig(
    output_dir="sft-search",
    num_train_epochs=1,
    per_device_train_batch_size=8,
    learning_rate=2e-4,
    logging_steps=1,
    save_strategy="no",
    bf16=torch.cuda.is_available(),
)
peft_config = LoraConfig(r=16, lora_alpha=32, target_modules="all-linear")


def train_trial(learning_rate):
    # A new SFTTrainer per trial loads a fresh model and prepares it (LoRA,
    # pad/eos ids, its loss head) and re-reads every SFTConfig field
    trainer = SFTTrainer(
        model=MODEL,
        args=dataclasses.replace(sft_config, learning_rate=learning_rate),
        train_dataset=train_dataset,
        eval_dataset=eval_dataset,
        peft_config=peft_config,
    )
    trainer.train()
    return trainer


def objective(trial):
    # optuna: optuna.create_study(direction="minimize").optimize(objective, ...)
    learning_rate = trial.suggest_float("learning_rate", 1e-5, 1e-3, log=True)
    return train_trial(learning_rate).evaluate()["eval_loss"]


# --8<-- [end:fix]


# --8<-- [start:fix-search]
def model_init(trial):
    # trainer.hyperparameter_search calls this at the start of every trial; a
    # throwaway SFTTrainer builds the model the way SFTTrainer trains it
    return SFTTrainer(
        model=MODEL,
        args=sft_config,
        train_dataset=train_dataset,
        peft_config=peft_config,
    ).model


def search_trainer():
    sft_trainer = SFTTrainer(
        model=MODEL,
        args=sft_config,
        train_dataset=train_dataset,
        eval_dataset=eval_dataset,
        peft_config=peft_config,
    )
    sft_trainer.model_init = model_init
    return sft_trainer


# --8<-- [end:fix-search]

# --8<-- [start:evidence]
import math

from datasets import Dataset
from peft import PeftModel
from transformers import AutoModelForCausalLM, set_seed

PAIRS = [("What is 2 + 2?", "4"), ("Name a colour.", "Blue."), ("Say hi.", "Hi!")]
ROWS = [
    {
        "prompt": [{"role": "user", "content": q}],
        "completion": [{"role": "assistant", "content": a}],
    }
    for q, a in PAIRS * 3
]
train_dataset = Dataset.from_list(ROWS[:8])
eval_dataset = Dataset.from_list(ROWS[:4])
# two steps per trial keep the check short on a CPU
SHORT = dict(max_steps=2, per_device_train_batch_size=2, report_to="none")


def plain_init(trial):
    # what Trainer's docs suggest: return a freshly loaded model
    return AutoModelForCausalLM.from_pretrained(MODEL)


def error_of(call):
    try:
        call()
    except (TypeError, AttributeError) as error:
        return error
    return None


def trainable_share(model):
    params = list(model.parameters())
    trained = sum(p.numel() for p in params if p.requires_grad)
    return trained / sum(p.numel() for p in params)


def first_loss(trainer):
    return next(h["loss"] for h in trainer.state.log_history if "loss" in h)


class FixedTrial:
    """Stands in for optuna.Trial, so this page runs without optuna."""

    def __init__(self, learning_rate):
        self.learning_rate = learning_rate

    def suggest_float(self, name, low, high, log=False):
        return self.learning_rate


def check(seed: int = 0) -> str:
    global sft_config
    set_seed(seed)
    sft_config = dataclasses.replace(sft_config, seed=seed, **SHORT)
    data = dict(args=sft_config, train_dataset=train_dataset)

    # Trainer's recipe (model=None, model_init=...) fails in SFTTrainer.__init__
    error = error_of(lambda: SFTTrainer(model=None, model_init=plain_init, **data))
    assert isinstance(error, TypeError) and (
        "unexpected keyword argument 'model_init'" in str(error)
    ), f"claim: SFTTrainer has no model_init argument: {error!r}"
    error_none = error_of(lambda: SFTTrainer(model=None, **data))
    assert isinstance(error_none, AttributeError) and (
        "'NoneType' object has no attribute" in str(error_none)
    ), f"claim: SFTTrainer needs a model: {error_none!r}"

    # Setting model_init afterwards: the plain model skips SFTTrainer's preparation
    naive = SFTTrainer(model=MODEL, peft_config=peft_config, **data)
    naive.model_init = plain_init
    error_naive = error_of(naive.train)
    if error_naive is not None:  # TRL >= 1.7: it lacks SFTTrainer's loss head
        assert isinstance(error_naive, AttributeError) and (
            "'CausalLMOutputWithPast' object has no attribute" in str(error_naive)
        ), f"claim: the plain model fails SFTTrainer's loss: {error_naive!r}"
        assert naive.state.global_step == 0, "claim: it fails before the first step"
        naive_result = str(error_naive)
    else:  # TRL <= 1.6: it trains every weight, without the LoRA adapters
        assert not isinstance(naive.model, PeftModel), "claim: LoRA was dropped"
        assert trainable_share(naive.model) == 1.0, "claim: every weight trains"
        naive_result = "trained all weights without LoRA"

    # Fix 1: one SFTTrainer per trial
    low, high = train_trial(1e-5), train_trial(1e-3)
    for trainer in (low, high):
        assert trainer.state.global_step == 2, "claim: each trial trains"
        assert isinstance(trainer.model, PeftModel), "claim: with its LoRA adapters"
        assert trainable_share(trainer.model) < 0.5, "claim: only the adapters train"
    assert math.isclose(first_loss(low), first_loss(high), rel_tol=1e-5), (
        "claim: every trial starts from the same fresh weights: "
        f"{first_loss(low)} vs {first_loss(high)}"
    )
    eval_loss = objective(FixedTrial(1e-4))
    assert math.isfinite(eval_loss), f"claim: the objective returns a loss: {eval_loss}"

    # Fix 2: hyperparameter_search's route: train() calls model_init first
    search = search_trainer()
    built = search.model
    search.train()
    assert search.model is not built, "claim: train() replaced the model via model_init"
    assert isinstance(search.model, PeftModel), "claim: the new model has its LoRA"
    assert search.state.global_step == 2, "claim: and it trains"
    return (
        f"model_init= -> TypeError; model=None -> AttributeError; "
        f"model_init set afterwards -> {naive_result}; "
        f"per-trial SFTTrainer: first loss {first_loss(low):.4f} in both trials, "
        f"eval_loss {eval_loss:.4f}; model_init via SFTTrainer(...).model trains "
        f"{trainable_share(search.model):.1%} of the weights"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
