"""Multi-turn SFT: which turns assistant_only_loss trains, and how the loss is averaged (per token, not per reply).

Page: docs/sft/multi-turn-loss-weighting.md (中文: docs/sft/multi-turn-loss-weighting.zh.md)
Run:  python snippets/sft/multi-turn-loss-weighting.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# no training: one forward pass through compute_loss
SEEDS = (0, 1, 2)

SHORT, LONG = "Yes.", "The capital of France is Paris, and the sea is wide and the waves are blue."
CONVERSATIONS = [
    {"messages": [
        {"role": "user", "content": "Answer yes or no."}, {"role": "assistant", "content": SHORT},
        {"role": "user", "content": "What is the capital of France?"}, {"role": "assistant", "content": LONG},
    ]},
    {"messages": [{"role": "user", "content": "Answer yes or no."}, {"role": "assistant", "content": SHORT}]},
]


def _trainer(seed: int, dataset: list[dict]):
    from datasets import Dataset
    from transformers import AutoTokenizer
    from trl import SFTConfig, SFTTrainer

    runner.setup(seed)
    path = runner.model_path(seed)
    tok = AutoTokenizer.from_pretrained(path)
    args = runner.config(SFTConfig, seed, assistant_only_loss=True)
    return SFTTrainer(model=path, args=args, train_dataset=Dataset.from_list(dataset), processing_class=tok), tok


def _spans(labels: list[int]) -> list[int]:
    """Lengths of the runs of labelled tokens (one run per trained assistant turn)."""
    runs, cur = [], 0
    for lab in labels + [-100]:
        if lab != -100:
            cur += 1
        elif cur:
            runs.append(cur)
            cur = 0
    return runs


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    """assistant_only_loss=True on a two-turn and a one-turn conversation: what is trained, how it is averaged."""
    import torch

    trainer, tok = _trainer(seed, CONVERSATIONS)
    rows = [trainer.train_dataset[i] for i in range(len(CONVERSATIONS))]
    batch = trainer.data_collator([{"input_ids": r["input_ids"], "labels": r["labels"]} for r in rows])
    model = trainer.model.eval()
    with torch.no_grad():
        loss = float(trainer.compute_loss(model, dict(batch)))
        logits = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits
    # Recompute by hand: per-token NLL of every labelled position
    logp = torch.log_softmax(logits[:, :-1].float(), -1)
    target = batch["labels"][:, 1:]
    mask = target != -100
    nll = -logp.gather(-1, target.clamp(min=0).unsqueeze(-1)).squeeze(-1) * mask
    return {
        "spans_per_conversation": [_spans(r["labels"]) for r in rows],
        "trainer_loss": loss,
        "token_mean": float(nll.sum() / mask.sum()),
        "mean_of_sequence_means": float((nll.sum(1) / mask.sum(1)).mean()),
    }
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """Train only the final reply: move earlier turns into a conversational `prompt`, the last reply into
    `completion` (completion-only loss is the default for prompt-completion data)."""
    msgs = CONVERSATIONS[0]["messages"]
    trainer, tok = _trainer(seed, [{"prompt": msgs[:-1], "completion": msgs[-1:]}])
    labels = trainer.train_dataset[0]["labels"]
    return {"spans": _spans(labels), "trained_text": tok.decode([t for t in labels if t != -100])}
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    bad, good = symptom(seed), fix(seed)
    two_turn, one_turn = bad["spans_per_conversation"]
    assert len(two_turn) == 2 and len(one_turn) == 1, f"every assistant turn should be trained: {bad}"
    assert two_turn[1] > 3 * two_turn[0], f"the long reply should carry many more labelled tokens: {two_turn}"
    assert abs(bad["trainer_loss"] - bad["token_mean"]) < 1e-4, f"SFT loss is not the token mean: {bad}"
    assert abs(bad["token_mean"] - bad["mean_of_sequence_means"]) > 1e-3, "test data cannot tell the two apart"
    assert len(good["spans"]) == 1 and good["trained_text"].startswith(LONG), f"last-turn-only failed: {good}"
    return (
        f"assistant_only_loss trains every assistant turn (labelled tokens {two_turn} + {one_turn}); the loss is "
        f"the token mean ({bad['trainer_loss']:.4f}), so long replies weigh more, not less"
    )
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
