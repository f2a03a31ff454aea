"""Length bias: a reward that grows with length pushes every group toward its longest
completion; drop the length term.

Page: docs/rewards/reward-length-bias.md
中文: docs/rewards/reward-length-bias.zh.md
"""

# --8<-- [start:symptom]
import zlib


def quality(text):
    """The property we actually want. A stand-in that cannot depend on
    length: a score in [0, 1) read from a checksum of the text, so it
    differs from one completion to the next."""
    return zlib.crc32(text.encode()) / 2**32


def length_biased_rm(completions, **kwargs):
    """A reward model that learned 'longer looks better': quality plus
    a term that grows with length."""
    return [quality(completion) + 0.2 * len(completion) for completion in completions]


# --8<-- [end:symptom]


# --8<-- [start:fix]
def quality_only(completions, **kwargs):
    """The same reward without the length term (or: retrain the RM
    on pairs balanced for length)."""
    return [quality(completion) for completion in completions]


# --8<-- [end:fix]


# --8<-- [start:evidence]
import os
import statistics

import torch
from datasets import Dataset
from transformers import set_seed
from trl import GRPOConfig, GRPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
GROUP = 4  # num_generations


class RecordingGRPOTrainer(GRPOTrainer):
    """GRPOTrainer that also keeps every completion and its
    advantage; it changes nothing else."""

    def _generate_and_score_completions(self, inputs):
        out = super()._generate_and_score_completions(inputs)
        self.advantages.extend(out["advantages"].flatten().tolist())
        texts = self.processing_class.batch_decode(
            out["completion_ids"], skip_special_tokens=True
        )
        self.completions.extend(texts)
        return out


def length_push(reward_func, seed):
    """One GRPO step on 8 prompts x 4 completions: corr(length minus its group's
    mean, advantage), and the logs."""
    set_seed(seed)
    args = GRPOConfig(
        num_generations=GROUP,
        per_device_train_batch_size=32,
        max_completion_length=12,
        max_steps=1,
        logging_steps=1,
        save_strategy="no",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    prompts = Dataset.from_list([{"prompt": f"Answer question {i}:"} for i in range(8)])
    trainer = RecordingGRPOTrainer(
        model=MODEL, reward_funcs=reward_func, args=args, train_dataset=prompts
    )
    trainer.advantages, trainer.completions = [], []
    trainer.train()
    lengths = [len(text) for text in trainer.completions]  # characters
    # A correlation needs both sides to vary: lengths (asserted in check) and
    # advantages (a quality that differs).
    assert len(set(trainer.advantages)) > 1, (
        "the check needs rewards that differ within some group"
    )
    # GRPO compares completions only within a group, so compare
    # each length with its group's mean.
    centred = [
        n - statistics.mean(lengths[i // GROUP * GROUP : i // GROUP * GROUP + GROUP])
        for i, n in enumerate(lengths)
    ]
    return (
        statistics.correlation(centred, trainer.advantages),
        lengths,
        trainer.state.log_history[0],
    )


def check(seed: int = 0) -> str:
    biased, lengths, logs = length_push(length_biased_rm, seed)
    fixed, _, _ = length_push(quality_only, seed)
    assert min(lengths) < max(lengths), (
        "the check needs completions of different lengths"
    )
    # A positive advantage-length correlation is a push
    # toward longer answers at every step.
    assert biased > 0.45, (
        "claim: the length-biased reward favours the longer "
        f"completions (corr {biased:.2f})"
    )
    assert biased - fixed > 0.25, (
        "claim: without the length term the push mostly "
        f"vanishes ({biased:.2f} -> {fixed:.2f})"
    )
    assert "completions/mean_length" in logs, (
        "claim: TRL logs completions/mean_length, the metric that drifts"
    )
    return (
        f"corr(length - group mean, advantage) {biased:+.2f} with the length-biased "
        f"reward, {fixed:+.2f} without; completions/mean_length "
        f"{logs['completions/mean_length']:.1f} tokens"
    )


SEEDS = (0, 1)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
