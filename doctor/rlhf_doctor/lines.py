"""The console line formats the doctor reads, one row per line (``cli``'s readers wrap them): mlx-lm's and nanoGPT's
``iter N:`` lines, also in a Markdown bullet; DeepSpeed-Chat's reward-model evaluation lines; ``name:value`` pairs one
space apart (minimind, torchtune); tinygrad's value-first lines; ``name value`` or ``name: value`` parts after commas
(CPM's finetune script, Liger's convergence tests), also after a progress part (mmf's ``progress: 100/22000, ...``,
minimind's ``Epoch:[1/2](100/39695), loss: 7.518, ...``); the Trainer's metrics summary (``***** train metrics *****``
then ``  train_loss = 0.2208`` lines). Each gives the rows' dicts, values as written, or an empty list; a line is a row
only with two or more values (the new formats: one of them a loss)."""

from __future__ import annotations

import re

ITER_LINE = re.compile(r"[Ii]ter ([0-9]+):(.*)")
"""mlx-lm's ``Iter 10: Train loss 0.061, ...`` and nanoGPT's ``iter 1631: loss 4.0863, time 561.94ms``."""
ITER_PAIR = re.compile(
    r"([A-Za-z][A-Za-z_ /]*?) (-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|nan|inf) *[A-Za-z]*"
)
ITER_BULLET = re.compile(r"[-*] +")
"""A Markdown bullet before an ``iter N:`` line (a run summarised in an issue: ``- iter 1273: lm_loss 2.35, **grad_norm
156**``); its ``**`` emphasis is dropped and the line needs a loss-like name among its values."""
ITER_NOTE = re.compile(r" *\([^()]*\)$")
"""A remark in brackets after a value (``grad_norm 63.5 (vs ~0.3 just before)``), dropped."""
ITER_NAMES = {
    "train loss": "loss",
    "loss": "loss",
    "chosen reward": "rewards/chosen",
    "rejected reward": "rewards/rejected",
    "margin": "rewards/margins",
    "accuracy": "rewards/accuracies",
    "learning rate": "learning_rate",
}
"""mlx-lm's console names -> TRL's (``Val`` ones get ``eval_``); other names lower-cased, spaces as ``_``."""
NUMBER_TEXT = r"-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|nan|inf"
COLON_PAIR = re.compile(rf"(?<!\S)([A-Za-z][A-Za-z0-9_/]*):({NUMBER_TEXT})(?!\S)")
"""``name:value`` with no space after the colon, pairs one space apart: minimind's ``Epoch:[1/19](100/24681)
loss:5.251 lr:0.00020000 epoch_Time:98.0min:`` (a value with a unit glued on is no pair)."""
LINE_STEP = re.compile(r"^Step ([0-9]+) \||\]\(([0-9]+)/[0-9]+\)")
"""The step such a line gives: torchtune's ``Step 12 | loss:1.17 lr:2e-05``, minimind's step within the epoch
(``Epoch:[1/19](100/24681)``)."""
VALUE_NAME = re.compile(rf"(?:([0-9]+) +)?({NUMBER_TEXT}) +([A-Za-z][A-Za-z0-9_]*(?: [A-Za-z0-9_:]+)*)")
"""tinygrad's value-first parts, ``10.5008 loss``, ``0.000016689301 LR``, ``8.83 GB used``; the first part of a line
may open with the step (``  5  123.45 ms run``)."""
RM_EVAL_PAIR = re.compile(rf"([A-Za-z_][A-Za-z0-9_/]*) \((?:higher|lower) is better\) : ({NUMBER_TEXT})")
"""DeepSpeed-Chat's reward-model evaluation, ``chosen_last_scores (higher is better) : 2.17, acc (higher is better) :
0.48``."""
RM_EVAL_NAMES = {"acc": "eval_accuracy"}
"""DeepSpeed-Chat's pairwise accuracy on the evaluation set is what the RewardTrainer logs as ``eval_accuracy``."""
NAME_VALUE = re.compile(rf"([A-Za-z][A-Za-z0-9_/]*(?: [A-Za-z][A-Za-z0-9_/]*)*):? ({NUMBER_TEXT})")
"""A part of a comma-separated line, its name before its value, with or without a colon: CPM's ``global step 750`` and
``train lm loss: 11.53``, Liger's ``Step 11`` and ``Loss: 1.154``."""
TRAIN_LOSS = re.compile(r"(?:train(?:ing)?[_/])?(?:lm_|total_)?loss")
"""The names (lower-cased, spaces as ``_``) of the training loss, which TRL logs as ``loss``: ``Loss``, ``train loss``,
``train lm loss``, mmf's ``train/total_loss``; other losses (``kl_loss``, ``val_loss``) keep their names."""
PROGRESS = re.compile(r"(?:.*\bprogress: |.*\]\()([0-9]+)/[0-9]+\)?")
"""A comma-separated line's progress part, which gives the step: mmf's ``... logistics: progress: 100/22000``,
minimind's ``Epoch:[1/2](100/39695)`` (the step within the epoch, as ``LINE_STEP``)."""
LABELLED = re.compile(r"[A-Za-z][A-Za-z0-9_ /]*: \S.*")
"""A part whose value is no number (``experiment: run``, ``time: 02m 22s 173ms``, ``epoch_time: 4767.0min``): allowed,
and skipped, on a line that has a progress part."""
METRICS_HEADER = re.compile(r"\*{5} ?[a-z]+ metrics ?\*{5}")
"""The Trainer's ``log_metrics`` header (``***** train metrics *****``, ``***** eval metrics *****``), which
LLaMA-Factory and the example scripts print at the end of a run."""
METRICS_LINE = re.compile(r"(?:INFO:? +)?([A-Za-z_][A-Za-z0-9_/]*) *= *(\S+)")
"""One line of that summary, ``  train_loss               =     0.2208`` (a logger's ``INFO`` before it)."""


