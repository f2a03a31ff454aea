"""Preference pairs whose chosen and rejected are the same (as written, or once the
chat template has rendered them): ms-swift refuses them with an AssertionError, TRL's
DPOTrainer trains on them silently. Each adds exactly ln 2 to the loss, no gradient,
a miss to rewards/accuracies and 0 to rewards/margins.

Page: docs/preference/dpo-chosen-equals-rejected.md
中文: docs/preference/dpo-chosen-equals-rejected.zh.md
"""


# --8<-- [start:fix]
def identical_pairs(dataset, tokenizer):
    """Indices of the rows whose chosen and rejected render to the same text,
    chat template included: the rows DPOTrainer would train on as ties."""

    def render(prompt, completion):
        if isinstance(completion, str):  # standard format: plain text
            return prompt + completion
        return tokenizer.apply_chat_template(prompt + completion, tokenize=False)

    same = []
    for i, row in enumerate(dataset):
        chosen, rejected = row["chosen"], row["rejected"]
        # no "prompt" column: chosen and rejected hold the whole conversation
        prompt = row.get("prompt") or ("" if isinstance(chosen, str) else [])
        if render(prompt, chosen) == render(prompt, rejected):
            same.append(i)
    return same


def drop_identical_pairs(dataset, tokenizer):
    same = set(identical_pairs(dataset, tokenizer))
    print(f"dropping {len(same)} of {len(dataset)} pairs: chosen == rejected")
    return dataset.select([i for i in range(len(dataset)) if i not in same])


# --8<-- [end:fix]


# --8<-- [start:evidence]
import json
import math
import os

import torch
from datasets import Dataset
from transformers import AutoTokenizer, set_seed
from trl import DPOConfig, DPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
# 1 on a real model; the handbook's 2-layer test model
# needs ~300x the rate to move in a few steps
LR_SCALE = float(os.environ.get("HANDBOOK_LR_SCALE", "1"))


def user(text):
    return [{"role": "user", "content": text}]


def reply(text, **extra):
    return [{"role": "assistant", "content": text, **extra}]


def pair(question, chosen, rejected):
    return {
        "prompt": user(question),
        "chosen": reply(chosen),
        "rejected": reply(rejected),
    }


def weather_call(city):
    arguments = json.dumps({"city": city})
    function = {"name": "get_weather", "arguments": arguments}
    return [{"type": "function", "function": function}]


PAIRS = Dataset.from_list(
    [
        pair("Capital of France?", "Paris.", "Rome."),
        pair("2 + 2 =", "4", "5"),
        pair("Colour of the sky?", "Blue.", "Green."),
        pair("Opposite of hot?", "Cold.", "Tall."),
        # ties: the same answer on both sides
        pair("Answer A or B.", "A", "A"),
        pair("Say hi.", "Hi!", "Hi!"),
        pair("Name a fruit.", "Apple.", "Apple."),
        # the answers differ only in tool_calls, which some chat templates drop
        {
            "prompt": user("Weather in Paris?"),
            "chosen": reply("", tool_calls=weather_call("Paris")),
            "rejected": reply("", tool_calls=weather_call("Rome")),
        },
    ]
)


def train(dataset, seed, eval_dataset=None):
    """A few DPO steps with every pair of `dataset` in one batch."""
    set_seed(seed)
    args = DPOConfig(
        learning_rate=5e-6 * LR_SCALE,
        per_device_train_batch_size=len(dataset),
        max_steps=3,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    trainer = DPOTrainer(
        model=MODEL, args=args, train_dataset=dataset, eval_dataset=eval_dataset
    )
    trainer.train()
    logs = [row for row in trainer.state.log_history if "rewards/margins" in row]
    return trainer, logs


def check(seed: int = 0) -> str:
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    same = identical_pairs(PAIRS, tokenizer)
    as_written = [i for i, row in enumerate(PAIRS) if row["chosen"] == row["rejected"]]
    tool_pair = len(PAIRS) - 1  # a tie only where the template drops tool_calls
    assert set(as_written) <= set(same) <= set(as_written) | {tool_pair}, (
        f"claim: the helper flags the ties, and only the ties: {same}"
    )
    kept = drop_identical_pairs(PAIRS, tokenizer)
    share = len(kept) / len(PAIRS)  # the share of pairs that carry a preference

    trainer, mixed = train(PAIRS, seed, eval_dataset=PAIRS.select(same))
    _, clean = train(kept, seed)

    # the ties, scored by the trained model: TRL sees the two sides as one sequence
    trainer.evaluate()
    ties = trainer.state.log_history[-1]  # what evaluate() logged
    assert abs(ties["eval_loss"] - math.log(2)) < 1e-5, (
        f"claim: each tie adds exactly ln 2 to the loss: {ties['eval_loss']}"
    )
    assert ties["eval_rewards/chosen"] != 0, "claim: the model did move"
    assert ties["eval_rewards/margins"] == 0, "claim: a tie's margin is exactly 0"
    assert ties["eval_rewards/accuracies"] == 0, (
        "claim: rewards/accuracies counts a tie as a miss (chosen > rejected fails)"
    )

    ratio = mixed[0]["grad_norm"] / clean[0]["grad_norm"]
    assert abs(ratio - share) < 1e-3, (
        f"claim: ties add no gradient, only to the count: grad_norm x{ratio:.4f}"
    )
    for with_ties, without in zip(mixed, clean, strict=True):
        floor = (1 - share) * math.log(2)
        assert abs(with_ties["loss"] - (floor + share * without["loss"])) < 1e-3, (
            "claim: the logged loss is the clean loss, diluted by ln 2 per tie"
        )
        assert with_ties["rewards/accuracies"] <= share, (
            f"claim: rewards/accuracies cannot pass {share}"
        )
        margins = with_ties["rewards/margins"], share * without["rewards/margins"]
        assert math.isclose(*margins, rel_tol=0.02, abs_tol=1e-6), (
            f"claim: same learning, margins scaled by {share}: {margins}"
        )
    assert mixed[-1]["rewards/accuracies"] == share, "claim: every real pair learned"
    assert clean[-1]["rewards/accuracies"] == 1.0, "claim: without ties it reaches 1"
    return (
        f"{len(same)} ties of {len(PAIRS)}: eval on the ties loss "
        f"{ties['eval_loss']:.4f}, margins 0, accuracies 0; training with them: "
        f"accuracies {mixed[-1]['rewards/accuracies']:.2f} vs "
        f"{clean[-1]['rewards/accuracies']:.2f}, margins "
        f"{mixed[-1]['rewards/margins']:.4f} vs {clean[-1]['rewards/margins']:.4f}, "
        f"grad_norm x{ratio:.3f}"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
