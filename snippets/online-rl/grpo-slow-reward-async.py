"""GRPO steps dominated by a reward that waits on a judge or an API: a plain (sync)
reward function, and an async one that awaits its calls one by one, wait once per
completion; an async reward that awaits them together with asyncio.gather waits once
per step.

Page: docs/online-rl/grpo-slow-reward-async.md
中文: docs/online-rl/grpo-slow-reward-async.zh.md
"""

# --8<-- [start:fix]
import asyncio


async def judge_reward(prompts, completions, **kwargs):
    """GRPOTrainer awaits an async reward on its own event loop."""
    # start every call, then wait for all of them: one latency per step
    scores = await asyncio.gather(*map(ask_judge, prompts, completions))
    return [float(score) for score in scores]


# --8<-- [end:fix]


# --8<-- [start:evidence]
import inspect
import os
import statistics
import tempfile
import time

import torch
from datasets import Dataset
from transformers import set_seed
from trl import GRPOConfig, GRPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
LATENCY = 0.3  # seconds one judge call waits (an HTTP request, a sandbox run)
GROUP = 4  # completions per step
calls = {"in_flight": 0, "most": 0}  # judge calls running at the same time


async def ask_judge(prompt, completion):
    """Stands in for `await client.chat.completions.create(...)` and the like."""
    calls["in_flight"] += 1
    calls["most"] = max(calls["most"], calls["in_flight"])
    await asyncio.sleep(LATENCY)  # waiting, not computing
    calls["in_flight"] -= 1
    return len(completion) / 100


def judge_reward_blocking(prompts, completions, **kwargs):
    """The symptom: a plain reward function with a blocking client."""
    scores = []
    for completion in completions:
        calls["in_flight"] += 1
        calls["most"] = max(calls["most"], calls["in_flight"])
        time.sleep(LATENCY)  # e.g. requests.post(...)
        calls["in_flight"] -= 1
        scores.append(len(completion) / 100)
    return scores


async def judge_reward_one_by_one(prompts, completions, **kwargs):
    """Also the symptom: async, but each call awaited before the next starts."""
    return [float(await ask_judge(p, c)) for p, c in zip(prompts, completions)]


def timed(reward_func, seconds):
    """The same reward function, recording how long each call of it takes."""
    if inspect.iscoroutinefunction(reward_func):

        async def wrapper(*args, **kwargs):
            started = time.perf_counter()
            try:
                return await reward_func(*args, **kwargs)
            finally:
                seconds.append(time.perf_counter() - started)

    else:

        def wrapper(*args, **kwargs):
            started = time.perf_counter()
            try:
                return reward_func(*args, **kwargs)
            finally:
                seconds.append(time.perf_counter() - started)

    wrapper.__name__ = reward_func.__name__
    return wrapper


def train(reward_func, seed):
    set_seed(seed)
    calls.update(in_flight=0, most=0)
    rows = [{"prompt": f"Describe the number {i} in one sentence."} for i in range(8)]
    args = GRPOConfig(
        output_dir=tempfile.mkdtemp(),
        per_device_train_batch_size=GROUP,
        num_generations=GROUP,
        max_completion_length=8,
        max_steps=3,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    seconds = []
    trainer = GRPOTrainer(
        model=MODEL,
        reward_funcs=timed(reward_func, seconds),
        args=args,
        train_dataset=Dataset.from_list(rows),
    )
    trainer.train()
    step_time = [h["step_time"] for h in trainer.state.log_history if "step_time" in h]
    return {
        "reward_seconds": seconds,  # one reward call per step
        "step_time": step_time,
        "most_at_once": calls["most"],
    }


def check(seed: int = 0) -> str:
    blocking = train(judge_reward_blocking, seed)
    one_by_one = train(judge_reward_one_by_one, seed)
    together = train(judge_reward, seed)
    for run in (blocking, one_by_one, together):
        assert len(run["reward_seconds"]) == 3, f"claim: one reward call a step {run}"
    assert blocking["most_at_once"] == 1 and one_by_one["most_at_once"] == 1, (
        "claim: a sync reward, and awaits one by one, make one judge call at a time "
        f"({blocking['most_at_once']}, {one_by_one['most_at_once']})"
    )
    assert together["most_at_once"] == GROUP, (
        f"claim: asyncio.gather runs the {GROUP} calls at once {together}"
    )
    slow = min(blocking["reward_seconds"] + one_by_one["reward_seconds"])
    assert slow >= GROUP * LATENCY, f"claim: one latency per completion {slow:.2f}"
    fast = max(together["reward_seconds"])
    assert fast < 2 * LATENCY, f"claim: one latency per step {fast:.2f} s"
    waits = zip(blocking["step_time"], blocking["reward_seconds"], strict=True)
    assert all(step >= reward for step, reward in waits), (
        f"claim: step_time includes the wait {blocking}"
    )
    blocked = statistics.median(blocking["reward_seconds"])
    return (
        f"reward per step: blocking {blocked:.2f} s, async one by one "
        f"{statistics.median(one_by_one['reward_seconds']):.2f} s, asyncio.gather "
        f"{statistics.median(together['reward_seconds']):.2f} s "
        f"({blocked / statistics.median(together['reward_seconds']):.1f}x; at most "
        f"{together['most_at_once']} calls at once); median step_time "
        f"{statistics.median(blocking['step_time']):.2f} vs "
        f"{statistics.median(together['step_time']):.2f} s"
    )


SEEDS = (0,)  # one seed: the waits are sleeps, the same on every seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
