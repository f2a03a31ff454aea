"""How each GRPO loss_type weights the tokens of short vs long completions (the length
bias behind shrinking answers).

Page: docs/online-rl/grpo-length-bias-loss-type.md
中文: docs/online-rl/grpo-length-bias-loss-type.zh.md
"""

# --8<-- [start:fix]
import torch
from trl import GRPOConfig

grpo_config = GRPOConfig(
    # TRL's default since 0.29; remove any loss_type="grpo" left from an old recipe
    loss_type="dapo",
    learning_rate=1e-6,
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import math
import os

from datasets import Dataset
from transformers import set_seed
from trl import GRPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
MAX_COMPLETION_LENGTH = 8
# Two groups of num_generations=2 in one micro-batch of 4 rows: each group
# has a right and a wrong answer.
LENGTHS = (2, 8, 8, 2)  # short right, long wrong | long right, short wrong
ADVANTAGES = (1.0, -1.0, 1.0, -1.0)


def zero_reward(completions, **kwargs):
    return [0.0] * len(completions)


def token_weights(
    loss_type, seed, lengths=LENGTHS, advantages=ADVANTAGES, batch_tokens=None
):
    """d(loss)/d(log-prob of one token) for each completion, read from TRL's
    own GRPOTrainer._compute_loss.

    On-policy (ratio 1) every token's gradient is -advantage x (the weight the loss
    aggregation gives it), so this is exactly how strongly each token of each
    completion is pushed up or down. batch_tokens: the tokens of the whole generation
    batch, when this micro-batch is only part of it.
    """
    set_seed(seed)
    args = dataclasses.replace(
        grpo_config,
        loss_type=loss_type,  # each aggregation in turn, to compare them
        num_generations=2,
        per_device_train_batch_size=len(lengths),
        # GRPOConfig derived it from the old batch size: let it derive it again
        generation_batch_size=None,
        max_completion_length=MAX_COMPLETION_LENGTH,
        save_strategy="no",
        seed=seed,
    )
    prompts = Dataset.from_list([{"prompt": "Hi"}] * 4)
    trainer = GRPOTrainer(
        model=MODEL, reward_funcs=zero_reward, args=args, train_dataset=prompts
    )
    # evaluation mode: no gradient-accumulation scaling; the aggregation is the same
    trainer.model.eval()

    n, t = len(lengths), MAX_COMPLETION_LENGTH
    mask = torch.tensor([[1] * length + [0] * (t - length) for length in lengths])
    # stand-in log-probs; only their gradient matters
    logps = torch.zeros(n, t, requires_grad=True)
    real_forward = trainer._get_per_token_logps_and_entropies

    # keep whatever else the installed TRL returns (1.7 added a third value)
    def stand_in(*args, **kwargs):
        _, _, *rest = real_forward(*args, **kwargs)
        return (logps, torch.zeros(n, t), *rest)

    trainer._get_per_token_logps_and_entropies = stand_in
    inputs = {
        "prompt_ids": torch.ones(n, 1, dtype=torch.long),
        "prompt_mask": torch.ones(n, 1, dtype=torch.long),
        "completion_ids": torch.ones(n, t, dtype=torch.long),
        "completion_mask": mask,
        "advantages": torch.tensor(advantages),
        "num_items_in_batch": mask.sum()
        if batch_tokens is None
        else torch.tensor(batch_tokens),
    }
    trainer._compute_loss(trainer.model, inputs).backward()
    # per-token weight, sign removed
    return [-logps.grad[i, 0].item() / advantages[i] for i in range(n)]


def check(seed: int = 0) -> str:
    assert GRPOConfig.loss_type == "dapo", (
        f"claim: TRL's default loss_type is 'dapo', got {GRPOConfig.loss_type}"
    )
    rows, tokens = len(LENGTHS), sum(LENGTHS)

    g = token_weights("grpo", seed)  # per-completion mean: 1 / (rows x |o_i|)
    short_right, long_wrong, long_right, short_wrong = g
    assert math.isclose(short_right, 1 / (rows * 2), rel_tol=1e-5), (
        f"claim: grpo weighs a token 1/(rows*|o|): {g}"
    )
    assert math.isclose(short_right / long_right, 4.0, rel_tol=1e-5), (
        f"claim: a short right answer's token 4x: {g}"
    )
    assert math.isclose(long_wrong / short_wrong, 0.25, rel_tol=1e-5), (
        f"claim: a long wrong answer 4x less: {g}"
    )

    fixed = {lt: token_weights(lt, seed) for lt in ("dapo", "bnpo", "dr_grpo")}
    for lt, w in fixed.items():
        assert max(w) - min(w) < 1e-7, (
            f"claim: {lt} weighs every token the same, got {w}"
        )
    assert math.isclose(fixed["dapo"][0], 1 / tokens, rel_tol=1e-5), (
        f"claim: dapo divides by all tokens: {fixed}"
    )
    assert math.isclose(fixed["bnpo"][0], 1 / tokens, rel_tol=1e-5), (
        "claim: bnpo divides by the batch's tokens"
    )
    dr = fixed["dr_grpo"][0]
    assert math.isclose(dr, 1 / (rows * MAX_COMPLETION_LENGTH), rel_tol=1e-5), (
        "claim: dr_grpo divides by rows in the micro-batch x max_completion_length "
        f"(1/32), not num_generations x max_completion_length (1/16): got {dr}"
    )

    # bnpo averages over the tokens of one micro-batch only: split the same batch into
    # two micro-batches of unequal token counts (as gradient accumulation or a second
    # process does) and its weights drift apart.
    # halves: 4 and 16 tokens; 20 in the generation batch
    halves = {"short pair": (2, 2), "long pair": (8, 8)}
    split = {
        lt: {
            name: token_weights(lt, seed, lengths, (1.0, -1.0), batch_tokens=20)[0]
            for name, lengths in halves.items()
        }
        for lt in ("bnpo", "dapo")
    }
    bnpo_ratio = split["bnpo"]["short pair"] / split["bnpo"]["long pair"]
    assert math.isclose(bnpo_ratio, 4.0, rel_tol=1e-5), (
        "claim: across micro-batches bnpo weighs a token 1/(tokens of its "
        f"micro-batch), 16/4 = 4x apart: {split}"
    )
    assert math.isclose(
        split["dapo"]["short pair"], split["dapo"]["long pair"], rel_tol=1e-5
    ), (
        "claim: dapo divides by the tokens of the whole generation batch, the "
        f"same in every micro-batch: {split}"
    )
    return (
        "per-token weight (short right, long wrong, long right, short wrong): "
        f"grpo {[round(x, 4) for x in g]}; "
        + "; ".join(f"{lt} {round(w[0], 4)}" for lt, w in fixed.items())
        + (
            "; split into micro-batches of 4 and 16 tokens: bnpo weights "
            f"{bnpo_ratio:.1f}x apart, dapo equal"
        )
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
