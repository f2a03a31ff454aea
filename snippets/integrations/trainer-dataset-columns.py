"""The columns each TRL trainer reads: KeyError prompt/text/chosen, DPO's silent prompt.

Page: docs/integrations/trainer-dataset-columns.md
中文: docs/integrations/trainer-dataset-columns.zh.md
"""

# --8<-- [start:fix]
# Map your own column names onto the ones the trainer reads, before you build it.
# GRPOTrainer / RLOOTrainer: "prompt" (other columns reach the reward functions).
# DPOTrainer: "prompt", "chosen", "rejected".  SFTTrainer: "prompt" + "completion",
# or "messages", or "text".


def grpo_columns(example):
    return {"prompt": [{"role": "user", "content": example["question"]}]}


def dpo_columns(example):
    return {
        "prompt": [{"role": "user", "content": example["question"]}],
        "chosen": [{"role": "assistant", "content": example["good"]}],
        "rejected": [{"role": "assistant", "content": example["bad"]}],
    }


def sft_columns(example):
    return {
        "prompt": [{"role": "user", "content": example["question"]}],
        "completion": [{"role": "assistant", "content": example["answer"]}],
    }


# --8<-- [end:fix]


# --8<-- [start:evidence]
import os

import torch
from datasets import Dataset
from transformers import AutoTokenizer, set_seed
from trl import DPOConfig, DPOTrainer, GRPOConfig, GRPOTrainer, SFTConfig, SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

QUESTIONS = ["What is 2 + 2?", "Name a colour.", "Say hello.", "What is 3 + 3?"]
RAW = Dataset.from_list(
    [
        {"question": q, "answer": a, "good": a, "bad": "I do not know."}
        for q, a in zip(QUESTIONS, ["4", "Blue.", "Hello.", "6"])
    ]
)
SEEN = []  # the `answer` values the reward function received


def reward_len(completions, answer, **kwargs):
    SEEN.extend(answer)
    return [float(len(c[0]["content"])) for c in completions]


def common(seed):
    return dict(
        per_device_train_batch_size=2,
        max_steps=2,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )


def grpo(dataset, seed):
    set_seed(seed)
    args = GRPOConfig(num_generations=2, max_completion_length=8, **common(seed))
    return GRPOTrainer(
        model=MODEL,
        reward_funcs=reward_len,
        args=args,
        train_dataset=dataset,
    )


def error_of(call):
    try:
        call()
    except (KeyError, ValueError) as error:
        return error
    return None


def check(seed: int = 0) -> str:
    # GRPO: the wrong column passes __init__ and fails at the first step
    trainer = grpo(RAW, seed)
    error = error_of(trainer.train)
    assert isinstance(error, KeyError) and error.args == ("prompt",), (
        f"claim: GRPO without a 'prompt' column raises KeyError in train(): {error!r}"
    )
    assert trainer.state.global_step == 0, "claim: it fails before the first update"
    fixed = grpo(RAW.map(grpo_columns, remove_columns=["question"]), seed)
    fixed.train()
    assert fixed.state.global_step == 2, "claim: with a 'prompt' column GRPO trains"
    assert set(SEEN) <= set(RAW["answer"]) and SEEN, (
        f"claim: the other columns reach the reward function as keywords: {SEEN}"
    )

    # DPO: no "prompt" column -> no error: the prompt becomes the common prefix
    set_seed(seed)
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    dpo_args = DPOConfig(**common(seed))
    silent = DPOTrainer(
        model=MODEL,
        args=dpo_args,
        train_dataset=RAW.rename_columns({"good": "chosen", "bad": "rejected"}),
    )
    prompt = tokenizer.decode(silent.train_dataset[0]["prompt_ids"])
    assert QUESTIONS[0] not in prompt, f"claim: trained without a prompt: {prompt!r}"
    dpo = DPOTrainer(model=MODEL, args=dpo_args, train_dataset=RAW.map(dpo_columns))
    prompt_fixed = tokenizer.decode(dpo.train_dataset[0]["prompt_ids"])
    assert QUESTIONS[0] in prompt_fixed, f"claim: now it is there: {prompt_fixed!r}"
    dpo.train()
    assert dpo.state.global_step == 2, "claim: the mapped DPO dataset trains"
    renamed = RAW.rename_columns({"good": "response", "bad": "rejected_response"})
    error = error_of(lambda: DPOTrainer(MODEL, args=dpo_args, train_dataset=renamed))
    assert isinstance(error, KeyError) and error.args == ("chosen",), (
        f"claim: DPO without 'chosen' raises KeyError: 'chosen' in __init__: {error!r}"
    )

    # SFT: no "text"/"messages"/"prompt"+"completion" -> KeyError: 'text' in __init__
    sft_args = SFTConfig(max_length=64, **common(seed))
    error = error_of(lambda: SFTTrainer(model=MODEL, args=sft_args, train_dataset=RAW))
    assert isinstance(error, KeyError) and error.args == ("text",), (
        f"claim: SFT without a known column raises KeyError: 'text': {error!r}"
    )
    sft = SFTTrainer(model=MODEL, args=sft_args, train_dataset=RAW.map(sft_columns))
    sft.train()
    assert sft.state.global_step == 2, "claim: the mapped SFT dataset trains"
    return (
        f"GRPO KeyError 'prompt' at step 0, fixed trains, answer={SEEN[:2]}; "
        f"DPO prompt without mapping {prompt!r}, with it {prompt_fixed[:40]!r}; "
        "DPO KeyError 'chosen'; SFT KeyError 'text', fixed trains"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
