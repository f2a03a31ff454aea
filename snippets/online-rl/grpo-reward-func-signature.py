"""Reward-function signature mistakes in GRPO: message-list completions, extra kwargs, one value instead of a list.

Page: docs/online-rl/grpo-reward-func-signature.md (中文: docs/online-rl/grpo-reward-func-signature.zh.md)
Run:  python snippets/online-rl/grpo-reward-func-signature.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# training runs cost > 1 s per seed, so the suite runs two seeds (seeds 0-2 pass; re-checked 2026-12-02)
SEEDS = (0, 1)


# --8<-- [start:run]
_runs = {}  # fix() and symptom() share the same real step, to keep the test fast


def run_grpo(reward_func, seed: int = 0, remove_unused_columns: bool = False):
    """One GRPO step on conversational prompts with an `answer` column.

    Returns the trainer (or the error text) and the arguments TRL passed to its reward computation."""
    key = (reward_func.__name__, seed, remove_unused_columns)
    if key not in _runs:
        _runs[key] = _run_grpo(reward_func, seed, remove_unused_columns)
    return _runs[key]


def _run_grpo(reward_func, seed, remove_unused_columns):
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    runner.setup(seed)
    calls = []

    class Recording(GRPOTrainer):  # only records the arguments of TRL's own reward step; changes nothing
        def _calculate_rewards(self, inputs, prompts, completions, completion_ids_list):
            calls.append((inputs, prompts, completions, completion_ids_list))
            return super()._calculate_rewards(inputs, prompts, completions, completion_ids_list)

    rows = [{"prompt": [{"role": "user", "content": f"What is {i} + {i}?"}], "answer": str(2 * i)} for i in range(4)]
    args = runner.config(
        GRPOConfig, seed, num_generations=4, per_device_train_batch_size=4, max_completion_length=4, max_steps=1,
        remove_unused_columns=remove_unused_columns,  # GRPOConfig's default is False: keep the extra columns
    )
    trainer = Recording(
        model=runner.model_path(seed), reward_funcs=reward_func, args=args, train_dataset=Dataset.from_list(rows)
    )
    try:
        trainer.train()
    except (TypeError, ValueError, AttributeError) as e:
        return f"{type(e).__name__}: {e}", calls
    return trainer, calls


def call_reward(trainer, calls, reward_func):
    """Run TRL's GRPOTrainer._calculate_rewards with `reward_func` on the arguments of a real step."""
    trainer.reward_funcs, trainer.reward_func_names = [reward_func], [reward_func.__name__]
    try:
        trainer._calculate_rewards(*calls[0])
    except (TypeError, ValueError, AttributeError) as e:
        return f"{type(e).__name__}: {e}"
    return None
# --8<-- [end:run]


# --8<-- [start:symptom]
def only_completions(completions):  # no **kwargs: TRL also passes prompts, completion_ids, answer, trainer_state...
    return [1.0 for _ in completions]


def treats_completion_as_text(completions, **kwargs):  # conversational prompts -> each completion is a message list
    return [1.0 if c.strip().endswith("4") else 0.0 for c in completions]


def returns_one_number(completions, **kwargs):  # one score for the batch, not one per completion
    return 1.0


def returns_one_item_list(completions, **kwargs):
    return [1.0]


def symptom(seed: int = 0) -> dict:
    trainer, calls = run_grpo(exact_answer, seed)  # a real step, then the same reward call with each mistake
    funcs = (only_completions, treats_completion_as_text, returns_one_number, returns_one_item_list)
    out = {f.__name__: call_reward(trainer, calls, f) for f in funcs}
    # A correct function, but remove_unused_columns=True dropped the `answer` column before it got there.
    out["column_dropped"], _ = run_grpo(exact_answer, seed, remove_unused_columns=True)
    return out
# --8<-- [end:symptom]


# --8<-- [start:fix]
seen = {}


def exact_answer(prompts, completions, answer, **kwargs) -> list[float]:
    """One float per completion. `answer` is the dataset column, repeated once per generation."""
    seen.update(n_completions=len(completions), answers=list(answer), first=completions[0], extra=sorted(kwargs))
    texts = [c[0]["content"] if isinstance(c, list) else c for c in completions]  # messages or plain text
    return [1.0 if t.strip() == a else 0.0 for t, a in zip(texts, answer, strict=True)]


def fix(seed: int = 0) -> dict:
    seen.clear()
    trainer, _ = run_grpo(exact_answer, seed)
    return {"error": trainer if isinstance(trainer, str) else None, **seen}
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    _runs.clear()
    good = fix(seed)  # first, so that `seen` holds the fixed function's view of a normal step
    bad = symptom(seed)
    assert bad["only_completions"] == "TypeError: only_completions() got an unexpected keyword argument 'prompts'", bad
    assert bad["treats_completion_as_text"] == "AttributeError: 'list' object has no attribute 'strip'", bad
    assert bad["returns_one_number"] == "TypeError: 'float' object is not iterable", bad
    assert bad["returns_one_item_list"] == (
        "ValueError: The reward function 'returns_one_item_list' returned 1 rewards, but 4 were expected (one per "
        "prompt-completion pair). Make sure the reward function returns exactly one reward per completion."
    ), bad
    assert bad["column_dropped"] == "TypeError: exact_answer() missing 1 required positional argument: 'answer'", bad
    assert good["error"] is None, good
    assert good["n_completions"] == 4 and len(set(good["answers"])) == 1, "one prompt x 4 generations, same answer"
    assert isinstance(good["first"], list) and good["first"][0]["role"] == "assistant", good["first"]
    assert good["extra"] == ["completion_ids", "log_extra", "log_metric", "trainer_state"], good["extra"]
    return "; ".join(f"{k}: {v[:50]}" for k, v in bad.items()) + f"; **kwargs received {good['extra']}"
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
