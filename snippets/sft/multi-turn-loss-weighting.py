"""Multi-turn SFT: which turns assistant_only_loss trains, and how the loss is
averaged (per token, not per reply).

Page: docs/sft/multi-turn-loss-weighting.md
中文: docs/sft/multi-turn-loss-weighting.zh.md
"""


# --8<-- [start:fix]
def last_turn_only(example):
    """Earlier turns become a conversational prompt; only the final
    assistant reply is the completion."""
    messages = example["messages"]
    return {"prompt": messages[:-1], "completion": messages[-1:]}


# --8<-- [end:fix]


# --8<-- [start:evidence]
import math
import os
import pathlib

import torch
from datasets import Dataset
from transformers import set_seed
from trl import SFTConfig, SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

# assistant_only_loss needs {% generation %} markers in the chat template. Many hub
# templates (SmolLM2's among them) have none, and TRL raises for a template it cannot
# patch (see the page "Assistant-only loss"): this is plain ChatML with every assistant
# reply and its <|im_end|> marked, used by the trainer and to count tokens.
CHATML_TRAINING = (
    "{% for message in messages %}"
    "{% if message['role'] == 'assistant' %}"
    "{{ '<|im_start|>assistant\n' }}"
    "{% generation %}{{ message['content'] + '<|im_end|>' }}{% endgeneration %}"
    "{{ '\n' }}"
    "{% else %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + "
    "message['content'] + '<|im_end|>\n' }}"
    "{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
pathlib.Path("chatml_training.jinja").write_text(CHATML_TRAINING)

SHORT, LONG = (
    "Yes.",
    "The capital of France is Paris, and the sea is wide and the waves are blue.",
)
CONVERSATIONS = [
    {
        "messages": [
            {"role": "user", "content": "Answer yes or no."},
            {"role": "assistant", "content": SHORT},
            {"role": "user", "content": "What is the capital of France?"},
            {"role": "assistant", "content": LONG},
        ]
    },
    {
        "messages": [
            {"role": "user", "content": "Answer yes or no."},
            {"role": "assistant", "content": SHORT},
        ]
    },
]


def build(rows, seed, **config):
    """An SFTTrainer on these rows; nothing is trained, the dataset is only prepared."""
    set_seed(seed)
    args = SFTConfig(
        seed=seed,
        chat_template_path="chatml_training.jinja",
        bf16=torch.cuda.is_available(),
        save_strategy="no",
        **config,
    )
    return SFTTrainer(model=MODEL, args=args, train_dataset=Dataset.from_list(rows))


def collated_labels(trainer, row):
    """The labels the trainer's collator builds for one prepared row:
    the same on every TRL version."""
    return trainer.data_collator([row])["labels"][0].tolist()


def labelled_runs(labels):
    """Lengths of the runs of trained (not -100) tokens: one run per trained reply."""
    runs, current = [], 0
    for label in list(labels) + [-100]:
        if label != -100:
            current += 1
        elif current:
            runs.append(current)
            current = 0
    return runs


def loss_and_means(trainer):
    """The trainer's loss on the whole dataset as one batch, the token mean, and
    the mean of per-sequence means."""
    # labels come from the collator on every version
    batch = trainer.data_collator(list(trainer.train_dataset))
    batch = {k: v.to(trainer.model.device) for k, v in batch.items()}
    model = trainer.model.eval()
    with torch.no_grad():
        trainer_loss = trainer.compute_loss(model, dict(batch)).item()
        logits = model(
            input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]
        ).logits
    log_probs = torch.log_softmax(logits[:, :-1].float(), dim=-1)
    target = batch["labels"][:, 1:]
    mask = target != -100
    nll = -log_probs.gather(-1, target.clamp(min=0).unsqueeze(-1)).squeeze(-1) * mask
    return (
        trainer_loss,
        (nll.sum() / mask.sum()).item(),
        (nll.sum(1) / mask.sum(1)).mean().item(),
    )


def check(seed: int = 0) -> str:
    trainer = build(CONVERSATIONS, seed, assistant_only_loss=True)
    two_turn, one_turn = (
        labelled_runs(collated_labels(trainer, row)) for row in trainer.train_dataset
    )
    assert len(two_turn) == 2 and len(one_turn) == 1, (
        f"claim: every assistant turn is trained, {two_turn} {one_turn}"
    )
    assert two_turn[1] > 3 * two_turn[0], (
        f"claim: the long reply has many more labelled tokens, {two_turn}"
    )
    trainer_loss, token_mean, sequence_mean = loss_and_means(trainer)
    assert math.isclose(trainer_loss, token_mean, rel_tol=1e-4), (
        "claim: the SFT loss is the mean over labelled tokens, "
        f"{trainer_loss:.5f} vs {token_mean:.5f}"
    )
    assert not math.isclose(token_mean, sequence_mean, rel_tol=1e-4), (
        "claim: it is not the mean of per-sequence means, "
        f"{token_mean:.5f} vs {sequence_mean:.5f}"
    )

    rows = [last_turn_only(CONVERSATIONS[0])]
    # prompt-completion data: completion_only_loss is on by default
    fixed = build(rows, seed)
    labels = collated_labels(fixed, fixed.train_dataset[0])
    trained = fixed.processing_class.decode([t for t in labels if t != -100])
    assert len(labelled_runs(labels)) == 1 and trained.startswith(LONG), (
        "claim: the prompt-completion rewrite trains only "
        f"the final reply, got {trained!r}"
    )
    return (
        f"assistant_only_loss trains every assistant turn (labelled tokens {two_turn} "
        f"+ {one_turn}); loss {trainer_loss:.4f} = token mean {token_mean:.4f} != mean "
        f"of sequence means {sequence_mean:.4f}; last_turn_only trains {trained!r}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
