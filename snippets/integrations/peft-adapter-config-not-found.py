"""ValueError: Can't find 'adapter_config.json': the folder passed to
PeftModel.from_pretrained holds no adapter. Find the folder that does (a
checkpoint-N, a named adapter's subfolder) or load a full model as one.

Page: docs/integrations/peft-adapter-config-not-found.md
中文: docs/integrations/peft-adapter-config-not-found.zh.md
"""

# --8<-- [start:fix]
import glob
import os
import re

from peft import PeftModel
from transformers import AutoModelForCausalLM

MODEL_FILES = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin")


def checkpoint_step(folder):
    """checkpoint-1000 -> 1000; a folder without a number -> -1."""
    digits = re.findall(r"\d+", os.path.basename(folder))
    return int(digits[-1]) if digits else -1


def find_adapter(path):
    """What a training folder holds: ("adapter", folder) or ("model", folder)."""
    folder = os.path.abspath(os.path.expanduser(path))
    if os.path.isfile(folder):  # a weights file was given: use its folder
        folder = os.path.dirname(folder)
    if not os.path.isdir(folder):
        raise FileNotFoundError(
            f"no folder {folder}: a relative path starts at {os.getcwd()}"
        )
    names = sorted(os.listdir(folder))
    if "adapter_config.json" in names:
        return "adapter", folder
    if "config.json" in names and any(name in MODEL_FILES for name in names):
        return "model", folder  # merged, or trained without LoRA
    # checkpoint-N/ (or a named adapter's subfolder) holding an adapter
    found = glob.glob(os.path.join(folder, "*", "adapter_config.json"))
    inside = sorted((os.path.dirname(f) for f in found), key=checkpoint_step)
    if inside:
        print(f"{folder} holds no adapter itself; these do: {inside}")
        return "adapter", inside[-1]  # the newest checkpoint-N
    raise FileNotFoundError(f"{folder} holds neither an adapter nor a model: {names}")


def load_trained(base_model_id, path):
    """The trained model behind path, loaded the way its files need."""
    kind, folder = find_adapter(path)
    print(f"loading the {kind} in {folder}")
    if kind == "model":
        return AutoModelForCausalLM.from_pretrained(folder)
    base = AutoModelForCausalLM.from_pretrained(base_model_id)
    return PeftModel.from_pretrained(base, folder)


# --8<-- [end:fix]


# --8<-- [start:evidence]
import tempfile

import torch
from datasets import Dataset
from huggingface_hub.errors import HFValidationError
from peft import LoraConfig
from transformers import set_seed
from trl import SFTConfig, SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
# 1 on a real model; the handbook's 2-layer test model
# needs ~300x the rate to move in a few steps
LR_SCALE = float(os.environ.get("HANDBOOK_LR_SCALE", "1"))

ROWS = [
    {"text": f"Question {i}: what is {i} + {i}? Answer: {2 * i}."} for i in range(4)
]


def train_lora(seed, run_dir):
    """SFT with a LoRA peft_config and a checkpoint every step, as runs save them."""
    set_seed(seed)
    args = SFTConfig(
        output_dir=run_dir,
        per_device_train_batch_size=2,
        max_steps=2,
        learning_rate=2e-4 * LR_SCALE,
        max_length=32,
        logging_steps=1,
        save_strategy="steps",
        save_steps=1,
        report_to="none",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    lora = LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "v_proj"])
    trainer = SFTTrainer(
        model=MODEL, args=args, train_dataset=Dataset.from_list(ROWS), peft_config=lora
    )
    trainer.train()
    return trainer.model


def load_error(path):
    """What PeftModel.from_pretrained raises for path (None if it loads)."""
    try:
        PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(MODEL), path)
    except ValueError as error:
        return error
    return None


def lora_b(model):
    """The first lora_B weight (zero before training)."""
    return next(p for n, p in model.named_parameters() if "lora_B" in n).detach()


