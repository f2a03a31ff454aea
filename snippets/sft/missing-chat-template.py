"""Conversational data + a tokenizer without a chat template: what TRL 1.16 raises, and chat_template_path.

Page: docs/sft/missing-chat-template.md (中文: docs/sft/missing-chat-template.zh.md)
Run:  python snippets/sft/missing-chat-template.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# no training: only trainer construction (dataset preparation)
SEEDS = (0, 1, 2)

CHAT = [{"messages": [{"role": "user", "content": "Two plus two?"}, {"role": "assistant", "content": "Four."}]}]


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    """A base-model tokenizer (chat_template None) meets a `messages` dataset."""
    from datasets import Dataset
    from transformers import AutoTokenizer
    from trl import SFTConfig, SFTTrainer

    runner.setup(seed)
    path = runner.model_path(seed)
    tok = AutoTokenizer.from_pretrained(path)
    tok.chat_template = None  # what many base checkpoints ship
    try:
        SFTTrainer(model=path, args=runner.config(SFTConfig, seed), train_dataset=Dataset.from_list(CHAT),
                   processing_class=tok)
    except ValueError as e:
        return {"error": f"{type(e).__name__}: {e}"}
    return {"error": None}
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """Give SFTConfig a Jinja file through `chat_template_path` (a tokenizer folder or hub id also works)."""
    import pathlib
    import tempfile

    from datasets import Dataset
    from transformers import AutoTokenizer
    from trl import SFTConfig, SFTTrainer

    from handbook.tiny import CHATML_TEMPLATE  # stand-in for the template you want

    runner.setup(seed)
    path = runner.model_path(seed)
    tok = AutoTokenizer.from_pretrained(path)
    tok.chat_template = None
    jinja = pathlib.Path(tempfile.mkdtemp()) / "chatml.jinja"
    jinja.write_text(CHATML_TEMPLATE, encoding="utf-8")
    args = runner.config(SFTConfig, seed, chat_template_path=str(jinja))
    trainer = SFTTrainer(model=path, args=args, train_dataset=Dataset.from_list(CHAT), processing_class=tok)
    text = tok.decode(trainer.train_dataset[0]["input_ids"])
    return {"template_set": trainer.processing_class.chat_template is not None, "text": text}
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    bad, good = symptom(seed), fix(seed)
    assert bad["error"] and "chat_template is not set" in bad["error"], f"expected the missing-template error: {bad}"
    assert good["template_set"], "chat_template_path did not set the tokenizer's template"
    assert good["text"].startswith("<|im_start|>user\nTwo plus two?<|im_end|>"), f"not rendered by the template: {good}"
    return "no template -> ValueError at SFTTrainer(...); chat_template_path=<file>.jinja renders the messages"
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
