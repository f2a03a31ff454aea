"""GRPO has no `ref_model` argument: it reloads the reference from the policy's path, not from memory.

Page: docs/online-rl/grpo-reference-reloaded-from-path.md (中文: docs/online-rl/grpo-reference-reloaded-from-path.zh.md)
Run:  python snippets/online-rl/grpo-reference-reloaded-from-path.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# training runs cost > 1 s per seed, so the suite runs two seeds (seeds 0-2 pass; re-checked 2026-12-02)
SEEDS = (0, 1)


# --8<-- [start:run]
def sft_in_memory(seed: int = 0):
    """Stand-in for 'I fine-tuned the model in this process and pass the object on': weights changed, not saved."""
    import torch

    model, tokenizer = runner.load(seed)
    torch.manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.05)
    return model, tokenizer


def first_step_kl(model, tokenizer, seed: int = 0) -> dict:
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    runner.setup(seed)
    data = Dataset.from_list([{"prompt": [{"role": "user", "content": "Say hi."}]}] * 4)
    args = runner.config(GRPOConfig, seed, num_generations=4, per_device_train_batch_size=4,
                         max_completion_length=8, max_steps=1, beta=0.04)
    reward = lambda completions, **kw: [float(len(c[0]["content"])) for c in completions]  # noqa: E731
    trainer = GRPOTrainer(model=model, processing_class=tokenizer, reward_funcs=reward, args=args,
                          train_dataset=data)
    trainer.train()
    return {"kl": runner.last(trainer, "kl"), "ref_path": trainer.ref_model.config._name_or_path}
# --8<-- [end:run]


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    model, tokenizer = sft_in_memory(seed)
    return first_step_kl(model, tokenizer, seed)  # reference = the ORIGINAL weights at model.name_or_path
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """Save the SFT checkpoint and start GRPO from that path: policy and reference are the same weights."""
    import tempfile

    from transformers import AutoModelForCausalLM

    model, tokenizer = sft_in_memory(seed)
    ckpt = tempfile.mkdtemp(prefix="sft-ckpt-")
    model.save_pretrained(ckpt)
    tokenizer.save_pretrained(ckpt)
    policy = AutoModelForCausalLM.from_pretrained(ckpt)  # or pass the string `ckpt` as model=
    return first_step_kl(policy, tokenizer, seed)
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    import inspect

    from trl import GRPOTrainer

    assert "ref_model" not in inspect.signature(GRPOTrainer.__init__).parameters, "GRPOTrainer gained ref_model"
    bad, good = symptom(seed), fix(seed)
    assert bad["ref_path"] == runner.model_path(seed), "the reference should be reloaded from the policy's path"
    assert bad["kl"] > 1e-3, f"in-memory policy vs reloaded reference should differ at step 1: kl={bad['kl']}"
    assert good["kl"] == 0.0, f"policy and reference from the same checkpoint: step-1 kl should be 0, got {good['kl']}"
    return f"in-memory SFT weights: step-1 kl {bad['kl']:.4f} (reference reloaded from disk); saved checkpoint: kl 0.0"
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
