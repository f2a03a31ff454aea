"""DPO's default loss sums token log-ratios, so a pair's weight grows with answer length; in TRL 1.16 the
length-normalised options are loss_type "sigmoid_norm"/"ipo" in DPOConfig, ld_alpha (LD-DPO), and SimPO in
trl.experimental.cpo. "simpo" is not a DPOConfig loss_type.

Page: docs/preference/dpo-length-bias-normalisation.md (中文: docs/preference/dpo-length-bias-normalisation.zh.md)
Run:  python snippets/preference/dpo-length-bias-normalisation.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

# four evaluation passes per seed (~1.5 s)
SEEDS = (0, 1)

from handbook.toydata import PREFERENCE_PAIRS as PAIRS  # (prompt, chosen, rejected)
LONG = [(p, c * 4, r * 4) for p, c, r in PAIRS]  # same text, four times as many tokens


def evaluate(seed: int, pairs, loss_type: str) -> dict:
    """Loss and logged margin of a policy vs a *different* reference (so log-ratios are not all zero)."""
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import DPOConfig, DPOTrainer

    runner.setup(seed)
    path = runner.model_path(seed)
    tokenizer = AutoTokenizer.from_pretrained(path)
    policy = AutoModelForCausalLM.from_pretrained(path).to(runner.device())
    reference = AutoModelForCausalLM.from_pretrained(runner.model_path(seed + 100)).to(runner.device())
    data = Dataset.from_list([{"prompt": p, "chosen": c, "rejected": r} for p, c, r in pairs])
    args = runner.config(DPOConfig, seed, beta=1.0, loss_type=[loss_type], per_device_eval_batch_size=len(pairs))
    trainer = DPOTrainer(
        model=policy, ref_model=reference, args=args, train_dataset=data, eval_dataset=data, processing_class=tokenizer
    )
    out = trainer.evaluate()
    return {"loss": out["eval_loss"], "margins": out["eval_rewards/margins"]}


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    """Default loss_type "sigmoid": the same answers written 4x longer."""
    return {"short": evaluate(seed, PAIRS, "sigmoid"), "long": evaluate(seed, LONG, "sigmoid")}
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """loss_type="sigmoid_norm" divides each log-ratio by the completion's token count before the sigmoid.
    (Alternatives: loss_type="ipo", ld_alpha=0.5, or CPOConfig(loss_type="simpo") from trl.experimental.cpo.)"""
    return {"short": evaluate(seed, PAIRS, "sigmoid_norm"), "long": evaluate(seed, LONG, "sigmoid_norm")}
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    import dataclasses
    import math
    import warnings

    from trl import DPOConfig

    summed, normed = symptom(seed), fix(seed)
    # rewards/* are logged as beta * SUMMED log-ratios for every loss type: 4x the tokens -> ~4x the margin
    for run in (summed, normed):
        ratio = run["long"]["margins"] / run["short"]["margins"]
        assert 2.0 < ratio < 6.0, f"logged margin should scale with length, ratio {ratio:.2f}"
    # the sigmoid loss moves with length; sigmoid_norm barely does
    moved_sum = abs(summed["long"]["loss"] - summed["short"]["loss"])
    moved_norm = abs(normed["long"]["loss"] - normed["short"]["loss"])
    assert moved_sum > 5 * moved_norm, f"length moved the loss by {moved_sum:.4f} (sum) vs {moved_norm:.4f} (norm)"
    assert abs(normed["long"]["loss"] - math.log(2)) < abs(summed["long"]["loss"] - math.log(2))
    # where SimPO lives in 1.16
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from trl.experimental.cpo import CPOConfig
    assert "simpo" in CPOConfig.__dataclass_fields__["loss_type"].metadata["choices"]
    assert "simpo" not in DPOConfig.__dataclass_fields__["loss_type"].metadata["help"]
    assert {"ld_alpha", "loss_type"} <= {f.name for f in dataclasses.fields(DPOConfig)}
    try:  # DPOConfig accepts any string; DPOTrainer only rejects it at the first loss computation
        evaluate(seed, PAIRS[:2], "simpo")
        raise AssertionError("DPOTrainer accepted loss_type='simpo'")
    except ValueError as e:
        assert "Unknown loss type: simpo" in str(e), str(e)
    return (
        f"x4 length: sigmoid loss {summed['short']['loss']:.4f}->{summed['long']['loss']:.4f}, "
        f"sigmoid_norm {normed['short']['loss']:.4f}->{normed['long']['loss']:.4f}"
    )
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
