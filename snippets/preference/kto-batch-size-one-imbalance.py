"""KTO (TRL 0.29 to 1.16): per_device_train_batch_size=1 is refused (the KL estimate
needs a batch of mismatched pairs), and an unbalanced desirable/undesirable split
asks for desirable_weight/undesirable_weight.

Page: docs/preference/kto-batch-size-one-imbalance.md
中文: docs/preference/kto-batch-size-one-imbalance.zh.md
"""


# --8<-- [start:fix]
def kto_settings(dataset, batch_size=4):
    """A real per-device batch (>= 2) and an undesirable_weight that
    balances the two label counts."""
    n_desirable = sum(dataset["label"])
    n_undesirable = len(dataset) - n_desirable
    return dict(
        per_device_train_batch_size=batch_size,
        undesirable_weight=n_desirable / n_undesirable,
    )


# --8<-- [end:fix]


# --8<-- [start:evidence]
import logging
import os

import torch
import trl
from datasets import Dataset
from packaging.version import Version
from transformers import AutoTokenizer, set_seed
from trl import KTOConfig, KTOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

# 6 desirable, 2 undesirable: a 3:1 imbalance
ROWS = Dataset.from_list(
    [
        {
            "prompt": "What is the capital of France?",
            "completion": " Paris.",
            "label": True,
        },
        {"prompt": "Two plus two equals", "completion": " four.", "label": True},
        {"prompt": "Answer yes or no.", "completion": " Yes.", "label": True},
        {"prompt": "Say hello.", "completion": " Hello world.", "label": True},
        {"prompt": "Three times three is", "completion": " nine.", "label": True},
        {
            "prompt": "Write a short poem about the sea.",
            "completion": " The sea is wide.",
            "label": True,
        },
        {"prompt": "Two plus two equals", "completion": " nine maybe.", "label": False},
        {
            "prompt": "What is the capital of France?",
            "completion": " I do not know.",
            "label": False,
        },
    ]
)


def build(seed, **config):
    """Construct a KTOTrainer; return (the trainer or the ValueError it
    raised, the warnings TRL logged)."""
    set_seed(seed)
    warnings = []
    handler = logging.Handler()
    handler.emit = lambda record: warnings.append(record.getMessage())
    # KTOTrainer's logger sits below it (its module moved in TRL 1.8)
    log = logging.getLogger("trl")
    log.addHandler(handler)
    try:
        args = KTOConfig(
            # sized so that a 4-step check moves the model (TRL's default is 1e-6)
            learning_rate=1e-3,
            max_steps=4,
            logging_steps=1,
            save_strategy="no",
            seed=seed,
            bf16=torch.cuda.is_available(),
            **config,
        )
        # processing_class: TRL 0.29 to 1.2 require it; later
        # releases load the tokenizer from MODEL
        tokenizer = AutoTokenizer.from_pretrained(MODEL)
        return KTOTrainer(
            model=MODEL, args=args, train_dataset=ROWS, processing_class=tokenizer
        ), warnings
    except ValueError as e:
        return e, warnings
    finally:
        log.removeHandler(handler)


def completion_tokens(rows, prefix=""):
    """Each row's completion (or KL completion) tokens: TRL >= 1.3 stores them
    alone, older TRL after the prompt."""
    if f"{prefix}completion_ids" in rows.column_names:
        return rows[f"{prefix}completion_ids"]
    full, prompts = (
        rows[f"{prefix}completion_input_ids"],
        rows[f"{prefix}prompt_input_ids"],
    )
    return [ids[len(prompt) :] for ids, prompt in zip(full, prompts)]


def check(seed: int = 0) -> str:
    refused, _ = build(
        seed, per_device_train_batch_size=1, gradient_accumulation_steps=8
    )
    assert "batch size must be > 1" in str(refused), (
        f"claim: KTO refuses a device batch of 1: {refused!r}"
    )
    shuffled, _ = build(
        seed, per_device_train_batch_size=4, train_sampling_strategy="random"
    )
    # TRL 1.6 added the sampler check
    guarded = Version(trl.__version__) >= Version("1.6")
    assert ("sequential" in str(shuffled)) == guarded, (
        "claim: since TRL 1.6 KTO's KL pairing refuses a shuffled sampler "
        f"(older TRL accepts it): {shuffled!r}"
    )
    _, default_warnings = build(seed, per_device_train_batch_size=2)
    assert any("desirable_weight in" in w for w in default_warnings), (
        "claim: 3:1 data with weights 1/1 warns"
    )

    trainer, fixed_warnings = build(seed, **kto_settings(ROWS))
    assert not any("desirable_weight in" in w for w in fixed_warnings), (
        "claim: the balanced weight is in range"
    )
    rows = trainer.train_dataset
    # the KL completions are the batch's completions, rotated by one
    for start in range(0, len(rows), 4):
        block = rows.select(range(start, start + 4))
        own = completion_tokens(block)
        assert completion_tokens(block, "KL_") == own[-1:] + own[:-1], (
            "claim: each KL completion is its neighbour's"
        )
    trainer.train()
    kl = [row["kl"] for row in trainer.state.log_history if "kl" in row]
    assert len(kl) == 4 and kl[0] == 0.0, (
        f"claim: kl is logged every step, 0 at the first (policy = reference): {kl}"
    )
    assert min(kl) >= 0.0, (
        f"claim: the logged kl is the batch estimate clamped at 0, never negative: {kl}"
    )

    apo, _ = build(seed, per_device_train_batch_size=1, loss_type="apo_zero_unpaired")
    assert isinstance(apo, KTOTrainer), (
        f"claim: apo_zero_unpaired has no KL term and accepts batch 1: {apo!r}"
    )
    apo.train()
    apo_kl = [row["kl"] for row in apo.state.log_history if "kl" in row]
    assert apo_kl == [0.0] * 4, (
        f"claim: without a KL term the logged kl is 0 at every step: {apo_kl}"
    )
    return (
        "bs=1 -> ValueError; 3:1 data warns until undesirable_weight=3; kto kl "
        f"{[round(k, 3) for k in kl]}, apo_zero_unpaired at bs=1 kl {apo_kl}"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
