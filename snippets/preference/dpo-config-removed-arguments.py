"""The DPOConfig arguments TRL 0.29 removed (rpo_alpha, reference_free,
ref_model_init_kwargs, ...), and what replaces each.

Page: docs/preference/dpo-config-removed-arguments.md
中文: docs/preference/dpo-config-removed-arguments.zh.md
"""

# --8<-- [start:symptom]
from trl import DPOConfig

for old in (
    {"rpo_alpha": 1.0},
    {"ref_model_init_kwargs": {}},
    {"reference_free": True},
):
    try:
        DPOConfig(**old)
    except TypeError as error:
        # TRL >= 0.29: DPOConfig.__init__() got an unexpected keyword argument ...
        print(error)
# --8<-- [end:symptom]


# --8<-- [start:fix]
import torch
from trl import DPOConfig

rpo_alpha = 1.0  # the value the old config passed as rpo_alpha=
dpo_config = DPOConfig(
    beta=0.1,
    # RPO = the DPO loss plus rpo_alpha x the NLL of the chosen answer
    loss_type=["sigmoid", "sft"],
    loss_weights=[1.0, rpo_alpha],
    learning_rate=5e-7,
    bf16=torch.cuda.is_available(),
)
# ref_model_init_kwargs={...}: load the reference yourself and pass it,
#   DPOTrainer(model=..., ref_model=AutoModelForCausalLM.from_pretrained(..., **kwargs))
# reference_free=True: use CPOTrainer (from trl.experimental.cpo import CPOTrainer)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses
import math
import os

from datasets import Dataset
from transformers import set_seed
from trl import DPOTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
REMOVED = (  # DPOConfig arguments gone in 0.29.0 (padding_value in 0.26.0)
    "rpo_alpha",
    "reference_free",
    "ref_model_init_kwargs",
    "ref_adapter_name",
    "model_adapter_name",
    "force_use_ref_model",
    "generate_during_eval",
    "use_logits_to_keep",
    "label_pad_token_id",
    "tools",
    "base_model_attribute_name",
    "padding_value",
)
PAIRS = Dataset.from_list(
    [
        {"prompt": "The sky is", "chosen": " blue.", "rejected": " green."},
        {"prompt": "Two plus two is", "chosen": " four.", "rejected": " five."},
    ]
)


def first_loss(seed, loss_type, loss_weights):
    """The loss of the first step: policy and reference are still equal."""
    set_seed(seed)
    args = dataclasses.replace(
        dpo_config,
        loss_type=loss_type,
        loss_weights=loss_weights,
        per_device_train_batch_size=2,
        max_steps=1,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
    )
    trainer = DPOTrainer(model=MODEL, args=args, train_dataset=PAIRS)
    trainer.train()
    return trainer.state.log_history[0]["loss"]


def check(seed: int = 0) -> str:
    for name in REMOVED:
        try:
            DPOConfig(**{name: None})
            message = ""
        except TypeError as error:
            message = str(error)
        assert message.endswith(f"got an unexpected keyword argument '{name}'"), (
            f"claim: DPOConfig({name}=...) is a TypeError: {message!r}"
        )
    assert DPOConfig.truncation_mode == "keep_start", (
        "claim: truncation_mode defaults to keep_start since 0.29 (keep_end before)"
    )

    dpo = first_loss(seed, ["sigmoid"], None)
    assert abs(dpo - math.log(2)) < 1e-3, (
        f"claim: the plain DPO loss starts at ln 2 = 0.6931: {dpo}"
    )
    half = first_loss(seed, ["sigmoid", "sft"], [1.0, 0.5])
    full = first_loss(seed, ["sigmoid", "sft"], [1.0, 1.0])
    nll = full - dpo
    assert nll > 0 and abs((half - dpo) - 0.5 * nll) < 1e-3 * max(1.0, nll), (
        "claim: loss_weights=[1.0, a] adds a x the chosen NLL to the DPO loss, "
        f"as rpo_alpha=a did: dpo {dpo}, a=0.5 {half}, a=1 {full}"
    )
    return (
        f"{len(REMOVED)} removed arguments rejected; first loss: DPO {dpo:.4f}, "
        f"+ 0.5 sft {half:.4f}, + 1.0 sft {full:.4f} (chosen NLL {nll:.3f})"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
