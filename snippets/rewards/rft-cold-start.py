"""Base-model RL cold start: rejection-sample the model's own completions, SFT on the
accepted ones, then resume RL.

Page: docs/rewards/rft-cold-start.md
中文: docs/rewards/rft-cold-start.zh.md
"""

# --8<-- [start:symptom]
import os

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, set_seed

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
# 1 on a real model; the handbook's 2-layer test model
# needs ~300x the rate to move in a few steps
LR_SCALE = float(os.environ.get("HANDBOOK_LR_SCALE", "1"))
PROMPT = "Write a few words without the letter e:"


def verifier(text):
    """The task's check (a stand-in for yours): 1 if the completion has letters
    and not one of them is an 'e'."""
    return 1.0 if any(ch.isalpha() for ch in text) and "e" not in text.lower() else 0.0


def sample(model_path, seed, n=64):
    """n sampled completions of PROMPT from the model saved at model_path."""
    set_seed(seed)
    tokenizer = AutoTokenizer.from_pretrained(model_path)
    model = AutoModelForCausalLM.from_pretrained(model_path)
    inputs = tokenizer(PROMPT, return_tensors="pt")
    out = model.generate(
        **inputs,
        do_sample=True,
        max_new_tokens=8,
        num_return_sequences=n,
        pad_token_id=tokenizer.pad_token_id,
    )
    return tokenizer.batch_decode(
        out[:, inputs["input_ids"].shape[1] :], skip_special_tokens=True
    )


def success_rate(texts):
    return sum(map(verifier, texts)) / len(texts)


# --8<-- [end:symptom]


# --8<-- [start:fix]
from datasets import Dataset
from trl import SFTConfig, SFTTrainer

sft_config = SFTConfig(
    learning_rate=1e-5,  # a short cold start, not a new SFT stage
    max_steps=16,
    per_device_train_batch_size=8,
    logging_steps=1,
    save_strategy="no",
    bf16=torch.cuda.is_available(),
)


def cold_start(texts, output_dir, config=sft_config):
    """Keep the samples the verifier accepts, SFT briefly on them, save the
    cold-started policy to output_dir."""
    accepted = [text for text in texts if verifier(text) > 0]
    data = Dataset.from_list(
        [{"prompt": PROMPT, "completion": text} for text in accepted]
    )
    trainer = SFTTrainer(model=MODEL, args=config, train_dataset=data)
    trainer.train()
    # model + tokenizer: GRPOTrainer(model=output_dir) resumes RL from here
    trainer.save_model(output_dir)
    return len(accepted)


# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import tempfile

from trl import GRPOConfig, GRPOTrainer


def verifier_reward(completions, **kwargs):
    return [verifier(completion) for completion in completions]


def rl_start_reward(model_path, seed):
    """One GRPO step from model_path with the verifier as reward: the
    mean reward of its 32 completions."""
    set_seed(seed)
    args = GRPOConfig(
        num_generations=8,
        per_device_train_batch_size=32,
        max_completion_length=8,
        max_steps=1,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    prompts = Dataset.from_list([{"prompt": PROMPT}] * 32)
    trainer = GRPOTrainer(
        model=model_path, reward_funcs=verifier_reward, args=args, train_dataset=prompts
    )
    trainer.train()
    return trainer.state.log_history[0]["reward"]


def check(seed: int = 0) -> str:
    base_texts = sample(MODEL, seed)
    with tempfile.TemporaryDirectory() as cold:
        # the toy test model needs LR_SCALE x the rate to move in 16 steps
        sft_run = dataclasses.replace(
            sft_config, learning_rate=sft_config.learning_rate * LR_SCALE, seed=seed
        )
        accepted = cold_start(base_texts, cold, sft_run)
        base_rate, cold_rate = (
            success_rate(base_texts),
            success_rate(sample(cold, seed + 1000)),
        )
        rl_base, rl_cold = rl_start_reward(MODEL, seed), rl_start_reward(cold, seed)
    assert 0 < accepted < len(base_texts), (
        f"claim: rejection sampling keeps some, not all ({accepted} accepted)"
    )
    assert cold_rate > base_rate + 0.15, (
        f"claim: cold-start SFT raises the success rate ({base_rate} -> {cold_rate})"
    )
    assert rl_cold > rl_base, (
        f"claim: RL resumed from the checkpoint starts higher ({rl_base} vs {rl_cold})"
    )
    return (
        f"success rate {base_rate:.2f} -> {cold_rate:.2f} after SFT on "
        f"{accepted}/{len(base_texts)} accepted; first GRPO step reward {rl_base:.2f} "
        f"(base) vs {rl_cold:.2f} (cold-started)"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
