"""Base-model RL cold start: rejection-sample the model's own completions, SFT on the accepted ones, then resume RL.

Page: docs/rewards/rft-cold-start.md (中文: docs/rewards/rft-cold-start.zh.md)
Run:  python snippets/rewards/rft-cold-start.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# two sampling rounds and a 16-step SFT per seed (~2 s): two seeds; 0-4 verified
SEEDS = (0, 1)

PROMPT = "Say something:"


def reward(text: str) -> float:
    """The task's verifier (a stand-in): 1 if the completion contains the letter 'e'."""
    return 1.0 if "e" in text else 0.0


# --8<-- [start:symptom]
def sample(model, tok, n: int = 64, seed: int = 0) -> list[str]:
    import torch

    torch.manual_seed(seed)
    enc = tok(PROMPT, return_tensors="pt").to(model.device)
    out = model.generate(**enc, do_sample=True, max_new_tokens=8, num_return_sequences=n,
                         pad_token_id=tok.pad_token_id)
    return tok.batch_decode(out[:, enc["input_ids"].shape[1]:], skip_special_tokens=True)


def symptom(seed: int = 0) -> dict:
    """The starting (base) model: how often does a sample pass the verifier?"""
    runner.setup(seed)
    model, tok = runner.load(seed)
    texts = sample(model, tok, seed=seed)
    return {"texts": texts, "success_rate": sum(map(reward, texts)) / len(texts)}
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """Rejection sampling + cold-start SFT: keep the passing samples, fine-tune on them, sample again."""
    from datasets import Dataset
    from trl import SFTConfig, SFTTrainer

    base = symptom(seed)
    accepted = [t for t in base["texts"] if reward(t) > 0]
    data = Dataset.from_list([{"prompt": PROMPT, "completion": t} for t in accepted])
    args = runner.config(SFTConfig, seed, max_steps=16, per_device_train_batch_size=8,
                         learning_rate=3e-3 if runner.is_tiny() else 1e-5)
    trainer = SFTTrainer(model=runner.model_path(seed), args=args, train_dataset=data)
    trainer.train()
    # Save trainer.model and pass its path to GRPOTrainer to continue RL from the cold-started policy.
    model, tok = trainer.model.eval(), trainer.processing_class
    texts = sample(model, tok, seed=seed + 1000)
    return {"accepted": len(accepted), "success_rate": sum(map(reward, texts)) / len(texts)}
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    bad, good = symptom(seed), fix(seed)
    assert 0 < good["accepted"] < len(bad["texts"]), "rejection sampling needs some, not all, samples to pass"
    assert good["success_rate"] > bad["success_rate"] + 0.15, (bad["success_rate"], good["success_rate"])
    return (f"success rate {bad['success_rate']:.2f} -> {good['success_rate']:.2f} after SFT on "
            f"{good['accepted']}/{len(bad['texts'])} accepted samples")
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