def iter_items(text: str) -> list[dict]:
    """mlx-lm's console lines, ``Iter 10: Train loss 0.061, Chosen reward -0.206, Learning Rate 1.000e-05`` (and
    nanoGPT's ``iter 1631: loss 4.0863, time 561.94ms``): one row per line with two or more values, its ``Val`` values
    under TRL's ``eval_`` names (``Val loss`` -> ``eval_loss``); a line in a Markdown bullet (``ITER_BULLET``) needs a
    loss among them."""
    items = []
    for line in text.splitlines():
        s = line.strip()
        if bullet := ITER_BULLET.match(s):
            s = s[bullet.end() :].replace("**", "")
        if not (m := ITER_LINE.fullmatch(s)):
            continue
        row = {}
        for part in m.group(2).split(","):
            if pair := ITER_PAIR.fullmatch(ITER_NOTE.sub("", part.strip()) if bullet else part.strip()):
                name = pair.group(1).strip().lower()
                base = name[4:] if name.startswith("val ") else name
                key = ITER_NAMES.get(base, base.replace(" ", "_"))
                row.setdefault("eval_" + key if base != name else key, pair.group(2))
        if len(row) >= 2 and (not bullet or loss_like(row)):
            items.append({**row, "step": m.group(1)})
    return items


def loss_like(row: dict) -> bool:
    return any("loss" in name.lower() for name in row)


def rm_eval_items(text: str) -> list[dict]:
    """DeepSpeed-Chat's reward-model evaluation lines, ``chosen_last_scores (higher is better) : 2.17, acc (higher is
    better) : 0.48``: one row per line whose every comma-separated part is such a pair, two or more of them."""
    items = []
    for line in text.splitlines():
        parts = [RM_EVAL_PAIR.fullmatch(p.strip()) for p in line.split(",")]
        if len(parts) >= 2 and all(parts):
            row = {}
            for pair in parts:
                row.setdefault(RM_EVAL_NAMES.get(pair.group(1), pair.group(1)), pair.group(2))
            items.append(row)
    return items


