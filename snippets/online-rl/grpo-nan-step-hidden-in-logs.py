"""A NaN step disappears from GRPO's logs: NaN rewards are dropped from the window average, NaN losses are replaced.

Page: docs/online-rl/grpo-nan-step-hidden-in-logs.md (中文: docs/online-rl/grpo-nan-step-hidden-in-logs.zh.md)
Run:  python snippets/online-rl/grpo-nan-step-hidden-in-logs.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# training runs cost > 1 s per seed, so the suite runs two seeds (seeds 0-2 pass; re-checked 2026-12-02)
SEEDS = (0, 1)


# --8<-- [start:run]
def run_grpo(seed: int = 0, **overrides) -> dict:
    """Two GRPO steps. Step 1: the reward function returns None for every completion (reward NaN).
    Step 2: the loss is NaN (we poison it, as the regression test for huggingface/trl#6702 did)."""
    import math

    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    runner.setup(seed)

    class PoisonLastStep(GRPOTrainer):
        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
            loss = super().compute_loss(model, inputs, return_outputs, num_items_in_batch)
            return loss * math.nan if self.state.global_step == 1 else loss  # e.g. an fp16 overflow

    def sometimes_unscorable(completions, trainer_state, **kwargs):
        if trainer_state.global_step == 0:
            return [None] * len(completions)  # e.g. a verifier that timed out on the whole batch
        return [float(len(c[0]["content"])) for c in completions]

    prompts = Dataset.from_list([{"prompt": [{"role": "user", "content": f"Count to {i}."}]} for i in range(8)])
    args = runner.config(
        GRPOConfig, seed, num_generations=4, per_device_train_batch_size=4, max_completion_length=8, max_steps=2,
        **overrides,
    )
    trainer = PoisonLastStep(
        model=runner.model_path(seed), reward_funcs=sometimes_unscorable, args=args, train_dataset=prompts
    )
    trainer.train()
    rows = [{k: row.get(k) for k in ("step", "reward", "loss", "grad_norm")}
            for row in trainer.state.log_history if "reward" in row]
    weights_nan = any(p.isnan().any().item() for p in trainer.model.parameters())
    return {"rows": rows, "weights_nan": weights_nan}
# --8<-- [end:run]


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    return run_grpo(seed, logging_steps=2)  # one log line per 2 steps (TRL's GRPOConfig default is 10)
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    # While debugging: one log line per step, and let a NaN loss through instead of the running-average stand-in.
    return run_grpo(seed, logging_steps=1, logging_nan_inf_filter=False)
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    import math

    from trl import GRPOConfig

    fields = GRPOConfig.__dataclass_fields__
    assert fields["logging_steps"].default == 10 and fields["logging_nan_inf_filter"].default is True
    bad, good = symptom(seed), fix(seed)
    assert bad["weights_nan"] and good["weights_nan"], "the NaN step should have corrupted the weights in both runs"
    (row,) = bad["rows"]  # one line for steps 1-2
    assert row["reward"] is not None and math.isfinite(row["reward"]), f"the NaN reward step was averaged away: {row}"
    assert row["loss"] is not None and math.isfinite(row["loss"]), f"the NaN loss was replaced by a finite value: {row}"
    assert math.isnan(row["grad_norm"]), "grad_norm (last step of the window only) is the one visible trace"
    step1, step2 = good["rows"]
    assert step1["reward"] is None, f"with logging_steps=1 the unscorable step logs reward None: {step1}"
    assert math.isnan(step2["loss"]), f"with logging_nan_inf_filter=False the NaN loss is logged: {step2}"
    return (
        f"logging_steps=2: reward {row['reward']}, loss {row['loss']}, grad_norm {row['grad_norm']}; "
        f"logging_steps=1 + logging_nan_inf_filter=False: reward {step1['reward']} then loss {step2['loss']}"
    )
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
