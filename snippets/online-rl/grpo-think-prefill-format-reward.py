"""A `<think>` format reward that is always 0 because the chat template already put `<think>` in the prompt.

Page: docs/online-rl/grpo-think-prefill-format-reward.md (中文: docs/online-rl/grpo-think-prefill-format-reward.zh.md)
Run:  python snippets/online-rl/grpo-think-prefill-format-reward.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# training runs cost > 1 s per seed, so the suite runs two seeds (seeds 0-2 pass; re-checked 2026-12-02)
SEEDS = (0, 1)


# --8<-- [start:setup]
def reasoning_tokenizer(seed: int = 0, prefill: bool = True):
    """The tiny tokenizer with a DeepSeek-R1 / Qwen3-thinking style template: the generation prompt ends in <think>."""
    import json

    from tokenizers import Tokenizer
    from transformers import AutoTokenizer, PreTrainedTokenizerFast

    from handbook.tiny import CHATML_TEMPLATE

    base = AutoTokenizer.from_pretrained(runner.model_path(seed))
    spec = json.loads(base.backend_tokenizer.to_str())
    for tok in spec["added_tokens"]:  # as in Qwen3 / R1-distill: <think> is an added token, but not "special",
        if tok["content"] in ("<think>", "</think>"):  # so skip_special_tokens=True keeps it in decoded text
            tok["special"] = False
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=Tokenizer.from_str(json.dumps(spec)), eos_token="<|im_end|>", pad_token="<|endoftext|>"
    )
    prompt_end = "'<|im_start|>assistant\n<think>\n'" if prefill else "'<|im_start|>assistant\n'"
    tokenizer.chat_template = CHATML_TEMPLATE.replace("'<|im_start|>assistant\n' }}{% endif %}", prompt_end + " }}{% endif %}")
    return tokenizer


def run_grpo(reward_func, seed: int = 0) -> dict:
    """Two GRPO steps; the stand-in policy writes a little reasoning, then `</think>`, then stops."""
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    runner.setup(seed)
    tokenizer = reasoning_tokenizer(seed)
    close, eos = tokenizer.convert_tokens_to_ids("</think>"), tokenizer.eos_token_id
    seen = []

    def recorded(completions, **kwargs):
        seen.extend(c[0]["content"] for c in completions)
        return reward_func(completions, **kwargs)

    recorded.__name__ = reward_func.__name__
    prompts = Dataset.from_list([{"prompt": [{"role": "user", "content": f"What is {i} + {i}?"}]} for i in range(8)])
    args = runner.config(
        GRPOConfig, seed, num_generations=4, per_device_train_batch_size=4, max_completion_length=8, max_steps=2,
        # The tiny model is random: bias it so it closes the reasoning with </think> and then ends the turn.
        generation_kwargs={"sequence_bias": [[[close], 8.0], [[close, eos], 50.0]]},
    )
    trainer = GRPOTrainer(
        model=runner.model_path(seed), reward_funcs=recorded, processing_class=tokenizer, args=args,
        train_dataset=prompts,
    )
    trainer.train()
    rendered = tokenizer.apply_chat_template(prompts[0]["prompt"], tokenize=False, add_generation_prompt=True)
    return {
        "prompt_tail": rendered[-20:],
        "completions": seen,
        "reward": runner.history(trainer, f"rewards/{reward_func.__name__}/mean"),
    }
# --8<-- [end:setup]


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    from trl.rewards import think_format_reward  # pattern: r"^<think>(?!.*<think>)(.*?)</think>.*$"

    return run_grpo(think_format_reward, seed)
# --8<-- [end:symptom]


# --8<-- [start:fix]
def prefill_aware_think_format(completions, **kwargs) -> list[float]:
    """The opening tag may live in the prompt: require </think>, accept an optional leading <think>."""
    import re

    pattern = r"^(?:<think>)?(?!.*<think>)(.*?)</think>.*$"
    texts = [c[0]["content"] if isinstance(c, list) else c for c in completions]
    return [1.0 if re.match(pattern, t, re.DOTALL) else 0.0 for t in texts]


def fix(seed: int = 0) -> dict:
    return run_grpo(prefill_aware_think_format, seed)
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    bad, good = symptom(seed), fix(seed)
    assert bad["prompt_tail"].endswith("assistant\n<think>\n"), bad["prompt_tail"]
    assert not any("<think>" in c for c in bad["completions"]), "the prefilled tag never reaches the completion"
    closed = sum("</think>" in c for c in bad["completions"]) / len(bad["completions"])
    assert closed >= 0.75, f"the stand-in policy should close its reasoning, got {closed:.0%}"
    assert bad["reward"] == [0.0, 0.0], f"think_format_reward should score every completion 0: {bad['reward']}"
    assert min(good["reward"]) >= 0.75, f"the prefill-aware reward should see the format: {good['reward']}"
    return (
        f"prompt ends {bad['prompt_tail'][-10:]!r}; {closed:.0%} of completions contain </think>, none <think>; "
        f"rewards/think_format_reward/mean {bad['reward']} vs prefill-aware {good['reward']}"
    )
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
