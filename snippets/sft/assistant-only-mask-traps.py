"""Assistant-only masks that train everything or nothing: what TRL 1.16 catches and what stays silent.

Page: docs/sft/assistant-only-mask-traps.md (中文: docs/sft/assistant-only-mask-traps.zh.md)
Run:  python snippets/sft/assistant-only-mask-traps.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# no training: labels from dataset preparation only
SEEDS = (0, 1, 2)

CHAT = [
    {"messages": [{"role": "user", "content": "What is the capital of France?"},
                  {"role": "assistant", "content": "Paris."}]},
    {"messages": [{"role": "user", "content": "Two plus two?"}, {"role": "assistant", "content": "Four."}]},
]


def _labels(seed: int, template: str | None = None, **cfg) -> dict:
    from datasets import Dataset
    from transformers import AutoTokenizer
    from trl import SFTConfig, SFTTrainer

    runner.setup(seed)
    path = runner.model_path(seed)
    tok = AutoTokenizer.from_pretrained(path)
    if template is not None:
        tok.chat_template = template
    args = runner.config(SFTConfig, seed, **cfg)
    try:
        trainer = SFTTrainer(model=path, args=args, train_dataset=Dataset.from_list(CHAT), processing_class=tok)
    except (ValueError, RuntimeError) as e:
        return {"error": f"{type(e).__name__}: {e}"}
    rows = [trainer.train_dataset[i] for i in range(len(trainer.train_dataset))]
    labelled = sum(sum(t != -100 for t in r["labels"]) for r in rows)
    tokens = sum(len(r["input_ids"]) for r in rows)
    return {"error": None, "labelled": labelled, "tokens": tokens, "rows": len(rows)}


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    """Three ways to get the mask wrong."""
    from transformers import AutoTokenizer

    from handbook.tiny import CHATML_TEMPLATE_NO_GENERATION

    # 1. assistant_only_loss left at its default (False): user and template tokens are trained too
    default = _labels(seed)
    # 2. A template without {% generation %} and no TRL training template for it: TRL 1.16 refuses
    no_markers = _labels(seed, template=CHATML_TEMPLATE_NO_GENERATION, assistant_only_loss=True)
    # 3. Building the mask yourself with transformers: the same template gives an all-zero mask, silently
    tok = AutoTokenizer.from_pretrained(runner.model_path(seed))
    out = tok.apply_chat_template(CHAT[0]["messages"], chat_template=CHATML_TEMPLATE_NO_GENERATION,
                                  return_assistant_tokens_mask=True, return_dict=True)
    # 4. The old response-template collator is gone from TRL
    import trl

    return {"default": default, "no_markers": no_markers, "manual_mask_sum": sum(out["assistant_masks"]),
            "old_collator_exists": hasattr(trl, "DataCollatorForCompletionOnlyLM")}
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """A template with {% generation %} around the reply and its <|im_end|>, with and without packing."""
    return {
        "assistant_only": _labels(seed, assistant_only_loss=True),
        "packed": _labels(seed, assistant_only_loss=True, packing=True, max_length=128),
    }
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    bad, good = symptom(seed), fix(seed)
    d, a, p = bad["default"], good["assistant_only"], good["packed"]
    assert d["labelled"] == d["tokens"], f"default should train every token: {d}"
    assert bad["no_markers"]["error"] and "not training-compatible" in bad["no_markers"]["error"], bad["no_markers"]
    assert not bad["old_collator_exists"], "DataCollatorForCompletionOnlyLM is back in TRL: update the page"
    assert bad["manual_mask_sum"] == 0, "transformers should return an all-zero mask without generation markers"
    assert 0 < a["labelled"] < a["tokens"] / 2, f"assistant-only should keep a minority of tokens: {a}"
    assert p["rows"] < a["rows"] and p["labelled"] == a["labelled"], f"packing changed the labelled tokens: {a} {p}"
    return (
        f"default trains {d['labelled']}/{d['tokens']} tokens; no markers -> TRL raises, transformers' mask is "
        f"all 0; with markers {a['labelled']}/{a['tokens']} labelled, identical after packing"
    )
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
