"""A reward model with another tokenizer than the policy: PPO fed it the policy's
token ids (IndexError: index out of range in self); GRPO decodes each completion and
re-tokenises it with the reward model's own tokenizer.

Page: docs/rewards/reward-model-different-tokenizer.md
中文: docs/rewards/reward-model-different-tokenizer.zh.md
"""

# --8<-- [start:symptom]
import torch


def ppo_style_scores(reward_model, policy_tokenizer, texts):
    """What PPOTrainer did (TRL <= 1.12, and RLOOTrainer <= 0.21): the policy's
    token ids go straight into the reward model's embedding table."""
    policy_ids = policy_tokenizer(texts, return_tensors="pt", padding=True).input_ids
    with torch.no_grad():
        return reward_model(input_ids=policy_ids).logits[:, 0]


# IndexError: index out of range in self   (a policy id >= the reward vocabulary)
# --8<-- [end:symptom]


# --8<-- [start:fix]
from transformers import AutoModelForSequenceClassification, AutoTokenizer
from trl import GRPOTrainer


def grpo_with_reward_model(model, reward_model_path, args, train_dataset):
    """GRPO (and RLOO) decode each completion with the policy's tokenizer and
    re-tokenise prompt + completion with the reward model's own tokenizer."""
    reward_model = AutoModelForSequenceClassification.from_pretrained(
        reward_model_path, num_labels=1
    )
    reward_tokenizer = AutoTokenizer.from_pretrained(reward_model_path)
    return GRPOTrainer(
        model=model,
        reward_funcs=[reward_model],
        reward_processing_classes=[reward_tokenizer],
        args=args,
        train_dataset=train_dataset,
    )


# --8<-- [end:fix]


# --8<-- [start:evidence]
import math
import os
import string
import tempfile

from datasets import Dataset
from tokenizers import Tokenizer, decoders, models
from transformers import (
    LlamaConfig,
    LlamaForSequenceClassification,
    PreTrainedTokenizerFast,
    set_seed,
)
from trl import GRPOConfig

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")

PROMPTS = [
    [{"role": "user", "content": "Describe the sea in one short sentence."}],
    [{"role": "user", "content": "Name a colour and say why you like it."}],
]
# The reward model's own chat format (a real RM ships the one it was trained with)
RM_TEMPLATE = "{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"


def build_reward_model(seed):
    """A stand-in for a reward model trained on another base model: a character
    vocabulary of about 100 tokens, far smaller than the policy's, and a 1-label
    sequence-classification head."""
    chars = ["<pad>", "<unk>", "</s>"] + list(string.printable)
    core = Tokenizer(
        models.BPE({c: i for i, c in enumerate(chars)}, [], unk_token="<unk>")
    )
    core.decoder = decoders.Fuse()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core,
        pad_token="<pad>",
        unk_token="<unk>",
        eos_token="</s>",
        model_input_names=["input_ids", "attention_mask"],
    )
    tokenizer.chat_template = RM_TEMPLATE
    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
        num_labels=1,
        pad_token_id=tokenizer.pad_token_id,
    )
    return LlamaForSequenceClassification(config), tokenizer


def grpo_config(seed, steps):
    return GRPOConfig(
        num_generations=4,
        per_device_train_batch_size=4,
        max_completion_length=12,
        max_steps=steps,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )


def error_of(call):
    try:
        call()
    except (IndexError, OSError, ValueError) as error:
        return error
    return None


def check(seed: int = 0) -> str:
    set_seed(seed)
    reward_model, reward_tokenizer = build_reward_model(seed)
    vocab = len(reward_tokenizer)
    policy_tokenizer = AutoTokenizer.from_pretrained(MODEL)
    text = "Describe the sea in one short sentence. The sea is wide and blue."
    policy_ids = policy_tokenizer(text).input_ids
    assert max(policy_ids) >= vocab, f"policy ids fit the RM's {vocab} tokens"

    # 1. PPO's way: the policy's ids index the reward model's embedding table.
    error = error_of(lambda: ppo_style_scores(reward_model, policy_tokenizer, [text]))
    assert isinstance(error, IndexError), f"claim: an IndexError: {error!r}"
    assert str(error) == "index out of range in self", f"claim: {error}"
    # The ids that do fit name other characters: the RM would read another text.
    read = reward_tokenizer.decode([i for i in policy_ids if i < vocab])
    assert read != text, f"claim: the RM reads other text: {read!r}"

    dataset = Dataset.from_dict({"prompt": PROMPTS * 2})
    # 2. A reward model built in code has no name to load a tokenizer from.
    error = error_of(
        lambda: GRPOTrainer(
            model=MODEL,
            reward_funcs=[reward_model],
            args=grpo_config(seed, 1),
            train_dataset=dataset,
        )
    )
    # OSError on transformers 5; huggingface_hub's HFValidationError on transformers 4
    assert "Repo id must use alphanumeric chars" in str(error), (
        f"claim: no tokenizer: {error!r}"
    )

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "char-reward-model")
        reward_model.save_pretrained(path)
        reward_tokenizer.save_pretrained(path)

        # 3. Fix: GRPO re-tokenises for the reward model; record the ids it sees.
        seen = []
        trainer = grpo_with_reward_model(MODEL, path, grpo_config(seed, 2), dataset)
        trainer.reward_funcs[0].register_forward_pre_hook(
            lambda module, args, kwargs: seen.append(int(kwargs["input_ids"].max())),
            with_kwargs=True,
        )
        trainer.train()
        logs = [log for log in trainer.state.log_history if "loss" in log]
        key = "rewards/char-reward-model/mean"
        rewards = [log[key] for log in logs]
        assert len(rewards) == 2 and all(map(math.isfinite, rewards)), (
            f"claim: GRPO trains and logs a finite reward: {rewards}"
        )
        assert seen and max(seen) < vocab, (
            f"claim: the RM only sees its own ids: max {max(seen or [-1])} < {vocab}"
        )

        # 4. Conversational prompts are formatted with the RM tokenizer's template.
        no_template = grpo_with_reward_model(MODEL, path, grpo_config(seed, 1), dataset)
        no_template.reward_processing_classes[0].chat_template = None
        error = error_of(no_template.train)
        assert isinstance(error, ValueError) and "chat_template is not set" in str(
            error
        ), f"claim: an RM tokenizer without a chat template fails: {error!r}"
    return (
        f"PPO-style: IndexError (policy id {max(policy_ids)} >= RM vocab {vocab}); "
        f"GRPO: RM saw ids <= {max(seen)}, {key} {rewards[0]:.4f}, "
        f"{rewards[1]:.4f}; no template: ValueError"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
