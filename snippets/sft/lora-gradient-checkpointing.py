"""LoRA + reentrant activation (gradient) checkpointing: "element 0 of
tensors does not require grad".

Page: docs/sft/lora-gradient-checkpointing.md
中文: docs/sft/lora-gradient-checkpointing.zh.md
"""

# --8<-- [start:fix]
import torch
from trl import SFTConfig

# With SFTTrainer(peft_config=...): the current field names (transformers 5.24
# deprecates gradient_checkpointing*).
sft_config = SFTConfig(
    activation_checkpointing=True,
    activation_checkpointing_kwargs={"use_reentrant": False},
    bf16=torch.cuda.is_available(),
)


def enable_checkpointing(model, use_reentrant=False):
    """In your own loop (gradient_checkpointing_enable is now a
    deprecated alias of this call)."""
    model.activation_checkpointing_enable(
        activation_checkpointing_kwargs={"use_reentrant": use_reentrant}
    )
    if use_reentrant:
        # reentrant checkpointing needs an input that requires grad
        model.enable_input_require_grads()


# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import math
import os
import warnings

from datasets import Dataset
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM, AutoTokenizer, set_seed
from trl import SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
LORA = LoraConfig(r=4, target_modules=["q_proj", "v_proj"])
# The FutureWarning transformers 5.24 raises for the old field name (training_args.py).
DEPRECATED = (
    "`gradient_checkpointing` is deprecated and will be removed in v6. Use "
    "`activation_checkpointing` instead."
)


def lora_model(seed):
    """A frozen base with LoRA adapters inside every decoder
    layer, and one tokenised sentence."""
    set_seed(seed)
    model = get_peft_model(AutoModelForCausalLM.from_pretrained(MODEL), LORA)
    ids = AutoTokenizer.from_pretrained(MODEL)(
        "The quick brown fox jumps over the lazy dog.", return_tensors="pt"
    )
    return model, ids.input_ids


def backward(model, ids):
    """One training backward pass: 'ok' if the LoRA matrices received a
    gradient, else the error text."""
    model.train()
    try:
        model(input_ids=ids, labels=ids, use_cache=False).loss.backward()
    except RuntimeError as e:
        return str(e)
    grads = [p.grad for name, p in model.named_parameters() if "lora_B" in name]
    return (
        "ok"
        if all(g is not None for g in grads) and any(g.abs().sum() > 0 for g in grads)
        else "no LoRA grad"
    )


def future_warnings(call):
    """Run call() and return the FutureWarnings it raised; every warning is
    shown again, nothing is hidden."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    for w in caught:
        warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    return [str(w.message) for w in caught if issubclass(w.category, FutureWarning)]


def check(seed: int = 0) -> str:
    bf16 = torch.cuda.is_available()
    # The names: TRL's own default still sets the deprecated
    # gradient_checkpointing; the new names are quiet.
    old = future_warnings(lambda: SFTConfig(bf16=bf16))
    assert DEPRECATED in old, (
        f"claim: SFTConfig() raises the FutureWarning about the old name, got {old}"
    )
    assert SFTConfig(bf16=bf16).activation_checkpointing is True, (
        "claim: TRL turns checkpointing on by default"
    )
    # builds sft_config again, warnings caught
    new = future_warnings(lambda: dataclasses.replace(sft_config))
    assert DEPRECATED not in new, (
        f"claim: sft_config (activation_checkpointing*) does not raise it, got {new}"
    )
    model, ids = lora_model(seed)
    old_call = future_warnings(lambda: model.gradient_checkpointing_enable())
    assert any("activation_checkpointing_enable" in m for m in old_call), (
        f"claim: old call deprecated: {old_call}"
    )

    # The mechanism: reentrant checkpointing with no input that requires grad.
    model, ids = lora_model(seed)
    model.activation_checkpointing_enable(
        activation_checkpointing_kwargs={"use_reentrant": True}
    )
    # undo the hook transformers 5 adds, to show the bare mechanism
    model.disable_input_require_grads()
    error = backward(model, ids)
    assert "does not require grad and does not have a grad_fn" in error, (
        f"claim: the error reproduces: {error}"
    )

    # The two cures, each on a model without the hook.
    for use_reentrant in (True, False):
        model, ids = lora_model(seed)
        enable_checkpointing(model, use_reentrant=use_reentrant)
        if not use_reentrant:
            # use_reentrant=False needs no hook at all
            model.disable_input_require_grads()
        assert backward(model, ids) == "ok", (
            f"claim: LoRA gets gradients with use_reentrant={use_reentrant}"
        )

    # SFTTrainer + peft_config, even with reentrant checkpointing: it
    # hooks the embeddings and trains.
    set_seed(seed)
    args = dataclasses.replace(
        sft_config,
        # the reentrant variant, to show the hook
        activation_checkpointing_kwargs={"use_reentrant": True},
        max_steps=2,
        logging_steps=1,
        seed=seed,
        # transformers 5 saves a checkpoint at the last step otherwise
        save_strategy="no",
    )
    data = Dataset.from_list([{"text": "Two plus two equals four."}] * 4)
    trainer = SFTTrainer(model=MODEL, args=args, train_dataset=data, peft_config=LORA)
    hooks = len(trainer.model.get_input_embeddings()._forward_hooks)
    assert hooks >= 1, "claim: SFTTrainer hooks the input embeddings of a PEFT model"
    trainer.train()
    norms = [
        row["grad_norm"] for row in trainer.state.log_history if "grad_norm" in row
    ]
    assert norms and all(math.isfinite(g) and g > 0 for g in norms), (
        f"claim: SFTTrainer+LoRA trains: {norms}"
    )
    return (
        "SFTConfig() warns about gradient_checkpointing, activation_checkpointing "
        "does not; reentrant + frozen inputs -> 'does not require grad'; "
        "enable_input_require_grads() or use_reentrant=False fix it; SFTTrainer+LoRA "
        f"grad_norm {[round(g, 3) for g in norms]}"
    )


SEEDS = (0, 1)  # it trains, so the suite runs two seeds (seeds 0-4 pass)

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
