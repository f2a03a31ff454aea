"""Text decoded from argmax(eval logits) in SFTTrainer's compute_metrics is not what
the model generates: the logits at position i predict token i + 1 from the reference
tokens before it, prompt and padding positions included. Shift and mask for token
metrics; call generate() on the prompts for string metrics.

Page: docs/sft/eval-argmax-is-not-generation.md
中文: docs/sft/eval-argmax-is-not-generation.zh.md
"""

# --8<-- [start:fix]
import numpy as np
from trl import SFTTrainer


def compute_metrics(eval_pred):
    """Token metrics: compare each prediction with the token it predicts."""
    # the logits at position i predict the token at position i + 1
    predictions = eval_pred.predictions[:, :-1]
    labels = eval_pred.label_ids[:, 1:]
    mask = labels != -100  # prompt and padding positions
    correct = predictions[mask] == labels[mask]
    return {"answer_token_accuracy": float(np.mean(correct))}


# --8<-- [end:fix]


# --8<-- [start:fix-generate]
def generate_answers(model, tokenizer, prompts, max_new_tokens=64):
    """What the model writes for each prompt: greedy, from the prompt alone."""
    answers = []
    for prompt in prompts:
        inputs = tokenizer.apply_chat_template(
            prompt, add_generation_prompt=True, return_dict=True, return_tensors="pt"
        ).to(model.device)
        output = model.generate(
            **inputs, do_sample=False, max_new_tokens=max_new_tokens
        )
        new_tokens = output[0, inputs["input_ids"].shape[1] :]
        answers.append(tokenizer.decode(new_tokens, skip_special_tokens=True).strip())
    return answers


class GenerationEvalSFTTrainer(SFTTrainer):
    """Scores the answers the model generates for the eval prompts at each eval."""

    def __init__(self, *args, eval_prompts, eval_references, **kwargs):
        super().__init__(*args, **kwargs)
        self.eval_prompts, self.eval_references = eval_prompts, eval_references

    def evaluate(self, *args, metric_key_prefix="eval", **kwargs):
        metrics = super().evaluate(*args, metric_key_prefix=metric_key_prefix, **kwargs)
        answers = generate_answers(self.model, self.processing_class, self.eval_prompts)
        # a string metric of your choice (BLEU, ROUGE) on answers goes here
        exact = [a == r.strip() for a, r in zip(answers, self.eval_references)]
        generated = {
            f"{metric_key_prefix}_generated_exact_match": float(np.mean(exact))
        }
        self.log(generated)
        return {**metrics, **generated}


# --8<-- [end:fix-generate]


# --8<-- [start:evidence]
import os
import tempfile

import torch
from datasets import Dataset
from transformers import set_seed
from trl import SFTConfig

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
# 1 on a real model; the handbook's 2-layer test model
# needs ~300x the rate to move in a few steps
LR_SCALE = float(os.environ.get("HANDBOOK_LR_SCALE", "1"))

SYSTEM = {"role": "system", "content": "Answer in one sentence."}
TRAINED = [
    ("What colour is the sky?", "The sky is blue."),
    ("What colour is grass?", "Grass is green."),
    ("What colour is snow?", "Snow is white."),
    ("What colour is coal?", "Coal is black."),
]
HELD_OUT = [("What colour is a lemon?", "Lemons are yellow, mostly.")]


def conversation(question, answer):
    return {
        "prompt": [SYSTEM, {"role": "user", "content": question}],
        "completion": [{"role": "assistant", "content": answer}],
    }


def preprocess_logits_for_metrics(logits, labels):
    # keep one id per position, not the logits (see "Eval keeps every logit")
    return logits.argmax(dim=-1)


def decode_as_in_the_threads(tokenizer, ids):
    """Every id of every row, -100 (padding between batches) made a pad token."""
    ids = np.where(ids != -100, ids, tokenizer.pad_token_id)
    return tokenizer.batch_decode(ids, skip_special_tokens=True)


def compute_metrics_as_in_the_threads(tokenizer):
    """The symptom: decode the argmax ids as they come and compare them as they are."""

    def metrics(eval_pred):
        ids, labels = eval_pred.predictions, eval_pred.label_ids
        texts = decode_as_in_the_threads(tokenizer, ids)
        references = decode_as_in_the_threads(tokenizer, labels)
        mask = labels != -100
        return {
            "argmax_exact_match": float(
                np.mean([t == r for t, r in zip(texts, references)])
            ),
            "unshifted_token_accuracy": float(np.mean(ids[mask] == labels[mask])),
        }

    return metrics


def greedy_ids(model, tokenizer, prompt, max_new_tokens=64):
    """generate() as in generate_answers, as token ids, and the prompt's length."""
    inputs = tokenizer.apply_chat_template(
        prompt, add_generation_prompt=True, return_dict=True, return_tensors="pt"
    ).to(model.device)
    output = model.generate(**inputs, do_sample=False, max_new_tokens=max_new_tokens)
    prompt_length = inputs["input_ids"].shape[1]
    return output[0, prompt_length:].tolist(), prompt_length


def first_difference(a, b):
    return next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), None)


