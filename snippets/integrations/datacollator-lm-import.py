"""DataCollatorForLanguageModeling: TRL's class is not exported from `trl`, and the
transformers class of the same name trains SFT on the prompt tokens too.

Page: docs/integrations/datacollator-lm-import.md
中文: docs/integrations/datacollator-lm-import.zh.md
"""

# --8<-- [start:symptom]
import_error = None
try:
    from trl import DataCollatorForLanguageModeling  # noqa: F401  (not in `trl`)
except ImportError as error:
    import_error = error
print(import_error)  # cannot import name 'DataCollatorForLanguageModeling' from 'trl'
# --8<-- [end:symptom]


# --8<-- [start:fix]
import os

from transformers import AutoTokenizer

# SFTTrainer builds its own collator: pass no data_collator. If you need the
# collator itself, it is TRL's class, imported from the module that defines it:
from trl.trainer.sft_trainer import DataCollatorForLanguageModeling

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
tokenizer = AutoTokenizer.from_pretrained(MODEL)
collator = DataCollatorForLanguageModeling(pad_token_id=tokenizer.pad_token_id)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import torch
import transformers
from datasets import Dataset
from transformers import set_seed
from trl import SFTConfig, SFTTrainer


def rows(pairs):
    return Dataset.from_list(
        [
            {
                "prompt": [{"role": "user", "content": q}],
                "completion": [{"role": "assistant", "content": a}],
            }
            for q, a in pairs
        ]
    )


MIXED = rows([("What is 2 + 2?", "4"), ("Name a colour, please.", "Blue.")])
SAME = rows([("What is 2 + 2?", "4")] * 4)  # every row the same length


def sft(seed, dataset, data_collator=None):
    set_seed(seed)
    args = SFTConfig(
        per_device_train_batch_size=2,
        max_steps=2,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    return SFTTrainer(
        model=MODEL,
        args=args,
        train_dataset=dataset,
        processing_class=tokenizer,
        data_collator=data_collator,
    )


def first_batch(trainer):
    return next(iter(trainer.get_train_dataloader()))


def check(seed: int = 0) -> str:
    message = str(import_error)
    assert "cannot import name 'DataCollatorForLanguageModeling'" in message, (
        f"claim: `from trl import DataCollatorForLanguageModeling` fails: {message}"
    )
    try:
        transformers.DataCollatorForLanguageModeling(tokenizer)  # mlm=True by default
        mlm_error = None
    except ValueError as error:
        mlm_error = error
    assert "mask token" in str(mlm_error), f"claim: MLM default fails: {mlm_error!r}"
    try:  # TRL's arguments given to transformers' class
        transformers.DataCollatorForLanguageModeling(pad_token_id=0)
        clash = None
    except TypeError as error:
        clash = error
    assert "unexpected keyword argument 'pad_token_id'" in str(clash), f"{clash!r}"

    hf = transformers.DataCollatorForLanguageModeling(tokenizer, mlm=False)
    try:
        first_batch(sft(seed, MIXED, hf))
        pad_error = None
    except ValueError as error:
        pad_error = error
    assert "Unable to create tensor" in str(pad_error), f"claim: {pad_error!r}"

    # Equal lengths: no error. Which tokens count in the loss (labels != -100)?
    ours = first_batch(sft(seed, SAME))
    theirs = first_batch(sft(seed, SAME, hf))
    assert torch.equal(ours["input_ids"], theirs["input_ids"]), "same tokens"
    prompt = (ours["labels"] == -100) & (ours["attention_mask"] == 1)
    on_prompt = int((theirs["labels"][prompt] != -100).sum())
    assert on_prompt > 0, "claim: transformers' collator trains the prompt tokens too"
    answers = int((ours["labels"] != -100).sum())

    default = sft(seed, MIXED)
    explicit = sft(seed, MIXED, collator)
    same = torch.equal(first_batch(default)["labels"], first_batch(explicit)["labels"])
    assert same, "claim: TRL's class passed explicitly = the default"
    default.train()
    assert default.state.global_step == 2, "claim: the default collator trains"
    return (
        "from trl import -> ImportError; transformers' collator: ValueError on mixed "
        f"lengths; on equal ones {on_prompt} of {int(prompt.sum())} prompt tokens "
        f"trained (TRL's collator: 0, answers {answers})"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
