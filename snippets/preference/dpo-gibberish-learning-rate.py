"""DPO with a far-too-high learning rate: the model's distribution on text outside
the pairs moves far (on a real model its likelihood collapses: the "gibberish"
symptom) while the preference metrics look better than ever; DPOConfig's default
learning rate leaves it in place.

Page: docs/preference/dpo-gibberish-learning-rate.md
中文: docs/preference/dpo-gibberish-learning-rate.zh.md
"""

# --8<-- [start:fix]
import torch
from trl import DPOConfig

dpo_config = DPOConfig(
    # DPOConfig's default for full fine-tuning; LoRA runs usually tolerate about 5e-6
    learning_rate=1e-6,
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import gc
import os

from datasets import Dataset
from transformers import set_seed
from trl import DPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

PAIRS = Dataset.from_list(
    [
        {
            "prompt": "What is the capital of France?",
            "chosen": " The capital of France is Paris.",
            "rejected": " I do not know.",
        },
        {
            "prompt": "Two plus two equals",
            "chosen": " four.",
            "rejected": " nine maybe.",
        },
        {
            "prompt": "Answer yes or no.",
            "chosen": " Yes.",
            "rejected": " Maybe. I do not know.",
        },
        {
            "prompt": "Write a short poem about the sea.",
            "chosen": " The sea is wide, the waves are blue.",
            "rejected": " No.",
        },
    ]
)
HELD_OUT = (
    "The Pacific Ocean is the largest ocean on Earth. It "
    "covers about a third of the planet."
)


def held_out_logprobs(model, tokenizer):
    """Next-token log-probabilities over a sentence the preference pairs never show."""
    ids = tokenizer(HELD_OUT, return_tensors="pt").input_ids.to(model.device)
    with torch.no_grad():
        return torch.log_softmax(model(ids).logits[0, :-1].float(), dim=-1), ids[0, 1:]


def train(learning_rate, seed):
    """Six DPO steps on the four pairs. Return (held-out NLL before, after, KL(before ||
    after) per token on the held-out sentence, last rewards/margins)."""
    set_seed(seed)
    args = dataclasses.replace(
        dpo_config,
        learning_rate=learning_rate,
        per_device_train_batch_size=4,
        max_steps=6,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
    )
    trainer = DPOTrainer(model=MODEL, args=args, train_dataset=PAIRS)
    before, targets = held_out_logprobs(trainer.model, trainer.processing_class)
    trainer.train()
    after, _ = held_out_logprobs(trainer.model, trainer.processing_class)
    margins = [
        row["rewards/margins"]
        for row in trainer.state.log_history
        if "rewards/margins" in row
    ]
    del trainer
    gc.collect()  # free this run's two model copies before the next run builds its own

    def nll(logprobs):
        return -logprobs.gather(1, targets[:, None]).mean().item()

    kl = (before.exp() * (before - after)).sum(-1).mean().item()
    return nll(before), nll(after), kl, margins[-1]


def check(seed: int = 0) -> str:
    default_lr = {f.name: f.default for f in dataclasses.fields(DPOConfig)}[
        "learning_rate"
    ]
    assert default_lr == dpo_config.learning_rate == 1e-6, (
        f"claim: DPOConfig's default learning rate is 1e-6, got {default_lr}"
    )

    # 1000x the default: an SFT/LoRA-sized rate
    bad_before, bad_after, bad_kl, bad_margin = train(1e-3, seed)
    good_before, good_after, good_kl, good_margin = train(
        dpo_config.learning_rate, seed
    )
    assert bad_kl > 100 * good_kl, (
        "claim: a far-too-high lr moves the model on text outside the pairs, "
        f"KL {bad_kl:.4f} vs {good_kl:.6f}"
    )
    assert bad_margin > good_margin > 0, (
        "claim: both runs separate chosen from rejected and the broken one looks "
        f"better: rewards/margins {bad_margin:.4f} vs {good_margin:.4f}"
    )
    return (
        f"held-out NLL {bad_before:.2f}->{bad_after:.2f} (KL {bad_kl:.4f}) at lr 1e-3 "
        f"vs {good_before:.2f}->{good_after:.2f} (KL {good_kl:.6f}) at lr 1e-6; "
        f"rewards/margins {bad_margin:.3f} vs {good_margin:.5f}"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