def check(seed: int = 0) -> str:
    set_seed(seed)
    train_rows = [conversation(q, a) for q, a in TRAINED]
    eval_rows = [conversation(q, a) for q, a in TRAINED + HELD_OUT]
    sft_config = SFTConfig(
        output_dir=tempfile.mkdtemp(),
        learning_rate=2e-5 * LR_SCALE,
        lr_scheduler_type="constant",
        max_steps=30,  # enough to learn the four trained answers
        per_device_train_batch_size=4,
        per_device_eval_batch_size=len(eval_rows),  # one eval batch
        include_for_metrics=["inputs"],  # compute_metrics also gets the input ids
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    received = []  # what compute_metrics is handed

    def watched(metric):
        return lambda eval_pred: received.append(eval_pred) or metric(eval_pred)

    trainer = GenerationEvalSFTTrainer(
        MODEL,
        args=sft_config,
        train_dataset=Dataset.from_list(train_rows),
        eval_dataset=Dataset.from_list(eval_rows),
        compute_metrics=watched(compute_metrics),
        preprocess_logits_for_metrics=preprocess_logits_for_metrics,
        eval_prompts=[row["prompt"] for row in eval_rows],
        eval_references=[row["completion"][0]["content"] for row in eval_rows],
    )
    trainer.train()
    fixed = trainer.evaluate()
    tokenizer = trainer.processing_class
    trainer.compute_metrics = watched(compute_metrics_as_in_the_threads(tokenizer))
    symptom = trainer.evaluate()

    # What compute_metrics receives: ids and labels of the same shape, unshifted
    ids, labels, inputs = (
        received[0].predictions,
        received[0].label_ids,
        received[0].inputs,
    )
    assert ids.shape == labels.shape, f"claim: one id per label {ids.shape}"
    mask = labels != -100
    assert (labels[mask] == inputs[mask]).all(), "claim: labels are the input ids"
    try:  # -100 is not a token id
        tokenizer.batch_decode(labels)
        decode_error = None
    except OverflowError as error:
        decode_error = error
    assert decode_error is not None, "claim: decoding -100 raises OverflowError"
    references = [row["completion"][0]["content"] for row in eval_rows]
    generated, misses = [], 0
    for i, row in enumerate(eval_rows):
        gen_ids, prompt_length = greedy_ids(trainer.model, tokenizer, row["prompt"])
        generated.append(tokenizer.decode(gen_ids, skip_special_tokens=True).strip())
        labelled = np.flatnonzero(mask[i])
        assert 0 < labelled[0] <= prompt_length, (
            f"claim: labels are -100 over the prompt: from {labelled[0]} on"
        )
        answer = labelled[labelled >= prompt_length]  # the tokens generate() writes
        assert answer[0] == prompt_length, "claim: the answer follows the prompt"
        # the argmax one position earlier predicts each answer token
        tf_ids, ref_ids = ids[i, answer - 1].tolist(), labels[i, answer].tolist()
        if i == 0:  # the ids at the answer's own positions: one token ahead
            ahead = tokenizer.decode(ids[i, answer], skip_special_tokens=True)
        k = first_difference(gen_ids, ref_ids)  # None: generate() wrote the answer
        end = min(len(gen_ids), len(ref_ids)) if k is None else k + 1
        assert tf_ids[:end] == gen_ids[:end], (
            "claim: the shifted argmax is what generate() writes only up to its first "
            f"token off the reference ({k}): {tf_ids[:end]} vs {gen_ids[:end]}"
        )
        if k is not None:
            misses += 1
            tf_text = tokenizer.decode(tf_ids, skip_special_tokens=True).strip()
            assert tf_text != generated[i], (
                "claim: after that token the argmax follows the reference, not the "
                f"generated text: {tf_text!r} vs generate() {generated[i]!r}"
            )
    assert misses >= 1, "claim: the held-out answer is not what generate() writes"

    # The symptom: whole-row decodes match nothing; unshifted accuracy is low
    texts = decode_as_in_the_threads(tokenizer, received[1].predictions)
    for text, reference, answer in zip(texts, references, generated):
        assert text.strip() not in (reference, answer), (
            f"claim: the decoded argmax is neither answer: {text!r}"
        )
    assert symptom["eval_argmax_exact_match"] == 0.0, "claim: no decoded row matches"
    shifted = fixed["eval_answer_token_accuracy"]
    unshifted = symptom["eval_unshifted_token_accuracy"]
    assert shifted >= 0.5 and unshifted < shifted / 4, (
        f"claim: unshifted token accuracy is low: {unshifted:.3f} vs {shifted:.3f}"
    )
    # The fix: shifted accuracy is SFTTrainer's own; generate() gives the answers
    history = trainer.state.log_history
    logged = [h for h in history if "eval_answer_token_accuracy" in h]
    built_in = logged[-1]["eval_mean_token_accuracy"]  # SFTTrainer's own metric
    assert abs(shifted - built_in) < 1e-6, f"claim: {shifted} == {built_in}"
    exact = float(np.mean([g == r for g, r in zip(generated, references)]))
    assert fixed["eval_generated_exact_match"] == exact > 0, (
        f"claim: generate() gives the trained answers: {exact} of the rows"
    )
    logged = [h for h in history if "eval_generated_exact_match" in h]
    assert len(logged) == 2, f"claim: the metric is logged at each evaluation {logged}"
    return (
        f"argmax decode: exact match {symptom['eval_argmax_exact_match']:.2f}, "
        f"row 0 {texts[0]!r}, at the answer's positions {ahead!r} for "
        f"{references[0]!r}; unshifted token accuracy {unshifted:.3f}, "
        f"shifted {shifted:.3f} = eval_mean_token_accuracy {built_in:.3f}; "
        f"generate() exact match {exact:.2f} (row 0 {generated[0]!r}); "
        f"{misses} row(s) where generate() leaves the reference; decoding the "
        f"labels as they are: OverflowError: {decode_error}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
