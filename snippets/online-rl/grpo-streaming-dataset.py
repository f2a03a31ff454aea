"""GRPO and RLOO on a streaming (iterable) dataset: NotImplementedError up to
TRL 1.8, the max_steps error from 1.9, and the two fixes.

Page: docs/online-rl/grpo-streaming-dataset.md
中文: docs/online-rl/grpo-streaming-dataset.zh.md
"""

# --8<-- [start:fix]
import torch
import trl
from datasets import Dataset
from packaging.version import Version
from trl import GRPOConfig

# TRL 1.9 and later read the stream itself; it has no length, so say how
# many optimizer steps to take
grpo_args = GRPOConfig(
    max_steps=1000,
    bf16=torch.cuda.is_available(),
)


def in_memory(stream, n_prompts=20_000):
    """Read the first n_prompts of the stream into a map-style Dataset."""
    return Dataset.from_list(list(stream.take(n_prompts)))


def prompts_for_trl(stream):
    """TRL 0.19 to 1.8 refuse a stream (NotImplementedError): load it."""
    if Version(trl.__version__) >= Version("1.9"):
        return stream
    return in_memory(stream)


# then: GRPOTrainer(..., args=grpo_args, train_dataset=prompts_for_trl(stream))
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import os

from datasets import IterableDataset
from transformers import set_seed
from trl import GRPOTrainer, RLOOConfig, RLOOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
TRL = Version(trl.__version__)
GROUP = 4  # num_generations


def questions():
    for i in range(1000):
        yield {"prompt": [{"role": "user", "content": f"What is {i} + {i}?"}]}


def make_stream():
    """What load_dataset(..., streaming=True) returns: an IterableDataset."""
    return IterableDataset.from_generator(questions)


def small(args, max_steps, seed):
    """Test-size settings around the user's config (CPU, seconds)."""
    return dataclasses.replace(
        args,
        max_steps=max_steps,
        per_device_train_batch_size=GROUP,
        num_generations=GROUP,
        generation_batch_size=None,
        steps_per_generation=None,
        max_completion_length=4,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
    )


def refusal(trainer_cls, config_cls, seed):
    """Build the trainer on the stream, without max_steps (the default, -1):
    the error it raises, or None."""
    set_seed(seed)
    args = config_cls(
        per_device_train_batch_size=GROUP,
        num_generations=GROUP,
        report_to="none",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    try:
        trainer_cls(
            model=MODEL,
            reward_funcs=answer_length,
            args=args,
            train_dataset=make_stream(),
        )
    except (NotImplementedError, ValueError) as e:
        return f"{type(e).__name__}: {e}"
    return None


def answer_length(completions, **kwargs):
    return [float(len(c[0]["content"])) for c in completions]


def train(train_dataset, seed):
    """Two optimizer steps with the Fix's config; returns the prompts
    each reward call saw."""
    set_seed(seed)
    seen = []

    def answer_length_seen(prompts, completions, **kwargs):
        seen.append([p[-1]["content"] for p in prompts])
        return answer_length(completions)

    args = small(grpo_args, 2, seed)
    trainer = GRPOTrainer(
        model=MODEL,
        reward_funcs=answer_length_seen,
        args=args,
        train_dataset=train_dataset,
    )
    trainer.train()
    return seen


def groups_whole(seen):
    """Each reward call holds whole groups: GROUP copies of one prompt each."""
    groups = [
        batch[i : i + GROUP] for batch in seen for i in range(0, len(batch), GROUP)
    ]
    return bool(groups) and all(len(set(g)) == 1 and len(g) == GROUP for g in groups)


def check(seed: int = 0) -> str:
    assert grpo_args.max_steps > 0, "claim: the Fix gives max_steps"
    # the symptom: the stream, without max_steps (the default, -1)
    error = refusal(GRPOTrainer, GRPOConfig, seed)
    rloo_error = refusal(RLOOTrainer, RLOOConfig, seed)
    if TRL < Version("1.9"):
        for name, err in (("GRPOTrainer", error), ("RLOOTrainer", rloo_error)):
            expected = (
                "NotImplementedError: Iterable datasets are not yet supported "
                f"in {name}"
            )
            assert (err or "").startswith(expected), (
                f"claim: trl {TRL} refuses a stream in {name}: {err!r}"
            )
    else:
        for err in (error, rloo_error):
            assert (err or "").startswith(
                "ValueError: The train_dataset does not implement __len__"
            ) and "max_steps has to be specified" in err, (
                f"claim: trl {TRL} asks for max_steps with a stream: {err!r}"
            )

    # the fix: the stream, or its first prompts in memory before 1.9
    seen = train(prompts_for_trl(make_stream()), seed)
    assert len(seen) == 2, f"claim: the fix trains for max_steps=2: {len(seen)} calls"
    assert groups_whole(seen), f"claim: every group is one prompt x {GROUP}: {seen}"
    # the in-memory route works on every release
    loaded = train(in_memory(make_stream(), 64), seed)
    assert len(loaded) == 2 and groups_whole(loaded), (
        f"claim: the first prompts, in memory, train in whole groups: {loaded}"
    )
    kind = type(prompts_for_trl(make_stream())).__name__
    return (
        f"trl {TRL}: without max_steps {(error or '')[:45]!r}...; "
        f"fix on {kind}: 2 steps, groups {[g[0] for g in seen]}; "
        f"in memory: {[g[0] for g in loaded]}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
