"""The one-sample overfit check: a healthy SFT setup drives one example's loss near 0; a broken one cannot.

Page: docs/debugging/overfit-one-sample.md (中文: docs/debugging/overfit-one-sample.zh.md)
Run:  python snippets/debugging/overfit-one-sample.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

SEEDS = (0, 1, 2)
STEPS = 30


# --8<-- [start:fix]
def overfit_one_sample(seed: int = 0, freeze: bool = False) -> list[float]:
    """Train on ONE conversation repeated, and return the logged loss at every step."""
    from datasets import Dataset
    from transformers import AutoModelForCausalLM
    from trl import SFTConfig, SFTTrainer

    runner.setup(seed)
    sample = {
        "messages": [
            {"role": "user", "content": "What is the capital of France?"},
            {"role": "assistant", "content": "The capital of France is Paris."},
        ]
    }
    dataset = Dataset.from_list([sample] * 8)  # the same example, over and over
    model = AutoModelForCausalLM.from_pretrained(runner.model_path(seed))
    if freeze:  # the bug we want the check to catch: nothing is trainable
        model.requires_grad_(False)
    args = runner.config(
        SFTConfig,
        seed,
        max_steps=STEPS,
        per_device_train_batch_size=1,
        learning_rate=1e-2 if runner.is_tiny() else 1e-4,  # high on purpose: we WANT to memorise
        max_grad_norm=0.0,  # no clipping: nothing should slow the memorising down
        assistant_only_loss=True,  # score the answer, the part the model must reproduce
        lr_scheduler_type="constant",
    )
    trainer = SFTTrainer(model=model, args=args, train_dataset=dataset)
    trainer.train()
    return runner.history(trainer, "loss")
# --8<-- [end:fix]


# --8<-- [start:symptom]
def broken_setup(seed: int = 0) -> list[float]:
    """The same check on a setup with a bug (all weights frozen): the loss cannot fall."""
    return overfit_one_sample(seed, freeze=True)
# --8<-- [end:symptom]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    good, bad = overfit_one_sample(seed), broken_setup(seed)
    assert good[-1] < 0.1 * good[0], f"healthy setup did not memorise one sample: {good[0]:.3f} -> {good[-1]:.3f}"
    assert bad[-1] > 0.9 * bad[0], f"broken setup's loss fell anyway: {bad[0]:.3f} -> {bad[-1]:.3f}"
    return (
        f"healthy: loss {good[0]:.2f} -> {good[-1]:.3f} in {len(good)} steps; "
        f"broken (frozen): {bad[0]:.2f} -> {bad[-1]:.2f}"
    )
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
