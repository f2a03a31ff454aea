"""grad_norm is nan and the loss reads 0.0: three causes reproduced with
SFTTrainer, and a probe that tells them apart at the first non-finite step.

Page: docs/debugging/nan-grad-norm-which-cause.md
中文: docs/debugging/nan-grad-norm-which-cause.zh.md
"""

# --8<-- [start:fix]
import math


class NanProbe:
    """Put it first in your trainer's bases: class Probed(NanProbe, SFTTrainer).

    At the first micro-batch whose loss or gradients are not finite it keeps what
    it saw before that step in `nan_report`, with a guess at the cause; steps whose
    batch has no label token at all are listed in `empty_batches`.
    """

    nan_report = None
    empty_batches = ()
    start_max_weight = None

    def training_step(self, model, inputs, num_items_in_batch=None):
        # empty shards (DeepSpeed ZeRO-3) have nothing to look at
        params = [p for p in model.parameters() if p.requires_grad and p.numel()]
        max_weight = max(p.detach().abs().max().item() for p in params)
        if self.start_max_weight is None:
            self.start_max_weight = max_weight
        seen = {
            "step": self.state.global_step + 1,
            # the loss shifts labels by one: position 0 is never a target
            "label_tokens": int((inputs["labels"][..., 1:] != -100).sum()),
            "weights_finite": all(p.isfinite().all().item() for p in params),
            "max_weight": max_weight,
            # all weights, frozen ones too (a LoRA adapter on a float16 base)
            "dtypes": sorted({str(p.dtype) for p in model.parameters()}),
        }
        if seen["label_tokens"] == 0:
            self.empty_batches += (seen["step"],)
        loss = super().training_step(model, inputs, num_items_in_batch)
        # under DeepSpeed ZeRO p.grad stays None: only the loss is checked
        grads = [p.grad for p in params if p.grad is not None]
        finite = math.isfinite(loss.item()) and all(
            g.isfinite().all().item() for g in grads
        )
        if self.nan_report is None and not finite:
            cause = self.nan_cause(seen)
            self.nan_report = {**seen, "loss": loss.item(), "cause": cause}
        return loss

    def nan_cause(self, seen):
        if not seen["weights_finite"]:
            return "weights were already nan or inf: an earlier step broke them"
        if seen["label_tokens"] == 0:
            return "no label token in the batch: the loss is 0/0"
        if "torch.float16" in seen["dtypes"]:
            return "float16 weights: an activation passed 65504"
        if seen["max_weight"] > 10 * self.start_max_weight:
            return "weights grew far past their start: learning rate too high"
        return "none of these: fp16 loss scaling, DeepSpeed, kernels (see the page)"


# --8<-- [end:fix]


# --8<-- [start:evidence]
import os

import torch
from datasets import Dataset
from transformers import AutoModelForCausalLM, AutoTokenizer, set_seed
from trl import SFTConfig, SFTTrainer

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
# 1 on a real model; the handbook's 2-layer test model
# needs ~300x the rate to move in a few steps
LR_SCALE = float(os.environ.get("HANDBOOK_LR_SCALE", "1"))

# far beyond any real setting (SFT's default is 2e-5): it blows the weights up
# within a few steps on a CPU
TOO_HIGH = 100.0
PROMPT = "Read the question twice, think about it, then answer in one word. " * 2
TEXTS = [
    "The quick brown fox jumps over the lazy dog.",
    "Two plus two equals four.",
    "What is the capital of France? The capital of France is Paris.",
    "Answer yes or no. Yes.",
]


class ProbedSFTTrainer(NanProbe, SFTTrainer):
    pass


class MaskedMeanTrainer(ProbedSFTTrainer):
    """The loss as custom training code often writes it: the token losses times
    the label mask, divided by the number of label tokens."""

    def compute_loss(self, model, inputs, return_outputs=False, **kwargs):
        out = model(
            input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"]
        )
        logits, targets = out.logits[:, :-1].float(), inputs["labels"][:, 1:]
        mask = (targets != -100).float()
        logp = logits.log_softmax(-1).gather(-1, targets.clamp(min=0)[..., None])
        return -(logp[..., 0] * mask).sum() / mask.sum()


def train(seed, data, model=MODEL, trainer_class=ProbedSFTTrainer, **overrides):
    """A few constant-rate SFT steps; the probed trainer and its logged
    (loss, grad_norm) per step."""
    set_seed(seed)
    fields = dict(
        seed=seed,
        bf16=torch.cuda.is_available(),
        learning_rate=2e-5 * LR_SCALE,
        max_steps=3,
        lr_scheduler_type="constant",
        logging_steps=1,
        per_device_train_batch_size=2,
        save_strategy="no",
    )
    args = SFTConfig(**{**fields, **overrides})
    trainer = trainer_class(model=model, args=args, train_dataset=data)
    trainer.train()
    logged = [
        (row["loss"], row["grad_norm"])
        for row in trainer.state.log_history
        if "grad_norm" in row
    ]
    return trainer, logged


def in_float16():
    """(a) The model with weights in float16, after moving a factor 2**20 into
    the first MLP (up projection x k, down projection / k): the same function in
    float32, activations beyond 65504 in float16. The layer is frozen: its
    gradient would carry k. See the fp16 page for the full demonstration."""
    model = AutoModelForCausalLM.from_pretrained(MODEL, dtype=torch.float32)
    mlp = model.model.layers[0].mlp
    with torch.no_grad():
        mlp.up_proj.weight.mul_(2.0**20)
        mlp.down_proj.weight.div_(2.0**20)
    mlp.requires_grad_(False)
    return model.to(torch.float16)


