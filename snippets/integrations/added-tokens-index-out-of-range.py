"""A pad token added to the tokenizer without resizing the embeddings:
IndexError at the first padded batch; resizing (or reusing a token) trains.

Page: docs/integrations/added-tokens-index-out-of-range.md
中文: docs/integrations/added-tokens-index-out-of-range.zh.md
"""

# --8<-- [start:fix]
from transformers import AutoModelForCausalLM, AutoTokenizer


def load_with_new_tokens(model_name, new_tokens):
    """Add tokens to the tokenizer AND give each new id a row."""
    tokenizer = AutoTokenizer.from_pretrained(model_name)
    model = AutoModelForCausalLM.from_pretrained(model_name)
    tokenizer.add_special_tokens(new_tokens)
    model.resize_token_embeddings(len(tokenizer))
    return model, tokenizer


# --8<-- [end:fix]


# --8<-- [start:fix-reuse]
def load_padded_with_eos(model_name):
    """Only padding was missing: pad with a token the model has."""
    tokenizer = AutoTokenizer.from_pretrained(model_name)
    model = AutoModelForCausalLM.from_pretrained(model_name)
    tokenizer.pad_token = tokenizer.eos_token
    return model, tokenizer


# --8<-- [end:fix-reuse]


# --8<-- [start:evidence]
import math
import os

import torch
from datasets import Dataset
from transformers import set_seed
from trl import DPOConfig, DPOTrainer, SFTConfig, SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

# two rows of different lengths for each trainer: a batch of 2 needs padding
DATA = {
    SFTTrainer: (
        SFTConfig,
        [
            {"text": "Two plus two is four."},
            {"text": "The capital of France is Paris, a city on the Seine."},
        ],
    ),
    DPOTrainer: (
        DPOConfig,
        [
            {
                "prompt": "Two plus two?",
                "chosen": " Four.",
                "rejected": " Five, I think.",
            },
            {"prompt": "Capital of France?", "chosen": " Paris.", "rejected": " Rome."},
        ],
    ),
}


def train(trainer_cls, model, tokenizer, seed):
    set_seed(seed)
    config_cls, rows = DATA[trainer_cls]
    args = config_cls(
        per_device_train_batch_size=2,
        max_steps=2,
        logging_steps=1,
        report_to="none",
        seed=seed,
        bf16=torch.cuda.is_available(),
        save_strategy="no",
    )
    trainer = trainer_cls(
        model=model,
        args=args,
        train_dataset=Dataset.from_list(rows),
        processing_class=tokenizer,
    )
    trainer.train()
    return trainer


def index_error(trainer_cls, model, tokenizer, seed):
    try:
        train(trainer_cls, model, tokenizer, seed)
    except IndexError as e:
        return str(e)
    return ""


def rows(model):
    return model.get_input_embeddings().weight.shape[0]


def check(seed: int = 0) -> str:
    set_seed(seed)
    # symptom: the new pad token, no resize
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    model = AutoModelForCausalLM.from_pretrained(MODEL)
    tokenizer.add_special_tokens({"pad_token": "[PAD]"})
    pad_id, n_rows = tokenizer.pad_token_id, rows(model)
    assert pad_id >= n_rows, (
        f"claim: the added [PAD] gets id {pad_id}, past the {n_rows} rows"
    )
    error = index_error(SFTTrainer, model, tokenizer, seed)
    assert "index out of range in self" in error, (
        f"claim: the first padded batch raises IndexError, got {error!r}"
    )

    error = index_error(DPOTrainer, model, tokenizer, seed)
    assert "index out of range in self" in error, (
        f"claim: DPOTrainer raises the same IndexError, got {error!r}"
    )

    # fix: resize the embeddings to len(tokenizer)
    model, tokenizer = load_with_new_tokens(MODEL, {"pad_token": "[PAD]"})
    assert tokenizer.pad_token_id < rows(model), (
        f"claim: after resizing, id {tokenizer.pad_token_id} has a row"
    )
    resized = train(SFTTrainer, model, tokenizer, seed)
    losses = [h["loss"] for h in resized.state.log_history if "loss" in h]
    assert len(losses) == 2 and all(map(math.isfinite, losses)), (
        f"claim: the resized model trains, losses {losses}"
    )

    # fix: no new token, pad with EOS, which the model has
    model, tokenizer = load_padded_with_eos(MODEL)
    reused = train(SFTTrainer, model, tokenizer, seed)
    pad = reused.processing_class.pad_token_id
    r_losses = [h["loss"] for h in reused.state.log_history if "loss" in h]
    assert pad < rows(model) and all(map(math.isfinite, r_losses)), (
        f"claim: padding with EOS (id {pad}) trains, losses {r_losses}"
    )
    return (
        f"[PAD] id {pad_id} >= {n_rows} rows -> IndexError; resized: "
        f"losses {[round(x, 3) for x in losses]}; reused pad id {pad}: "
        f"losses {[round(x, 3) for x in r_losses]}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
