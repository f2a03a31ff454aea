"""Reward-function signature mistakes in GRPO: message-list completions, extra
kwargs, one value instead of a list.

Page: docs/online-rl/grpo-reward-func-signature.md
中文: docs/online-rl/grpo-reward-func-signature.zh.md
"""


# --8<-- [start:symptom]
# no **kwargs: TRL also passes prompts, completion_ids, answer, trainer_state...
def only_completions(completions):
    return [1.0 for _ in completions]


# conversational prompts: each completion is a message list
def treats_completion_as_text(completions, **kwargs):
    return [
        1.0 if completion.strip().endswith("4") else 0.0 for completion in completions
    ]


# one score for the batch, not one per completion
def returns_one_number(completions, **kwargs):
    return 1.0


def returns_one_item_list(completions, **kwargs):
    return [1.0]


# --8<-- [end:symptom]


# --8<-- [start:fix]
def exact_answer(prompts, completions, answer, **kwargs):
    """One float per completion. `answer` is the dataset
    column, repeated once per generation."""
    # messages or plain text
    texts = [c[0]["content"] if isinstance(c, list) else c for c in completions]
    return [
        1.0 if text.strip() == a else 0.0 for text, a in zip(texts, answer, strict=True)
    ]


# --8<-- [end:fix]


# --8<-- [start:evidence]
import os

import torch
import trl
from datasets import Dataset
from packaging.version import Version
from transformers import set_seed
from trl import GRPOConfig, GRPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
TRL = Version(trl.__version__)


def first_step(reward_funcs, seed, remove_unused_columns=False):
    """One GRPO step on conversational prompts with an `answer` column;
    return the error it raised, or None."""
    set_seed(seed)
    rows = [
        {
            "prompt": [{"role": "user", "content": f"What is {i} + {i}?"}],
            "answer": str(2 * i),
        }
        for i in range(4)
    ]
    args = GRPOConfig(
        num_generations=4,
        per_device_train_batch_size=4,
        max_completion_length=4,
        max_steps=1,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        bf16=torch.cuda.is_available(),
        # GRPOConfig's default is False: keep the extra columns
        remove_unused_columns=remove_unused_columns,
    )
    trainer = GRPOTrainer(
        model=MODEL,
        reward_funcs=reward_funcs,
        args=args,
        train_dataset=Dataset.from_list(rows),
    )
    try:
        trainer.train()
    except (TypeError, ValueError, AttributeError) as e:
        return f"{type(e).__name__}: {e}"
    return None


def check(seed: int = 0) -> str:
    broken = (
        only_completions,
        treats_completion_as_text,
        returns_one_number,
        returns_one_item_list,
    )
    errors = {f.__name__: first_step(f, seed) for f in broken}
    # A correct function, but remove_unused_columns=True drops the
    # `answer` column before it gets there.
    errors["column_dropped"] = first_step(
        exact_answer, seed, remove_unused_columns=True
    )
    expected = {
        "only_completions": (
            "TypeError: only_completions() got an unexpected keyword argument 'prompts'"
        ),
        "treats_completion_as_text": (
            "AttributeError: 'list' object has no attribute 'strip'"
        ),
        "returns_one_number": "TypeError: 'float' object is not iterable",
        "returns_one_item_list": (
            "ValueError: The reward function "
            "'returns_one_item_list' returned 1 rewards, but 4"
        ),
        "column_dropped": (
            "TypeError: exact_answer() missing 1 required positional argument: 'answer'"
        ),
    }
    # the length check came in TRL 1.10; before, one value was broadcast silently
    if TRL < Version("1.10"):
        expected["returns_one_item_list"] = None
    for name, start in expected.items():
        if start is None:
            assert errors[name] is None, (
                f"claim: on trl {TRL}, {name} trains without "
                f"an error, got {errors[name]!r}"
            )
        else:
            assert (errors[name] or "").startswith(start), (
                f"claim: {name} fails with {start!r}, got {errors[name]!r}"
            )

    seen = {}

    def show_arguments(**kwargs):
        """Records what TRL passes to a reward function (and scores nothing)."""
        seen.update(kwargs)
        return [None] * len(kwargs["completions"])

    error = first_step([exact_answer, show_arguments], seed)
    assert error is None, f"claim: the fixed function trains, got {error!r}"
    names = [
        "answer",
        "completion_ids",
        "completions",
        "log_extra",
        "log_metric",
        "prompts",
        "trainer_state",
    ]
    if TRL < Version("1.0"):  # log_extra and log_metric came in TRL 1.0
        names = [name for name in names if not name.startswith("log_")]
    assert sorted(seen) == names, (
        f"claim: TRL passes the dataset columns and exactly these names: {sorted(seen)}"
    )
    assert len(seen["completions"]) == 4 and len(set(seen["answer"])) == 1, (
        "claim: one prompt x 4 generations"
    )
    first = seen["completions"][0]
    assert isinstance(first, list) and first[0]["role"] == "assistant", (
        f"claim: a completion is a message list: {first}"
    )
    failed = sum(error is not None for error in errors.values())
    return (
        f"trl {TRL}: {failed} of {len(errors)} mistakes raise; the fixed function "
        f"trains and TRL passed {sorted(seen)}"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed (six one-step runs per seed)

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