def cut_to(length):
    """(b) Rows tokenized the way many pipelines do it: prompt masked with -100,
    then cut to `length`; a prompt longer than that leaves no label token."""
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    rows = []
    for text in TEXTS:
        prompt = tokenizer(PROMPT).input_ids
        answer = tokenizer(text).input_ids
        labels = [-100] * len(prompt) + answer
        rows.append(
            {"input_ids": (prompt + answer)[:length], "labels": labels[:length]}
        )
    return Dataset.from_list(rows)


def not_finite(x):
    return not math.isfinite(x)


def check(seed: int = 0) -> str:
    plain = Dataset.from_list([{"text": text} for text in TEXTS])
    masked = cut_to(12)
    assert all(set(row["labels"]) == {-100} for row in masked), (
        "set-up: every label of the cut rows is -100"
    )

    healthy, healthy_log = train(seed, plain)
    assert healthy.nan_report is None and not healthy.empty_batches, (
        f"claim: the probe stays silent on a healthy run: {healthy.nan_report}"
    )
    assert not any(map(not_finite, sum(healthy_log, ()))), healthy_log

    # (a) half precision
    fp16, fp16_log = train(seed, plain, model=in_float16())
    assert all(not_finite(g) for _, g in fp16_log), (
        f"claim: float16 weights log grad_norm nan at every step: {fp16_log}"
    )
    assert all(loss == 0.0 or not_finite(loss) for loss, _ in fp16_log), fp16_log
    report = fp16.nan_report
    assert report["step"] == 1 and report["cause"].startswith("float16"), (
        f"claim: the probe names float16 at step 1: {report}"
    )

    # (b) no label token in a batch. SFTTrainer drops such rows when it truncates
    # (TRL >= 1.9): max_length=None lets through rows a pipeline cut itself.
    empty, empty_log = train(seed, masked, max_length=None)
    assert empty.empty_batches == (1, 2, 3), (
        f"claim: the probe sees batches without a label token: {empty.empty_batches}"
    )
    # TRL 1.16 divides the summed token losses by their count clamped to 1: 0 / 1
    assert all(step == (0.0, 0.0) for step in empty_log), (
        f"claim: SFTTrainer logs loss 0.0 and grad_norm 0.0: {empty_log}"
    )
    # transformers' own causal-LM loss (ignore_index): nan, but a zero gradient
    model = AutoModelForCausalLM.from_pretrained(MODEL)
    ids = torch.tensor([masked[0]["input_ids"]])
    own_loss = model(input_ids=ids, labels=torch.full_like(ids, -100)).loss
    own_loss.backward()
    own_grad = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0).item()
    assert not_finite(own_loss.item()) and own_grad == 0.0, (
        "claim: transformers' loss of such a batch is nan with a zero gradient: "
        f"{own_loss.item()}, grad norm {own_grad}"
    )
    # a hand-written token mean: the mask multiplies, the count is 0
    custom, custom_log = train(
        seed, masked, max_length=None, trainer_class=MaskedMeanTrainer
    )
    assert all(not_finite(g) for _, g in custom_log), (
        f"claim: a mask-times-loss mean gives grad_norm nan: {custom_log}"
    )
    assert all(loss == 0.0 for loss, _ in custom_log), (
        f"claim: and the logged loss reads 0.0: {custom_log}"
    )
    report = custom.nan_report
    assert report["step"] == 1 and report["cause"].startswith("no label"), (
        f"claim: the probe names the empty batch: {report}"
    )
    weights = [p for p in custom.model.parameters() if p.requires_grad]
    assert not all(p.isfinite().all().item() for p in weights), (
        "claim: the optimizer step with nan gradients leaves nan weights"
    )

    # (c) a learning rate far too high
    steep, steep_log = train(seed, plain, learning_rate=TOO_HIGH, max_steps=4)
    first_loss = steep_log[0][0]
    peak = max(loss for loss, _ in steep_log if math.isfinite(loss))
    assert peak > 1000 * first_loss, (
        f"claim: the loss blows up at lr {TOO_HIGH}: {steep_log}"
    )
    report = steep.nan_report
    if report is not None:
        assert report["weights_finite"] and "learning rate" in report["cause"], (
            f"claim: a nan after a blow-up is the learning rate's: {report}"
        )
        assert math.isfinite(report["loss"]) and report["loss"] > 1000 * first_loss, (
            f"claim: the step whose grad_norm is nan logs a huge finite loss: {report}"
        )
    else:
        # no nan (SmolLM2 in float32): the run ends at a uniform guess, no gradient
        uniform = math.log(steep.model.config.vocab_size)
        assert abs(steep_log[-1][0] - uniform) < 0.01 and steep_log[-1][1] == 0.0, (
            f"claim: without a nan the run ends at ln(vocab size), grad_norm 0: "
            f"{steep_log}"
        )
    return (
        f"healthy {healthy_log[-1]}; fp16 {fp16_log[:2]} -> "
        f"{fp16.nan_report['cause']}; "
        f"no label {empty_log[:2]} (own loss {own_loss.item()}), custom loss "
        f"{custom_log[:2]} -> {custom.nan_report['cause']}; lr {TOO_HIGH} "
        f"{steep_log} -> {report and report['cause']}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
