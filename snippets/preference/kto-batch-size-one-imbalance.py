"""KTO in TRL 1.16: per_device_train_batch_size=1 is refused (the KL estimate needs a batch of mismatched
pairs), and an unbalanced desirable/undesirable split asks for desirable_weight/undesirable_weight.

Page: docs/preference/kto-batch-size-one-imbalance.md (中文: docs/preference/kto-batch-size-one-imbalance.zh.md)
Run:  python snippets/preference/kto-batch-size-one-imbalance.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# training runs cost > 1 s per seed, so the suite runs two seeds (seeds 0-2 pass; re-checked 2026-12-02)
SEEDS = (0, 1)

# 6 desirable, 2 undesirable: a 3:1 imbalance
ROWS = [
    ("What is the capital of France?", " Paris.", True),
    ("Two plus two equals", " four.", True),
    ("Answer yes or no.", " Yes.", True),
    ("Say hello.", " Hello world.", True),
    ("Three times three is", " nine.", True),
    ("Write a short poem about the sea.", " The sea is wide.", True),
    ("Two plus two equals", " nine maybe.", False),
    ("What is the capital of France?", " I do not know.", False),
]


def build(seed: int, **overrides):
    """Returns (trainer or the raised error, log lines TRL's KTO trainer emitted while building)."""
    import logging

    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import KTOConfig, KTOTrainer

    runner.setup(seed)
    path = runner.model_path(seed)
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path).to(runner.device())
    data = Dataset.from_list([{"prompt": p, "completion": c, "label": lab} for p, c, lab in ROWS])

    lines: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: lines.append(record.getMessage())
    log = logging.getLogger("trl.trainer.kto_trainer")
    log.addHandler(handler)
    try:
        args = runner.config(KTOConfig, seed, max_steps=4, **overrides)
        return KTOTrainer(model=model, args=args, train_dataset=data, processing_class=tokenizer), lines
    except ValueError as e:
        return e, lines
    finally:
        log.removeHandler(handler)


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    """Batch size 1 (the habit from SFT with gradient accumulation), default weights on 3:1 data."""
    err, _ = build(seed, per_device_train_batch_size=1, gradient_accumulation_steps=8)
    _, lines = build(seed, per_device_train_batch_size=2)
    return {"error": err, "log": lines}
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """A real batch (>= 2; the KL term pairs each prompt with another row's completion) and undesirable_weight
    = n_desirable / n_undesirable = 3 (or lower desirable_weight to ~1/3) for 3:1 data."""
    trainer, lines = build(seed, per_device_train_batch_size=4, undesirable_weight=3.0)
    trainer.train()
    return {"trainer": trainer, "log": lines, "kl": runner.history(trainer, "kl")}
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    bad, good = symptom(seed), fix(seed)
    assert isinstance(bad["error"], ValueError), "batch size 1 should be refused by KTOTrainer"
    assert "batch size must be > 1" in str(bad["error"]), str(bad["error"])
    assert any("desirable_weight in" in line for line in bad["log"]), "3:1 data with weights 1/1 should warn"
    assert not any("desirable_weight in" in line for line in good["log"]), "undesirable_weight=3 is in range"
    # the unpaired APO-zero loss has no KL term, so it accepts batch size 1
    alt, _ = build(seed, per_device_train_batch_size=1, loss_type="apo_zero_unpaired")
    assert not isinstance(alt, Exception) and alt.calculate_KL is False, f"apo_zero_unpaired with bs=1: {alt}"
    assert good["trainer"].args.train_sampling_strategy == "sequential", "KTO's KL pairing needs sequential order"
    assert len(good["kl"]) == 4 and all(k >= 0 for k in good["kl"]), "the kl metric is logged (clamped at 0)"
    return f"bs=1 -> ValueError; 3:1 data warns until undesirable_weight=3; kl logged: {[round(k, 4) for k in good['kl']]}"
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
