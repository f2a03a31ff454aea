"""Where DPO's "double memory" comes from in TRL 1.16 and the two ways to drop the reference copy:
a PEFT adapter (reference = adapter disabled) or precompute_ref_log_probs=True.

Page: docs/preference/dpo-memory-reference-model.md (中文: docs/preference/dpo-memory-reference-model.zh.md)
Run:  python snippets/preference/dpo-memory-reference-model.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# three trainer constructions (one precomputes log-probs) per seed (~1.5 s)
SEEDS = (0, 1)

PAIRS = [
    ("What is the capital of France?", " Paris.", " I do not know."),
    ("Two plus two equals", " four.", " nine maybe."),
]


def param_bytes(module) -> int:
    return 0 if module is None else sum(p.numel() * p.element_size() for p in module.parameters())


def build(seed: int, peft: bool = False, **overrides) -> dict:
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import DPOConfig, DPOTrainer

    runner.setup(seed)
    path = runner.model_path(seed)
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path).to(runner.device())
    peft_config = None
    if peft:
        from peft import LoraConfig

        peft_config = LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM")
    data = Dataset.from_list([{"prompt": p, "chosen": c, "rejected": r} for p, c, r in PAIRS])
    args = runner.config(DPOConfig, seed, max_steps=1, **overrides)
    trainer = DPOTrainer(model=model, args=args, train_dataset=data, processing_class=tokenizer, peft_config=peft_config)
    return {
        "trainer": trainer,
        "ref_model": trainer.ref_model,
        "model_bytes": param_bytes(trainer.model),
        "ref_bytes": param_bytes(trainer.ref_model),
        "trainable": sum(p.numel() for p in trainer.model.parameters() if p.requires_grad),
        "columns": trainer.train_dataset.column_names,
    }


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    """Full fine-tuning, ref_model=None: DPOTrainer loads a second full copy from the same path."""
    return build(seed)
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """(a) LoRA: no reference copy, the adapter is switched off for the reference pass.
    (b) Full fine-tuning with precompute_ref_log_probs=True: reference log-probs are computed once, then dropped."""
    return {"lora": build(seed, peft=True), "precompute": build(seed, precompute_ref_log_probs=True)}
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    full, fixes = symptom(seed), fix(seed)
    lora, pre = fixes["lora"], fixes["precompute"]
    assert full["ref_model"] is not None and full["ref_bytes"] == full["model_bytes"], "full FT: a 2nd full copy"
    assert lora["ref_model"] is None, "with a PEFT model DPOTrainer keeps no reference model"
    assert lora["trainable"] < 0.1 * full["trainable"], "LoRA trains a small fraction of the weights"
    assert pre["ref_model"] is None and {"ref_chosen_logps", "ref_rejected_logps"} <= set(pre["columns"])
    total_full = full["model_bytes"] + full["ref_bytes"]
    total_lora = lora["model_bytes"] + lora["ref_bytes"]
    assert total_lora < 0.6 * total_full, "LoRA without a reference copy should roughly halve weight memory"
    lora["trainer"].train()  # the reference pass (adapter disabled) really runs
    return (
        f"weights in memory: full FT {total_full / 1e6:.2f} MB (policy + ref), LoRA {total_lora / 1e6:.2f} MB "
        f"(ref_model None), precompute {pre['model_bytes'] / 1e6:.2f} MB (ref_model None)"
    )
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