def check(seed: int = 0) -> str:
    run_dir = tempfile.mkdtemp()
    trained = lora_b(train_lora(seed, run_dir))
    assert trained.abs().max() > 0, "claim: the adapter trained (lora_B left zero)"
    top = sorted(os.listdir(run_dir))
    assert "adapter_config.json" not in top and "checkpoint-2" in top, (
        f"claim: the adapter is only in checkpoint-N, not in output_dir: {top}"
    )
    ckpt = os.path.join(run_dir, "checkpoint-2")
    held = os.listdir(ckpt)
    files = {"adapter_config.json", "adapter_model.safetensors"}
    assert files <= set(held), f"claim: checkpoint-N holds the adapter: {held}"

    # symptom 1: the run's output_dir
    error = load_error(run_dir)
    assert error is not None and str(error) == (
        f"Can't find 'adapter_config.json' at '{run_dir}'"
    ), f"claim: output_dir raises the ValueError: {error!r}"
    hub = error.__context__
    assert isinstance(hub, HFValidationError) and "Repo id must be in the form" in (
        str(hub)
    ), f"claim: peft tried the path as a Hub repo id first: {hub!r}"

    # fix 1: find_adapter names the newest checkpoint; its weights are the trained ones
    kind, folder = find_adapter(run_dir)
    assert (kind, folder) == ("adapter", ckpt), f"claim: {ckpt} ({kind}, {folder})"
    loaded = lora_b(load_trained(MODEL, run_dir))
    assert torch.equal(loaded, trained), "claim: the loaded adapter is the trained one"
    weights = os.path.join(ckpt, "adapter_model.safetensors")
    assert load_error(weights) is not None, "claim: the weights file is not a folder"
    assert find_adapter(weights) == ("adapter", ckpt), "claim: its folder is"
    older = lora_b(load_trained(MODEL, os.path.join(run_dir, "checkpoint-1")))
    assert not torch.equal(older, trained), "claim: checkpoint-1 holds step 1's weights"

    # symptom 2: a merged (or fully fine-tuned) model is not an adapter
    merged_dir = tempfile.mkdtemp()
    merged = load_trained(MODEL, ckpt).merge_and_unload()
    merged.save_pretrained(merged_dir)
    error = load_error(merged_dir)
    assert error is not None and "Can't find 'adapter_config.json'" in str(error), (
        f"claim: a merged model folder raises the same ValueError: {error!r}"
    )
    # fix 2: find_adapter says "model"; AutoModelForCausalLM loads the merged weights
    kind = find_adapter(merged_dir)
    assert kind == ("model", merged_dir), f"claim: a full model, not an adapter {kind}"
    full = load_trained(MODEL, merged_dir)
    name = next(n for n, _ in merged.named_parameters() if n.endswith("q_proj.weight"))
    same = torch.equal(dict(full.named_parameters())[name], merged.get_parameter(name))
    assert same, "claim: the merged folder loads as a full model, weights intact"

    # symptom 3: a relative path that does not exist from this directory
    relative = os.path.join("saves", "lora", "checkpoint-2")
    error = load_error(relative)
    assert error is not None and str(error) == (
        f"Can't find 'adapter_config.json' at '{relative}'"
    ), f"claim: a missing relative path raises the ValueError: {error!r}"
    hub = error.__context__
    assert isinstance(hub, HFValidationError), (
        f"claim: HFValidationError inside: {hub!r}"
    )
    # fix 3: find_adapter says where the path led
    try:
        find_adapter(relative)
        said = None
    except FileNotFoundError as e:
        said = str(e)
    resolved = said and os.path.abspath(relative) in said and os.getcwd() in said
    assert resolved, f"claim: find_adapter names the folder it looked for: {said}"

    # symptom 4: an adapter saved under a name goes to a subfolder of that name
    named_dir = tempfile.mkdtemp()
    base = AutoModelForCausalLM.from_pretrained(MODEL)
    PeftModel.from_pretrained(base, ckpt, adapter_name="sft").save_pretrained(named_dir)
    error = load_error(named_dir)
    assert error is not None and "Can't find 'adapter_config.json'" in str(error), (
        f"claim: the named adapter's parent folder raises the ValueError: {error!r}"
    )
    sub = os.path.join(named_dir, "sft")
    kind = find_adapter(named_dir)
    assert kind == ("adapter", sub), f"claim: the adapter is in the subfolder {kind}"
    loaded = lora_b(load_trained(MODEL, named_dir))
    assert torch.equal(loaded, trained), (
        "claim: the named adapter loads, weights intact"
    )
    return (
        f"output_dir {top}: ValueError (HFValidationError inside); "
        f"find_adapter -> checkpoint-2, lora_B equal to the trained one "
        f"(max {trained.abs().max().item():.2e}); merged folder: ValueError, "
        f"loads as a model; missing relative path: ValueError; named adapter: "
        f"found in its subfolder"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