def colon_items(text: str, step_keys: tuple[str, ...]) -> list[dict]:
    """``name:value`` pairs one space apart, as minimind (``Epoch:[1/19](100/24681) loss:5.251 lr:0.0002``) and
    torchtune (``Step 12 | loss:1.17 lr:2e-05``) print them: one row per line with two or more such values, one of
    them a loss; the step is the one the line gives (``LINE_STEP``) unless a pair gives it."""
    items = []
    for line in text.splitlines():
        row = {}
        for name, value in COLON_PAIR.findall(line):
            row.setdefault(name, value)
        if len(row) < 2 or not loss_like(row):
            continue
        if not any(k in row for k in step_keys) and (m := LINE_STEP.search(line)):
            row["step"] = m.group(1) or m.group(2)
        items.append(row)
    return items


def value_name_items(text: str) -> list[dict]:
    """tinygrad's value-first lines, ``10.5008 loss, 0.000016689301 LR, 8.83 GB used, 18.70 s``: one row per line
    whose every comma-separated part is a value and its name, two or more, one of them a loss (names lower-cased,
    spaces as ``_``); a number opening the line before the first value is the step."""
    items = []
    for line in text.splitlines():
        parts = [VALUE_NAME.fullmatch(p.strip()) for p in line.split(",")]
        if len(parts) < 2 or not all(parts) or any(p.group(1) for p in parts[1:]):
            continue
        row = {}
        for pair in parts:
            row.setdefault(pair.group(3).lower().replace(" ", "_"), pair.group(2))
        if len(row) >= 2 and loss_like(row):
            items.append({**row, "step": parts[0].group(1)} if parts[0].group(1) else row)
    return items


def name_value_items(text: str) -> list[dict]:
    """Lines of ``name value`` or ``name: value`` parts one ", " apart, as CPM's finetune script (``Epoch 3, global step
    750, total step 2142, train lm loss: 11.53``) and Liger's convergence tests (``Step 11, Loss: 1.154``) print them:
    one row per line whose every part is such a pair, two or more, one of them named ``...loss`` (prose with commas has
    a part that is none); names lower-cased, spaces as ``_``, the training loss as ``loss`` (``TRAIN_LOSS``); the step
    is the ``global step`` part's, else the ``step`` part's (``total step`` is the run's length)."""
    items = []
    for line in text.splitlines():
        parts = line.strip().split(", ")
        if progress := PROGRESS.fullmatch(parts[0]):
            parts = [p for p in parts[1:] if NAME_VALUE.fullmatch(p) or not LABELLED.fullmatch(p)]
        pairs = [NAME_VALUE.fullmatch(p) for p in parts]
        if len(pairs) < 2 or not all(pairs) or not any(p.group(1).lower().endswith("loss") for p in pairs):
            continue
        row = {}
        for pair in pairs:
            name = pair.group(1).lower().replace(" ", "_")
            row.setdefault("loss" if TRAIN_LOSS.fullmatch(name) else name, pair.group(2))
        if "global_step" in row:
            row["step"] = row["global_step"]
        elif progress:
            row["step"] = progress.group(1)
        items.append(row)
    return items


def metrics_block_items(text: str) -> list[dict]:
    """The Trainer's metrics summary, as ``trainer.log_metrics`` prints it at the end of a run::

        ***** train metrics *****
          epoch                    =        3.0
          train_loss               =     0.8453
          train_runtime            = 0:00:42.83

    one row per block (its ``name = value`` lines up to the first other line, blank lines after the header skipped),
    values as written (the runtime and ``total_flos = 20135801GF`` are no numbers: the rules never read them); a block
    with fewer than two lines is none."""
    items, row = [], None
    for line in [*text.splitlines(), ""]:
        if METRICS_HEADER.search(line):
            if len(row or {}) >= 2:
                items.append(row)
            row = {}
        elif row is not None and (m := METRICS_LINE.fullmatch(line.strip())):
            row.setdefault(m.group(1), m.group(2))
        elif row == {} and not line.strip():
            continue  # a blank line after the header
        elif row is not None:
            if len(row) >= 2:
                items.append(row)
            row = None
    return items
