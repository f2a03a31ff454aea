"""max_length truncation drops the EOS of long examples: the model never sees where to stop.

Page: docs/sft/eos-cut-by-truncation.md (中文: docs/sft/eos-cut-by-truncation.zh.md)
Run:  python snippets/sft/eos-cut-by-truncation.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# no training: labels from dataset preparation only
SEEDS = (0, 1, 2)

LONG = "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20"
CHAT = [{"messages": [{"role": "user", "content": "Count to twenty."}, {"role": "assistant", "content": LONG}]}]


def _prepared(seed: int, dataset: list[dict], **cfg):
    from datasets import Dataset
    from transformers import AutoTokenizer
    from trl import SFTConfig, SFTTrainer

    runner.setup(seed)
    path = runner.model_path(seed)
    tok = AutoTokenizer.from_pretrained(path)
    args = runner.config(SFTConfig, seed, **cfg)
    trainer = SFTTrainer(model=path, args=args, train_dataset=Dataset.from_list(dataset), processing_class=tok)
    return trainer, tok


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    """A max_length that ends inside the reply: the reply is cut before its <|im_end|>."""
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(runner.model_path(seed))
    prompt = tok.apply_chat_template(CHAT[0]["messages"][:1], add_generation_prompt=True, return_dict=True)
    cut = len(prompt["input_ids"]) + 4  # room for only 4 tokens of the reply
    trainer, tok = _prepared(seed, CHAT, max_length=cut, assistant_only_loss=True)
    row = trainer.train_dataset[0]
    # Cut inside the prompt instead: nothing left to train, and TRL drops the example without a word
    dropped, _ = _prepared(seed, CHAT, max_length=len(prompt["input_ids"]) - 2, assistant_only_loss=True)
    return {"rows_when_cut_in_prompt": len(dropped.train_dataset), "max_length": cut, "length": len(row["input_ids"]), "eos_labelled": row["labels"].count(tok.eos_token_id),
            "labelled": sum(t != -100 for t in row["labels"])}
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0, limit: int = 24) -> dict:
    """Measure lengths first; raise max_length to fit, or drop the examples longer than your limit."""
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(runner.model_path(seed))
    full = len(tok.apply_chat_template(CHAT[0]["messages"], tokenize=True, return_dict=True)["input_ids"])
    trainer, _ = _prepared(seed, CHAT, max_length=full, assistant_only_loss=True)
    row = trainer.train_dataset[0]
    kept = [ex for ex in CHAT if len(tok.apply_chat_template(ex["messages"], return_dict=True)["input_ids"]) <= limit]
    from trl import SFTConfig

    defaults = SFTConfig.__dataclass_fields__
    return {"default_max_length": defaults["max_length"].default,
            "default_truncation": defaults["truncation_mode"].default, "full_length": full, "eos_labelled": row["labels"].count(tok.eos_token_id), "kept": len(kept)}
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    bad = symptom(seed)
    good = fix(seed, limit=bad["max_length"])
    assert bad["length"] == bad["max_length"] and bad["labelled"] == 4, f"not cut inside the reply: {bad}"
    assert bad["rows_when_cut_in_prompt"] == 0, "a fully masked example should be dropped by TRL"
    assert bad["eos_labelled"] == 0, f"truncated example still has a labelled EOS: {bad}"
    assert good["full_length"] > bad["max_length"] and good["eos_labelled"] == 1, f"full example lacks EOS: {good}"
    assert good["default_max_length"] == 1024 and good["default_truncation"] == "keep_start", good
    assert good["kept"] == 0, "the length filter should drop the too-long example"
    return (f"max_length={bad['max_length']} cuts a {good['full_length']}-token chat: 4 reply tokens trained, 0 EOS; "
            f"max_length={good['full_length']} keeps the EOS label")
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
