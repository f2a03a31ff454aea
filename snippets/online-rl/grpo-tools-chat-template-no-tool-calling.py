"""GRPOTrainer(tools=[...]) needs a chat template that renders tool calls and that TRL
knows how to parse: a plain ChatML template (SmolLM2, the test model) fails at
construction, and so does an edited copy of a known template; Qwen2.5's template on
the same tokens builds, shows the tool schema and parses a tool call.

Page: docs/online-rl/grpo-tools-chat-template-no-tool-calling.md
中文: docs/online-rl/grpo-tools-chat-template-no-tool-calling.zh.md
"""

# --8<-- [start:fix]
from transformers import AutoTokenizer
from trl.chat_template_utils import qwen2_5_chat_template


def tool_calling_tokenizer(model_name):
    tokenizer = AutoTokenizer.from_pretrained(model_name)
    # a ChatML model without tool support (SmolLM2, ...): Qwen2.5's template renders
    # tool calls with the same <|im_start|>/<|im_end|> markers, and TRL parses it
    tokenizer.chat_template = qwen2_5_chat_template
    return tokenizer


# then: GRPOTrainer(..., processing_class=tool_calling_tokenizer(MODEL), tools=[...])
# --8<-- [end:fix]


# --8<-- [start:evidence]
import os
import tempfile

import torch
from datasets import Dataset
from transformers import set_seed
from trl import GRPOConfig, GRPOTrainer
from trl.chat_template_utils import parse_response

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
SYSTEM = "You are a calculator. Call the `multiply` tool to multiply."


def multiply(a: int, b: int) -> int:
    """
    Multiplies two integers.

    Args:
        a: The first integer.
        b: The second integer.
    """
    return a * b


def length_reward(completions, **kwargs):
    return [float(len(c[-1].get("content") or "")) for c in completions]


def build(tokenizer, seed):
    """A GRPOTrainer with one tool; the error its constructor raises, if any."""
    set_seed(seed)
    dataset = Dataset.from_list(
        [
            {
                "prompt": [
                    {"role": "system", "content": SYSTEM},
                    {"role": "user", "content": f"What is {a} times {a + 7}?"},
                ]
            }
            for a in range(11, 19)
        ]
    )
    args = GRPOConfig(
        output_dir=tempfile.mkdtemp(),
        per_device_train_batch_size=4,
        num_generations=4,
        max_completion_length=8,
        max_steps=1,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    try:
        return GRPOTrainer(
            model=MODEL,
            reward_funcs=length_reward,
            args=args,
            train_dataset=dataset,
            processing_class=tokenizer,
            tools=[multiply],
        )
    except ValueError as error:
        return str(error)


def check(seed: int = 0) -> str:
    call = {"type": "function", "function": {"name": "multiply", "arguments": {"a": 3}}}
    chat = [
        {"role": "user", "content": "What is 3 times 7?"},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "name": "multiply", "content": "21"},
    ]

    # symptom 1: the model's own ChatML template renders the tool message but drops
    # the assistant's call, and GRPOTrainer refuses it
    stock = AutoTokenizer.from_pretrained(MODEL)
    assert "multiply" not in stock.apply_chat_template(chat, tokenize=False), (
        "claim: the stock template drops the assistant's tool call"
    )
    error = build(stock, seed)
    assert isinstance(error, str), "claim: tools=[...] fails with the stock template"
    assert "does not support tool calling" in error, error

    # symptom 2: an edited copy of a known template renders tool calls, but TRL has
    # no parser for it: it recognises templates by their exact text
    edited = tool_calling_tokenizer(MODEL)
    edited.chat_template = qwen2_5_chat_template.replace("You are Qwen", "You are Smol")
    assert "multiply" in edited.apply_chat_template(chat, tokenize=False), (
        "claim: the edited copy still renders the tool call"
    )
    error = build(edited, seed)
    assert isinstance(error, str), "claim: an edited template fails too"
    assert "Unrecognized chat template, failed to add response schema" in error, error

    # fix: Qwen2.5's template, unchanged
    tokenizer = tool_calling_tokenizer(MODEL)
    trainer = build(tokenizer, seed)
    assert not isinstance(trainer, str), f"claim: the fix builds: {trainer}"
    question = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "What is 3 times 7?"},
    ]
    prompt = tokenizer.apply_chat_template(
        question, tools=[multiply], add_generation_prompt=True, tokenize=False
    )
    assert '"name": "multiply"' in prompt and "The first integer." in prompt, (
        "claim: the prompt carries the tool's schema, from its signature and docstring"
    )
    # a fixed completion in the template's format, through the parser TRL calls on
    # every completion (whether the model chooses to call a tool is not tested here)
    text = '<tool_call>\n{"name": "multiply", "arguments": {"a": 3, "b": 7}}\n'
    completion = text + "</tool_call><|im_end|>"
    ids = tokenizer(completion, add_special_tokens=False)["input_ids"]
    prefix = tokenizer(prompt, add_special_tokens=False)["input_ids"]
    parsed = parse_response(trainer.processing_class, ids, prefix=prefix)
    calls = parsed.get("tool_calls") or []
    assert [c["function"]["name"] for c in calls] == ["multiply"], (
        f"claim: TRL parses the call: {parsed}"
    )
    result = multiply(**calls[0]["function"]["arguments"])
    assert result == 21, f"claim: the parsed arguments call the tool: {result}"

    trainer.train()
    logs = [log for log in trainer.state.log_history if "loss" in log]
    assert "tools/call_frequency" in logs[0], (
        f"claim: a step with tools logs tools/call_frequency: {sorted(logs[0])}"
    )
    return (
        "stock template: 'does not support tool calling'; edited Qwen2.5 template: "
        "'Unrecognized chat template'; Qwen2.5 template: builds, parses "
        f"multiply(a=3, b=7) = {result}, tools/call_frequency = "
        f"{logs[0]['tools/call_frequency']:.2f} after one step"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
