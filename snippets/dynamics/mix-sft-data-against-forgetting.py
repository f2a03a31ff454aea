"""DPO on a narrow preference set erodes general text; an SFT term plus ~10%
general SFT rows holds it in place.

Page: docs/dynamics/mix-sft-data-against-forgetting.md
中文: docs/dynamics/mix-sft-data-against-forgetting.zh.md
"""

# --8<-- [start:fix]
import torch
from datasets import interleave_datasets
from trl import DPOConfig


def as_anchor_rows(sft_rows):
    """General SFT rows (prompt, completion) as DPO rows with chosen == rejected.

    The preference term of such a row is constant (its gradient is 0); only the
    "sft" loss term learns from it.
    """
    return sft_rows.map(
        lambda row: {"chosen": row["completion"], "rejected": row["completion"]},
        remove_columns=["completion"],
    )


def mix_in_sft(pairs, sft_rows, share=0.1, seed=0):
    """About `share` of the rows become general SFT rows,
    the rest stay preference pairs."""
    return interleave_datasets(
        [pairs, as_anchor_rows(sft_rows)], probabilities=[1 - share, share], seed=seed
    )


dpo_config = DPOConfig(
    # the DPO loss + the NLL of every chosen completion, general rows included
    loss_type=["sigmoid", "sft"],
    learning_rate=1e-6,
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os
import tempfile

from datasets import Dataset
from transformers import AutoModelForCausalLM, AutoTokenizer, set_seed
from trl import DPOTrainer, SFTConfig, SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
LR_SCALE = float(os.environ.get("HANDBOOK_LR_SCALE", "1"))

FACTS = [
    "The sun rises in the east and sets in the west.",
    "Water boils at one hundred degrees at sea level.",
    "Paris is the capital of France.",
    "A week has seven days.",
    "Cats like to sleep in warm places.",
    "Bread is made from flour, water and yeast.",
    "The moon goes around the earth.",
    "Rain falls from clouds.",
    "Trees grow from small seeds.",
    "Most birds can fly.",
    "Ice is frozen water.",
    "The sea is salty.",
    "Books are made of paper.",
    "A year has twelve months.",
    "Plants need light to grow.",
    "The heart pumps blood.",
    "Music can make people happy.",
    "Trains run on rails.",
]


def fact_rows(facts):
    return Dataset.from_list(
        [
            {
                "prompt": [{"role": "user", "content": "Tell me a fact."}],
                "completion": [{"role": "assistant", "content": fact}],
            }
            for fact in facts
        ]
    )


# general SFT data; general text never trained on
GENERAL, HELD_OUT = fact_rows(FACTS[:14]), fact_rows(FACTS[14:])
PAIRS = Dataset.from_list(  # the narrow preference task: loud reviews beat plain ones
    [
        {
            "prompt": [{"role": "user", "content": f"Review product {i}."}],
            "chosen": [
                {"role": "assistant", "content": "WOW!!! BEST EVER!!! 10/10!!!"}
            ],
            "rejected": [{"role": "assistant", "content": "It works as described."}],
        }
        for i in range(32)
    ]
)


def general_nll(model_dir):
    """Mean NLL per completion token of the held-out general rows: it rises
    when general text is forgotten."""
    tokenizer, model = (
        AutoTokenizer.from_pretrained(model_dir),
        AutoModelForCausalLM.from_pretrained(model_dir),
    )
    total, count = 0.0, 0
    with torch.no_grad():
        for row in HELD_OUT:
            prompt = tokenizer.apply_chat_template(
                row["prompt"], tokenize=False, add_generation_prompt=True
            )
            full = tokenizer.apply_chat_template(
                row["prompt"] + row["completion"], tokenize=False
            )
            ids = tokenizer(full, return_tensors="pt").input_ids
            labels = ids.clone()
            labels[:, : len(tokenizer(prompt).input_ids)] = -100
            n = int((labels[:, 1:] != -100).sum())
            total, count = (
                total + model(input_ids=ids, labels=labels).loss.item() * n,
                count + n,
            )
    return total / count


def sft_start(seed, out):
    """A short SFT on the general rows: the starting
    model that knows some general text."""
    set_seed(seed)
    args = SFTConfig(
        learning_rate=3e-5 * LR_SCALE,
        per_device_train_batch_size=7,
        max_steps=30,
        lr_scheduler_type="constant",
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    trainer = SFTTrainer(model=MODEL, args=args, train_dataset=GENERAL)
    trainer.train()
    trainer.save_model(out)


def dpo(config, start, data, seed, out):
    """Eight DPO steps with `config` from the SFT model (policy and
    reference both load from `start`)."""
    set_seed(seed)
    args = dataclasses.replace(
        config,
        # 30x the 1e-6 above on purpose: forgetting within 8 steps
        learning_rate=3e-5 * LR_SCALE,
        per_device_train_batch_size=8,
        max_steps=8,
        lr_scheduler_type="constant",
        logging_steps=1,
        save_strategy="no",
        seed=seed,
    )
    trainer = DPOTrainer(model=start, args=args, train_dataset=data)
    trainer.train()
    trainer.save_model(out)
    margin = [
        row["rewards/margins"]
        for row in trainer.state.log_history
        if "rewards/margins" in row
    ][-1]
    return general_nll(out), margin


def check(seed: int = 0) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        start = os.path.join(tmp, "sft")
        sft_start(seed, start)
        base = general_nll(start)
        # the symptom: loss_type="sigmoid" only, the default
        plain_config = DPOConfig(bf16=dpo_config.bf16)
        plain, plain_margin = dpo(
            plain_config, start, PAIRS, seed, os.path.join(tmp, "plain")
        )
        rpo, _ = dpo(dpo_config, start, PAIRS, seed, os.path.join(tmp, "rpo"))
        mixed = mix_in_sft(PAIRS, GENERAL, share=0.1, seed=seed)
        anchored, anchored_margin = dpo(
            dpo_config, start, mixed, seed, os.path.join(tmp, "anchored")
        )
    assert plain > base + 1.0, (
        f"claim: plain DPO raises general NLL (forgetting): {base:.2f} -> {plain:.2f}"
    )
    assert anchored - base < 0.5 * (plain - base), (
        f"claim: the sft term with ~10% general rows forgets far less: {base:.2f} "
        f"-> {anchored:.2f} vs {plain:.2f}"
    )
    assert anchored < rpo, (
        "claim: the general rows matter, not only the sft "
        f"term: {anchored:.2f} vs {rpo:.2f}"
    )
    assert anchored_margin > 0.5 * plain_margin > 0, (
        "claim: the preference is still learned: margins "
        f"{anchored_margin:.2f} vs {plain_margin:.2f}"
    )
    return (
        f"held-out general NLL: SFT start {base:.2f}, DPO {plain:.2f}, DPO+sft "
        f"{rpo:.2f}, DPO+sft+10% general rows {anchored:.2f}; rewards/margins "
        f"{plain_margin:.1f} vs {anchored_margin:.1f}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
