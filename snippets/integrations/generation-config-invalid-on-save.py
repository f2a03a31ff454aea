"""A checkpoint whose generation_config.json sets temperature/top_p without
do_sample trains, then trainer.save_model() (or the first checkpoint) fails:
"GenerationConfig is invalid". Drop the flags greedy decoding ignores, and
validate strictly before training.

Page: docs/integrations/generation-config-invalid-on-save.md
中文: docs/integrations/generation-config-invalid-on-save.zh.md
"""

# --8<-- [start:fix]
# flags that only sampling reads; with do_sample off, generate() ignores them
SAMPLING_ONLY = ("temperature", "top_p", "top_k", "min_p", "typical_p")


def make_generation_config_savable(model):
    """Call after from_pretrained, before building the trainer."""
    generation_config = model.generation_config
    if generation_config.do_sample is not True:
        for flag in SAMPLING_ONLY:
            setattr(generation_config, flag, None)
    # the check save_pretrained() runs, now instead of after training
    generation_config.validate(strict=True)


# model = AutoModelForCausalLM.from_pretrained(...)
# make_generation_config_savable(model)
# trainer = SFTTrainer(model=model, ...)  # DPOTrainer, KTOTrainer, ...
# --8<-- [end:fix]


# --8<-- [start:evidence]
import json
import os
import tempfile

import torch
import transformers
from datasets import Dataset
from packaging.version import Version
from transformers import (
    AutoModelForCausalLM,
    AutoTokenizer,
    GenerationConfig,
    set_seed,
)
from trl import SFTConfig, SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

# the generation_config.json that lmsys/vicuna-7b-v1.5 ships (its pad_token_id
# left out): sampling values, but no "do_sample": true
SHIPPED = {
    "bos_token_id": 1,
    "eos_token_id": 2,
    "max_length": 4096,
    "temperature": 0.9,
    "top_p": 0.6,
}
ROWS = Dataset.from_list(
    [
        {
            "messages": [
                {"role": "user", "content": question},
                {"role": "assistant", "content": answer},
            ]
        }
        for question, answer in [
            ("What is the capital of France?", "Paris."),
            ("Two plus two equals?", "Four."),
            ("Name a colour.", "Blue."),
            ("Say hello.", "Hello!"),
        ]
    ]
)


def load(folder):
    """The model, with the generation config loaded from the shipped file."""
    model = AutoModelForCausalLM.from_pretrained(MODEL)
    model.generation_config = GenerationConfig.from_pretrained(folder)
    return model


def save_error(save, folder):
    """None if the save went through, else the ValueError it raised."""
    try:
        save(folder)
    except ValueError as error:
        return error
    return None


def train_and_save(model, seed, folder):
    set_seed(seed)
    args = SFTConfig(
        output_dir=folder,
        per_device_train_batch_size=2,
        max_steps=2,
        max_length=32,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    trainer = SFTTrainer(
        model=model, args=args, train_dataset=ROWS, processing_class=tokenizer
    )
    trainer.train()
    # what the threads' scripts do once training is over
    return trainer, save_error(trainer.save_model, f"{folder}/final")


def greedy(model, tokenizer):
    inputs = tokenizer("The capital of France is", return_tensors="pt")
    with torch.no_grad():
        out = model.generate(
            **inputs, max_new_tokens=6, pad_token_id=tokenizer.eos_token_id
        )
    return out[0].tolist()


def check(seed: int = 0) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        with open(f"{tmp}/generation_config.json", "w") as file:
            json.dump(SHIPPED, file)

        # strict validation refuses the shipped file before any training
        try:
            GenerationConfig.from_pretrained(tmp).validate(strict=True)
            early = None
        except ValueError as error:
            early = error
        assert early is not None and "`temperature`" in str(early), (
            f"claim: validate(strict=True) names the flag at once: {early!r}"
        )

        # saving the freshly loaded model: only warns since transformers 5.24
        # (an unchanged config), refused by every release up to 5.20
        untouched = load(tmp)
        plain = save_error(untouched.save_pretrained, f"{tmp}/plain")
        installed = Version(transformers.__version__)
        if installed >= Version("5.24"):
            assert plain is None, f"claim: an untouched config saves: {plain!r}"
        elif installed < Version("5.21"):
            assert plain is not None, "claim: any invalid config is refused"

        # symptom: train with the shipped config, then save
        model = load(tmp)
        trainer, error = train_and_save(model, seed, f"{tmp}/symptom")
        message = str(error)
        assert error is not None, "claim: save_model fails after training"
        assert "`temperature`" in message and "`top_p`" in message, (
            f"claim: the error names both flags: {message}"
        )
        assert "do_sample" in message, f"claim: and do_sample: {message}"
        assert "Fix these issues to save the configuration" in message, (
            f"claim: transformers' save-time refusal: {message}"
        )
        steps = trainer.state.global_step
        assert steps == 2, f"claim: the failure comes after training: {steps}"
        written = os.path.exists(f"{tmp}/symptom/final/generation_config.json")
        assert not written, "claim: no generation_config.json is written"
        pad = model.generation_config.pad_token_id
        if plain is None:  # so the trainer's own edit is what made it strict
            assert pad is not None, "claim: the trainer wrote a pad token into it"

        # fix: clean the config first; greedy output does not change
        tokenizer = AutoTokenizer.from_pretrained(MODEL)
        fixed = load(tmp)
        before = greedy(fixed, tokenizer)
        make_generation_config_savable(fixed)
        after = greedy(fixed, tokenizer)
        assert before == after, "claim: generate() was greedy; the flags did nothing"
        trainer, error = train_and_save(fixed, seed, f"{tmp}/fix")
        assert error is None, f"claim: the cleaned config saves: {error!r}"
        with open(f"{tmp}/fix/final/generation_config.json") as file:
            saved = json.load(file)
        # transformers 5 leaves the unset flags out, 4.x writes them as null
        values = [saved.get("temperature"), saved.get("top_p")]
        assert values == [None, None], (
            f"claim: the saved file holds no sampling values: {saved}"
        )
        return (
            f"seed {seed}: after {steps} steps save_model raised "
            f"'{message.splitlines()[0]}' naming temperature and top_p; "
            f"plain save before training: {'ok' if plain is None else 'refused'} "
            f"(transformers {installed}); trainer set pad_token_id={pad}; "
            f"cleaned config saved, greedy output unchanged"
        )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
