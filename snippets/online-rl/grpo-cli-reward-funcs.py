"""`trl grpo --reward_funcs`: which names the script turns into reward
functions, run through TRL's own GRPO script (its parser and main) in-process.

Page: docs/online-rl/grpo-cli-reward-funcs.md
中文: docs/online-rl/grpo-cli-reward-funcs.zh.md
"""


# --8<-- [start:fix]
# my_rewards.py, in the folder you start `trl grpo` from; then pass it as
#   --reward_funcs my_rewards.answer_reward
def answer_reward(completions, answer, **kwargs):
    """1.0 for the exact answer, else a small penalty per character."""
    # messages or plain text
    texts = [c[0]["content"] if isinstance(c, list) else c for c in completions]
    return [
        1.0 if text.strip() == a else -len(text) / 1000
        for text, a in zip(texts, answer, strict=True)
    ]


# --8<-- [end:fix]


# --8<-- [start:evidence]
import ast
import contextlib
import inspect
import io
import json
import os
import pathlib
import shutil
import sys
import tempfile

import torch
import trl
from packaging.version import Version
from trl.scripts import grpo as grpo_script

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
TRL = Version(trl.__version__)


def trl_grpo(reward_args, seed, start_in="project"):
    """What `trl grpo ... <reward_args>` runs, in this process: TRL's own GRPO
    script, started in `start_in` of a fresh folder that holds
    project/my_rewards.py (the Fix) and data/train.jsonl (four prompts).
    Returns the error it raised (or None) and the log lines it printed."""
    root = pathlib.Path(tempfile.mkdtemp())
    (root / "project").mkdir()
    (root / "project" / "my_rewards.py").write_text(inspect.getsource(answer_reward))
    (root / "data").mkdir()
    rows = [
        {
            "prompt": [{"role": "user", "content": f"What is {i} + {i}?"}],
            "answer": str(2 * i),
        }
        for i in range(4)
    ]
    lines = "".join(json.dumps(row) + "\n" for row in rows)
    (root / "data" / "train.jsonl").write_text(lines)
    argv = [
        "--model_name_or_path", MODEL,
        "--dataset_name", str(root / "data"),
        "--output_dir", str(root / "out"),
        "--num_generations", "4",
        "--per_device_train_batch_size", "4",
        "--max_completion_length", "8",
        "--max_steps", "2",
        "--logging_steps", "1",
        "--save_strategy", "no",
        "--report_to", "none",
        "--disable_tqdm", "True",
        "--bf16", str(torch.cuda.is_available()),
        "--seed", str(seed),
        *reward_args,
    ]  # fmt: skip
    # a fresh `trl grpo` process has not imported my_rewards yet
    sys.modules.pop("my_rewards", None)
    printed, cwd, path = io.StringIO(), os.getcwd(), list(sys.path)
    os.chdir(root / start_in)
    try:
        with contextlib.redirect_stdout(printed):
            parsed = grpo_script.make_parser().parse_args_and_config(argv)
            grpo_script.main(*parsed)
        error = None
    except (AttributeError, ImportError, NameError, ValueError) as e:
        error = f"{type(e).__name__}: {e}"
    finally:
        os.chdir(cwd)
        sys.path[:] = path  # the script put the folder it started in first
        shutil.rmtree(root, ignore_errors=True)
    # the dicts the Trainer prints, one per logged step
    logged = [
        ast.literal_eval(line)
        for line in printed.getvalue().splitlines()
        if line.startswith("{") and "'loss'" in line
    ]
    return error, logged


def check(seed: int = 0) -> str:
    fixed = ["--reward_funcs", "my_rewards.answer_reward", "think_format_reward"]
    if TRL < Version("0.20"):
        # 0.18.0-0.19.1: trl/scripts/grpo.py passes `reward_model`, set only by
        # --reward_model_name_or_path, instead of the list it built
        error, _ = trl_grpo(fixed, seed)
        assert (error or "").startswith(
            "UnboundLocalError: cannot access local variable 'reward_model'"
        ), f"claim: on trl {TRL} any --reward_funcs fails: {error!r}"
        error, logged = trl_grpo([*fixed, "--reward_model_name_or_path", MODEL], seed)
        keys = sorted({key for row in logged for key in row if "rewards/" in key})
        assert error is None and not any("answer_reward" in key for key in keys), (
            f"claim: with a reward model it trains, without the functions: {keys}"
        )
        return f"trl {TRL}: UnboundLocalError; with a reward model only {keys}"

    mistakes = {
        # a file name: split at its last dot, "py" is taken for the function
        "file name": (["--reward_funcs", "my_rewards.py"], "project"),
        # no dot and not a built-in name
        "bare name": (["--reward_funcs", "answer_reward"], "project"),
        # a folder path is no module name
        "path": (["--reward_funcs", "project/my_rewards.answer_reward"], "."),
        # right name, started from another folder
        "elsewhere": (["--reward_funcs", "my_rewards.answer_reward"], "data"),
    }
    errors = {
        k: trl_grpo(args, seed, where)[0] for k, (args, where) in mistakes.items()
    }
    expected = {
        "file name": "AttributeError: module 'my_rewards' has no attribute 'py'",
        "bare name": "ValueError: Could not load reward function 'answer_reward'.",
        "path": "ModuleNotFoundError: No module named 'project/my_rewards'",
        "elsewhere": "ModuleNotFoundError: No module named 'my_rewards'",
    }
    if TRL >= Version("1.8"):  # before, GRPOTrainer took an empty list of rewards
        # no --reward_funcs and no --reward_model_name_or_path
        errors["no reward"] = trl_grpo([], seed)[0]
        expected["no reward"] = "ValueError: No reward source provided."
    for name, start in expected.items():
        assert (errors[name] or "").startswith(start), (
            f"claim: {name} fails with {start!r}, got {errors[name]!r}"
        )

    error, logged = trl_grpo(fixed, seed)
    assert error is None and len(logged) == 2, (
        f"claim: module.function trains from its folder: {error!r}, {logged}"
    )
    rewards = [float(row["rewards/answer_reward/mean"]) for row in logged]
    assert all("rewards/think_format_reward/mean" in row for row in logged), (
        f"claim: a built-in name works alongside it: {sorted(logged[0])}"
    )
    # answer_reward gives 1.0 or minus a thousandth per character
    assert all(-1 < r <= 1 for r in rewards), (
        f"claim: the console logs answer_reward's own values: {rewards}"
    )
    return (
        f"trl {TRL}: {', '.join(e.split(':')[0] for e in errors.values())}; "
        f"my_rewards.answer_reward trains, rewards/answer_reward/mean {rewards}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
