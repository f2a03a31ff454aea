"""SFTConfig.loss_type across releases: 'nll' up to 1.6, 'chunked_nll' by default
in 1.7-1.14, 'nll' again from 1.15 (chunked_nll a deprecated alias). The loss is
the same token-mean NLL.

Page: docs/sft/sft-loss-type-chunked-nll.md
中文: docs/sft/sft-loss-type-chunked-nll.zh.md
"""

# --8<-- [start:symptom]
import warnings

from trl import SFTConfig

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    old = SFTConfig(loss_type="chunked_nll", bf16=False)
for warning in caught:
    if "chunked_nll" in str(warning.message):
        print(warning.category.__name__, warning.message)
print("loss_type resolves to", old.loss_type)  # TRL >= 1.15: nll
# --8<-- [end:symptom]


# --8<-- [start:fix]
import torch
from trl import SFTConfig

sft_config = SFTConfig(
    loss_type="nll",  # the plain forward on TRL 1.7-1.14, the default from 1.15
    learning_rate=2e-5,
    max_length=1024,
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os
import warnings

import torch.nn.functional as F
from datasets import Dataset
from transformers import set_seed
from trl import SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
ROWS = Dataset.from_list(
    [
        {"prompt": "The sky is", "completion": " blue."},
        {"prompt": "Two plus two is", "completion": " four, as everyone knows."},
    ]
)


def token_mean_nll(model, rows, collator):
    """The textbook SFT loss, from the full logits: the mean NLL over every
    labelled token of the batch."""
    batch = collator(list(rows))
    with torch.no_grad():
        logits = model(
            input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]
        ).logits
    return F.cross_entropy(
        logits[:, :-1].flatten(0, 1).float(),
        batch["labels"][:, 1:].flatten(),
        ignore_index=-100,
    ).item()


def check(seed: int = 0) -> str:
    assert SFTConfig.loss_type == "nll", "claim: loss_type defaults to 'nll' again"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        alias = SFTConfig(loss_type="chunked_nll", bf16=False)
    messages = [str(w.message) for w in caught if w.category is FutureWarning]
    assert alias.loss_type == "nll" and any(
        "`loss_type='chunked_nll'` is deprecated" in m for m in messages
    ), f"claim: chunked_nll is a deprecated alias of nll: {messages}"

    set_seed(seed)
    args = dataclasses.replace(
        sft_config,
        per_device_train_batch_size=1,
        gradient_accumulation_steps=2,  # one step over both rows, in two halves
        max_steps=1,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
    )
    trainer = SFTTrainer(model=MODEL, args=args, train_dataset=ROWS)
    expected = token_mean_nll(
        trainer.model, trainer.train_dataset, trainer.data_collator
    )
    trainer.train()
    logged = trainer.state.log_history[0]["loss"]
    assert abs(logged - expected) <= 1e-3 * max(1.0, expected), (
        "claim: the logged loss is the token-mean NLL of the batch, not scaled by "
        f"gradient_accumulation_steps: logged {logged}, from the logits {expected}"
    )
    return f"loss_type {alias.loss_type}; first loss {logged:.4f} = NLL {expected:.4f}"


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
