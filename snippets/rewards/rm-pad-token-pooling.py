"""Reward-model accuracy stuck near chance from pad-token pooling: what TRL 1.16 and transformers 5 do about it.

Page: docs/rewards/rm-pad-token-pooling.md (中文: docs/rewards/rm-pad-token-pooling.zh.md)
Run:  python snippets/rewards/rm-pad-token-pooling.py
"""

import copy
import functools

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# one 12-step RM training per seed (cached) and four scoring passes (~2 s): two seeds; 0-2 verified
SEEDS = (0, 1)

GOOD = ["Yes.", "Sure thing, yes.", "Paris.", "It is four.", "blue.", "nine."]
BAD = ["No.", "Maybe not.", "dog.", "A fox.", "sea.", "The poem."]


def pairs(n: int, seed: int):
    import random

    from datasets import Dataset

    rng = random.Random(seed)
    return Dataset.from_list([
        {"prompt": [{"role": "user", "content": "Answer me."}],
         "chosen": [{"role": "assistant", "content": rng.choice(GOOD)}],
         "rejected": [{"role": "assistant", "content": rng.choice(BAD)}]} for _ in range(n)
    ])


# --8<-- [start:train]
@functools.lru_cache(maxsize=1)  # symptom() and fix() score the same trained RM
def train_rm(seed: int = 0):
    """Train a small RM; the model is loaded with config.pad_token_id=None, as many checkpoints ship."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer
    from trl import RewardConfig, RewardTrainer

    runner.setup(seed)
    path = runner.model_path(seed)
    tok = AutoTokenizer.from_pretrained(path)
    model = AutoModelForSequenceClassification.from_pretrained(path, num_labels=1, pad_token_id=None)
    before = model.config.pad_token_id
    args = runner.config(RewardConfig, seed, max_steps=12, per_device_train_batch_size=8)
    RewardTrainer(model=model, args=args, processing_class=tok, train_dataset=pairs(96, seed)).train()
    return model.eval(), tok, before


def score_pairs(model, tok, data) -> float:
    """Score held-out pairs yourself (an eval script, best-of-n, a custom reward function): accuracy."""
    import torch

    def texts(col):
        return [tok.apply_chat_template(r["prompt"] + r[col], tokenize=False) for r in data]

    with torch.no_grad():
        enc_c = tok(texts("chosen"), padding="max_length", max_length=40, return_tensors="pt")
        enc_r = tok(texts("rejected"), padding="max_length", max_length=40, return_tensors="pt")
        r_c, r_r = model(**enc_c).logits.squeeze(-1), model(**enc_r).logits.squeeze(-1)
    return (r_c > r_r).float().mean().item()
# --8<-- [end:train]


# --8<-- [start:symptom]
def score_pairs_old_pooling(model, tok, data) -> dict:
    """What older transformers did: pool at the token *before the first pad id* (first match, not last)."""
    import torch

    tok = copy.deepcopy(tok)
    tok.pad_token = tok.eos_token  # the classic `tokenizer.pad_token = tokenizer.eos_token` setup
    pad = tok.pad_token_id

    def rewards(col):
        batch = [tok.apply_chat_template(r["prompt"] + r[col], tokenize=False) for r in data]
        enc = tok(batch, padding="max_length", max_length=40, return_tensors="pt")
        hidden = model.model(**enc).last_hidden_state
        first_pad = (enc["input_ids"] == pad).int().argmax(-1) - 1  # eos ends the *prompt* turn already
        return model.score(hidden)[torch.arange(len(batch)), first_pad % enc["input_ids"].shape[1]].squeeze(-1)

    with torch.no_grad():
        r_c, r_r = rewards("chosen"), rewards("rejected")
    return {"accuracy": (r_c > r_r).float().mean().item(), "ties": (r_c == r_r).float().mean().item()}


def symptom(seed: int = 0) -> dict:
    model, tok, before = train_rm(seed)
    heldout = pairs(64, seed + 100)
    out = {"pad_before": before, "pad_after": model.config.pad_token_id, "tokenizer_pad": tok.pad_token_id}
    model.config.pad_token_id = None  # e.g. a checkpoint whose config lost pad_token_id
    try:
        score_pairs(model, tok, heldout)
    except ValueError as e:
        out["error"] = str(e)
    out["old_pooling"] = score_pairs_old_pooling(model, tok, heldout)
    model.config.pad_token_id = out["pad_after"]  # restore the cached model
    return out
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    model, tok, _ = train_rm(seed)
    heldout = pairs(64, seed + 100)
    model.config.pad_token_id = tok.pad_token_id  # the id the tokenizer really pads with
    accuracy = score_pairs(model, tok, heldout)
    tok = copy.deepcopy(tok)
    tok.pad_token = tok.eos_token  # pad = eos is safe now: transformers 5 pools the *last* non-pad token
    model.config.pad_token_id = tok.pad_token_id
    return {"accuracy": accuracy, "accuracy_pad_is_eos": score_pairs(model, tok, heldout)}
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    bad, good = symptom(seed), fix(seed)
    # TRL 1.16's RewardTrainer fills config.pad_token_id from the tokenizer itself.
    assert bad["pad_before"] is None and bad["pad_after"] == bad["tokenizer_pad"], bad
    # transformers 5: no pad id and a batch > 1 is an error, not a silent wrong pooling.
    assert "Cannot handle batch sizes > 1 if no padding token is defined" in bad.get("error", ""), bad
    assert good["accuracy"] >= 0.9 and good["accuracy_pad_is_eos"] >= 0.9, good
    # Old pooling with pad = eos reads the score at the end of the prompt: chosen and rejected tie.
    assert bad["old_pooling"]["ties"] == 1.0 and bad["old_pooling"]["accuracy"] <= 0.5, bad["old_pooling"]
    return (f"RewardTrainer set pad_token_id {bad['pad_before']} -> {bad['pad_after']}; pad None -> ValueError; "
            f"first-pad pooling with pad=eos: accuracy {bad['old_pooling']['accuracy']:.2f} (all ties); "
            f"transformers 5 pooling: {good['accuracy']:.2f} (pad=eos: {good['accuracy_pad_is_eos']:.2f})")
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
