"""A `<think>` format reward that is always 0 because the chat template
already put `<think>` in the prompt.

Page: docs/online-rl/grpo-think-prefill-format-reward.md
中文: docs/online-rl/grpo-think-prefill-format-reward.zh.md
"""

# --8<-- [start:fix]
import re


def prefill_aware_think_format(completions, **kwargs):
    """The opening tag may live in the prompt: require </think>,
    accept an optional leading <think>."""
    pattern = r"^(?:<think>)?(?!.*<think>)(.*?)</think>.*$"
    texts = [c[0]["content"] if isinstance(c, list) else c for c in completions]
    return [1.0 if re.match(pattern, text, re.DOTALL) else 0.0 for text in texts]


# --8<-- [end:fix]


# --8<-- [start:evidence]
import os

import torch
from datasets import Dataset
from transformers import AutoTokenizer, set_seed
from trl import GRPOConfig, GRPOTrainer
from trl.rewards import think_format_reward

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

# A DeepSeek-R1-Distill-style ChatML template: the generation prompt already
# opens the reasoning with <think>.
R1_STYLE_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + "
    "message['content'] + '<|im_end|>\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n<think>\n' }}{% endif %}"
)


def as_completions(*texts):
    """Texts in the shape GRPO passes conversational
    completions to a reward function."""
    return [[{"role": "assistant", "content": text}] for text in texts]


def train(seed):
    """Two GRPO steps with the R1-style template; return the logs, the rendered
    prompt and what the rewards got."""
    set_seed(seed)
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    tokenizer.chat_template = R1_STYLE_TEMPLATE
    received = []

    def record_inputs(prompts, completions, **kwargs):
        """Keeps the prompts and completions TRL passes to
        reward functions; scores nothing."""
        received.extend(zip(prompts, completions, strict=True))
        return [None] * len(completions)

    prompts = Dataset.from_list(
        [
            {"prompt": [{"role": "user", "content": f"What is {i} + {i}?"}]}
            for i in range(8)
        ]
    )
    args = GRPOConfig(
        num_generations=4,
        per_device_train_batch_size=4,
        max_completion_length=8,
        max_steps=2,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    reward_funcs = [think_format_reward, prefill_aware_think_format, record_inputs]
    trainer = GRPOTrainer(
        model=MODEL,
        processing_class=tokenizer,
        reward_funcs=reward_funcs,
        args=args,
        train_dataset=prompts,
    )
    trainer.train()
    rendered = tokenizer.apply_chat_template(
        prompts[0]["prompt"], tokenize=False, add_generation_prompt=True
    )
    logs = [row for row in trainer.state.log_history if "reward" in row]
    return logs, rendered, received


def check(seed: int = 0) -> str:
    # A well-formed answer as a reward function receives it when the template
    # prefilled <think>: no opening tag.
    answer = "2 + 2 is 4.\n</think>\nThe answer is 4."
    assert think_format_reward(as_completions(answer)) == [0.0], (
        "claim: TRL's reward scores it 0 without <think>"
    )
    assert think_format_reward(as_completions("<think>\n" + answer)) == [1.0], (
        "claim: the same with <think> scores 1"
    )
    assert prefill_aware_think_format(as_completions(answer, "<think>\n" + answer)) == [
        1.0,
        1.0,
    ], "claim: the prefill-aware reward accepts both forms"
    malformed = as_completions("The answer is 4.", "<think>a</think><think>b</think>")
    assert prefill_aware_think_format(malformed) == [0.0, 0.0], (
        "claim: it still needs one block closed by </think>"
    )

    logs, rendered, received = train(seed)
    assert rendered.endswith("assistant\n<think>\n"), (
        f"the template should prefill <think>: {rendered[-20:]!r}"
    )
    assert not any("<think>" in str(prompt) for prompt, _ in received), (
        "claim: reward functions get the prompt as "
        "messages, without the prefilled <think>"
    )
    assert not any(
        completion[0]["content"].startswith("<think>") for _, completion in received
    ), (
        "claim: a completion is only the generated text, so it does not "
        "start with the prefilled <think>"
    )
    logged = [row["rewards/think_format_reward/mean"] for row in logs]
    assert logged == [0.0, 0.0], (
        f"claim: think_format_reward logs 0.0 at every step, got {logged}"
    )
    return (
        f"prompt ends {rendered[-18:]!r}; {len(received)} completions, none starts "
        f"with <think>; rewards/think_format_reward/mean {logged}; a well-formed "
        "answer without the opening tag: TRL 0.0, prefill-aware 1.0"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed (one training run per seed)

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
