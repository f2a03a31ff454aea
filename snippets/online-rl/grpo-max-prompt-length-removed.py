"""GRPOConfig(max_prompt_length=...) is a TypeError since TRL 0.28, and
GRPOTrainer feeds every prompt whole: filter long prompts out yourself.

Page: docs/online-rl/grpo-max-prompt-length-removed.md
中文: docs/online-rl/grpo-max-prompt-length-removed.zh.md
"""

# --8<-- [start:symptom]
from trl import GRPOConfig

try:
    GRPOConfig(max_prompt_length=512, max_completion_length=512)
except TypeError as error:
    # TRL >= 0.28: GRPOConfig.__init__() got an unexpected keyword argument
    # 'max_prompt_length'
    print(error)
# --8<-- [end:symptom]


# --8<-- [start:fix]
import torch
from trl import GRPOConfig


def prompt_length(example, tokenizer):
    """Tokens GRPOTrainer feeds the model for this prompt (chat template included)."""
    prompt = example["prompt"]
    if isinstance(prompt, list):  # conversational: [{"role": ..., "content": ...}]
        encoded = tokenizer.apply_chat_template(
            prompt, add_generation_prompt=True, tokenize=True, return_dict=True
        )
        return len(encoded["input_ids"])
    return len(tokenizer(prompt)["input_ids"])


def drop_long_prompts(dataset, tokenizer, max_prompt_length=512):
    """Bound prompt length on the dataset, before training (no config field does)."""
    return dataset.filter(
        lambda example: prompt_length(example, tokenizer) <= max_prompt_length
    )


grpo_config = GRPOConfig(  # no max_prompt_length: the field is gone
    max_completion_length=512,
    bf16=torch.cuda.is_available(),
)
# train_dataset = drop_long_prompts(train_dataset, tokenizer, max_prompt_length=512)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os

from datasets import Dataset
from transformers import AutoTokenizer, set_seed
from trl import GRPOTrainer, RLOOConfig

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
REMOVED = {  # config, argument -> the first TRL release that rejects it
    (GRPOConfig, "max_prompt_length"): "0.28",
    (GRPOConfig, "vllm_guided_decoding_regex"): "0.28",
    (GRPOConfig, "use_liger_loss"): "0.28",
    (RLOOConfig, "max_prompt_length"): "0.29",
}


def any_reward(completions, **kwargs):
    return [float(len(str(c))) for c in completions]


def prompts(texts):
    return Dataset.from_list(
        [{"prompt": [{"role": "user", "content": t}]} for t in texts]
    )


def prompt_tokens_seen(dataset, seed):
    """One prompt per step (4 completions of it): the prompt tokens the trainer used,
    read from the logs: num_tokens grows by 4 x (prompt + completion length)."""
    set_seed(seed)
    args = dataclasses.replace(
        grpo_config,
        max_completion_length=8,  # a short rollout keeps the CPU check quick
        num_generations=4,
        per_device_train_batch_size=4,
        generation_batch_size=None,
        max_steps=2,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
    )
    trainer = GRPOTrainer(
        model=MODEL, reward_funcs=any_reward, args=args, train_dataset=dataset
    )
    trainer.train()
    rows = [row for row in trainer.state.log_history if "num_tokens" in row]
    seen, before = [], 0
    for row in rows:
        seen.append(
            round((row["num_tokens"] - before) / 4 - row["completions/mean_length"])
        )
        before = row["num_tokens"]
    return seen


def check(seed: int = 0) -> str:
    for (config, name), release in REMOVED.items():
        try:
            config(**{name: None})
            raised = ""
        except TypeError as error:
            raised = str(error)
        assert raised.endswith(f"got an unexpected keyword argument '{name}'"), (
            f"claim: {config.__name__}({name}=...) is a TypeError from TRL {release}, "
            f"got {raised!r}"
        )

    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    limit = 48  # the Fix's 512 would keep every one of these small test prompts
    long_text = "Summarise this report: " + "the committee met again. " * 12
    short_text = "Say hello."
    mixed = prompts([long_text, short_text, long_text + "!", short_text + "!"])
    lengths = [prompt_length(example, tokenizer) for example in mixed]
    assert sorted(lengths)[1] <= limit < sorted(lengths)[2], (
        f"claim: two prompts fit in {limit} tokens, two do not: {lengths}"
    )

    too_long = mixed.select([0, 2])
    seen = prompt_tokens_seen(too_long, seed)
    full = sorted(lengths[i] for i in (0, 2))
    assert sorted(seen) == full, (
        f"claim: GRPOTrainer feeds the whole prompt, no truncation: used {seen}, "
        f"the prompts have {full} tokens"
    )

    kept = drop_long_prompts(mixed, tokenizer, max_prompt_length=limit)
    assert kept["prompt"] == mixed.select([1, 3])["prompt"], (
        "claim: drop_long_prompts keeps exactly the prompts that fit"
    )
    seen_fixed = prompt_tokens_seen(kept, seed)
    assert max(seen_fixed) <= limit < min(seen), (
        f"claim: after the filter no prompt over {limit} tokens reaches the trainer: "
        f"{seen_fixed}"
    )
    return (
        f"4 removed arguments rejected; prompt tokens used {seen} without the filter "
        f"(limit {limit}), {seen_fixed} with it"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
