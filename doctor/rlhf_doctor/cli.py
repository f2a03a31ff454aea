"""``rlhf-doctor LOG``: name the RLHF Pitfalls Handbook pages whose symptom shows in a training log.

LOG is one of:

- a ``trainer_state.json`` (its ``log_history``; every Trainer checkpoint folder holds one),
- a JSONL file of logged dicts, one per line, or the console output of a run, in which the Trainer prints each
  log as a Python dict (``{'loss': 0.6931, 'grad_norm': nan, ...}``); other lines are ignored,
- a CSV export (e.g. from Weights & Biases or TensorBoard): a header of metric names, a row per step; a
  ``train/`` prefix is dropped and ``step``, ``global_step``, ``train/global_step`` or ``_step`` gives the step,
- or other trainers' console lines (``lines``: mlx-lm, nanoGPT, minimind, torchtune, tinygrad, DeepSpeed-Chat, and
  comma-separated ``name value`` parts, as CPM's and Liger's), a Markdown or notebook table, or a table aligned with
  spaces.

Metric names of verl, OpenRLHF and ms-swift, and logger prefixes (``train/``), are mapped onto TRL's (``ALIASES``);
fields that are not numbers are ignored. A finding is a *problem* or an *expected* pattern (how TRL behaves,
with the page that says why); problems come first.

Exit status: 0 when no problem matches (expected patterns only, or nothing), 1 when a problem does, 2 when the
log cannot be read.
"""

from __future__ import annotations

import argparse
import ast
import csv
import io
import json
import pathlib
import re
import sys

from rlhf_doctor import lines
from rlhf_doctor import rules as R

STEP_KEYS = ("step", "global_step", "train/global_step", "_step", "Step", "global_step/max_steps")
PREFIXES = ("train/",)
"""Prefixes that loggers (W&B, TensorBoard, ms-swift) put before TRL's own metric names; dropped."""
ALIASES = {
    # verl
    "actor/entropy": "entropy",
    "actor/kl_loss": "kl",
    "actor/pg_loss": "loss",
    "actor/pg_clipfrac": "clip_ratio/region_mean",
    "actor/grad_norm": "grad_norm",
    "actor/lr": "learning_rate",
    "critic/score/mean": "reward",
    "critic/rewards/mean": "reward",
    "response_length/mean": "completions/mean_length",
    "response_length/clip_ratio": "completions/clipped_ratio",
    # OpenRLHF
    "policy_loss": "loss",
    "response_length": "completions/mean_length",
    # ms-swift / older TRL spellings
    "completion_length": "completions/mean_length",
    "clipped_ratio": "completions/clipped_ratio",
    "clip_ratio": "clip_ratio/region_mean",  # TRL before 0.17 and ms-swift: one clip fraction
    "mean_length": "completions/mean_length",
    "reward_mean": "reward",
    "lr": "learning_rate",
}
"""Metric names of other frameworks (and older TRL) that mean what TRL logs under another name; a row keeps the
TRL name when it logs both."""
DICT_SPAN = re.compile(r"\{\s*'[^']+'\s*:[^{}]*\}")
CUT_LINE = re.compile(r"^[ \t]*(\{'[^\n]*)", re.M)
QUOTED_PAIR = re.compile(r"'([^']+)'\s*:\s*('[^']*'|[^,'{}]+)")
KV_PAIR = re.compile(r"(?:^|\s-\s)([\w/().@-]+):\s*([^\s]+)")
SPACED_PAIR = re.compile(r"(?:^|\s{2,})([\w/().@-]+):\s*([^\s]+)(?=\s{2,}|\s*$)")
"""``name: value`` pairs separated by two or more spaces (a metrics summary pasted from a dashboard or a note)."""
COLUMNS = {"step": "step", "training loss": "loss", "validation loss": "eval_loss", "epoch": "epoch"}
"""Column titles of the Trainer's notebook table -> the names it logs."""
TEXT = {
    "en": {
        "none": "No handbook page matches this log ({rows} logged rows, {keys} metrics).",
        "some": "{n} handbook page(s) match this log ({rows} logged rows, {keys} metrics), most specific first:",
        "problem": "Problems",
        "expected": "Expected: how TRL behaves, not a bug",
        "steps": "steps",
        "step": "step",
        "at": "at",
    },
    "zh": {
        "none": "没有手册页面与这份日志匹配（{rows} 条记录，{keys} 个指标）。",
        "some": "{n} 个手册页面与这份日志匹配（{rows} 条记录，{keys} 个指标），最具体的排在前面：",
        "problem": "问题",
        "expected": "正常现象：TRL 本来就是这样，不是 bug",
        "steps": "步",
        "step": "步",
        "at": "出现在",
    },
}


class LogError(ValueError):
    """The file is not a training log this tool can read (the message says why)."""


class InvalidJSON(LogError):
    """The text opens like a JSON list but does not parse as one."""


def _rows_from_dicts(items, source: str) -> list[dict]:
    rows = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise LogError(f"{source}: entry {i + 1} is not a dict of logged values")
        row = _normalised({k: v for k, v in item.items() if isinstance(k, str)})
        for key in STEP_KEYS:
            value = row.get(key)
            if isinstance(value, str) and re.fullmatch(r"\d+/\d+", value.strip()):  # ms-swift: "2/4389"
                value = value.split("/")[0]
            if key in row and R._value(value) is not None:
                row["step"] = int(R._value(value))
                break
        else:
            row["step"] = i + 1
        rows.append(row)
    return rows


def _normalised(row: dict) -> dict:
    """TRL's names for the row's metrics: logger prefixes dropped, other frameworks' names mapped (``ALIASES``)."""
    out = {}
    for key, value in row.items():
        name = next((key[len(p) :] for p in PREFIXES if key.startswith(p) and len(key) > len(p)), key)
        out.setdefault(name, value)
    for other, trl_name in ALIASES.items():
        if other in out and trl_name not in out:
            out[trl_name] = out[other]
    return out


def _dict_line(text: str):
    text = re.sub(r"(?<![\w'])(-?)(nan|inf)(?![\w'])", lambda m: f"'{m.group(1)}{m.group(2)}'", text)
    return ast.literal_eval(text)


def read_log(path: pathlib.Path) -> list[dict]:
    """The logged rows of a trainer_state.json, JSONL/console log or CSV file (raises LogError)."""
    text = _read_text(path)
    try:
        rows = _json_rows(text, str(path))
    except InvalidJSON:
        # "[INFO|...] >> {'loss': ...}": console output that opens with a bracket, unless no other reader finds rows
        if (rows := _other_rows(text, str(path))) is None:
            raise
    if rows is None:
        rows = _other_rows(text, str(path))
    if rows is not None:
        return rows
    raise LogError(
        f"{path}: no logged values found: expected a trainer_state.json, JSONL of logged dicts, console output "
        "with the Trainer's {'loss': ...} lines, or a CSV with a header of metric names"
    )


def _other_rows(text: str, source: str) -> list[dict] | None:
    """The rows found by the first of the non-JSON readers (one per format, most specific first) that finds any."""
    for reader in (
        _line_rows,
        _iter_rows,
        _pair_rows,
        _rm_eval_rows,
        _colon_rows,
        _value_name_rows,
        _name_value_rows,
        _metrics_block_rows,
        _table_rows,
        _aligned_rows,
        _csv_rows,
    ):
        if (rows := reader(text, source)) is not None:
            return rows
    return None


def _read_text(path: pathlib.Path) -> str:
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise LogError(f"{path}: cannot be read ({e.strerror or e})") from e
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise LogError(f"{path}: not a text file (a training log is JSON, JSONL, console text or CSV)") from e
    if not text.strip():
        raise LogError(f"{path}: the file is empty")
    return text


def _json_rows(text: str, source: str) -> list[dict] | None:
    """A trainer_state.json, a JSON list of logged dicts, or one logged dict; None if the text is not one JSON value."""
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise InvalidJSON(f"{source}: invalid JSON ({e.msg} at line {e.lineno})") from e
        return _rows_from_dicts(data, source)
    if not stripped.startswith("{") or stripped.startswith("{'"):
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return None  # maybe JSONL
    if not isinstance(data, dict):
        return None
    if "log_history" not in data:
        if any(R._value(v) is not None for v in data.values()):
            return _rows_from_dicts([data], source)  # a JSONL file of one logged dict (text fields are ignored)
        raise LogError(f"{source}: a JSON object without 'log_history' (expected a trainer_state.json)")
    if not isinstance(data["log_history"], list):
        raise LogError(f"{source}: 'log_history' is not a list")
    return _rows_from_dicts(data["log_history"], source)


def _line_rows(text: str, source: str) -> list[dict] | None:
    """JSON lines, or console output with the Trainer's ``{'loss': ...}`` dicts (also wrapped over several
    lines); None if the text holds none."""
    items = []
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("{"):
            try:
                items.append(json.loads(s))
                continue
            except json.JSONDecodeError:
                pass
    if items:
        return _rows_from_dicts(items, source)
    for m in re.finditer(r"\{[^{}]*\}", text):  # pretty-printed JSON objects, e.g. a piece of log_history
        try:
            obj = json.loads(m.group(0))
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict) and any(R._value(v) is not None for v in obj.values()):
            items.append(obj)
    if items:
        return _rows_from_dicts(items, source)
    return _printed_dict_rows(text, source)


def _printed_dict_rows(text: str, source: str) -> list[dict] | None:
    """Python dicts as the Trainer prints them, in their order: whole, wrapped, or cut off by the paste."""
    found, spans = [], []
    for m in DICT_SPAN.finditer(text):  # a printed dict, possibly wrapped by the terminal or the paste
        spans.append((m.start(), m.end()))
        try:
            found.append((m.start(), _dict_line(" ".join(m.group(0).split()))))
        except (ValueError, SyntaxError):
            if row := _row_of(QUOTED_PAIR.findall(m.group(0))):  # cut off by the paste: its whole pairs
                found.append((m.start(), row))
    for m in CUT_LINE.finditer(text):  # a dict line the paste cut off before its "}"
        if not any(a <= m.start(1) < b for a, b in spans) and (row := _row_of(QUOTED_PAIR.findall(m.group(1)))):
            found.append((m.start(1), row))
    items = [row for _, row in sorted(found, key=lambda f: f[0])]
    return _rows_from_dicts(items, source) if items else None


def _row_of(pairs: list[tuple[str, str]]) -> dict | None:
    """A row of (name, value) pairs found in a line or a cut-off dict, if two or more of its values are numbers."""
    row = {k: v.strip().strip("'\"") for k, v in pairs}
    return row if sum(R._value(v) is not None for v in row.values()) >= 2 else None


def _line_format(items_of):
    """A reader of one of ``lines``' formats: its rows, or None where the text holds no such line."""

    def reader(text: str, source: str) -> list[dict] | None:
        return _rows_from_dicts(items, source) if (items := items_of(text)) else None

    return reader


_iter_rows = _line_format(lines.iter_items)
_rm_eval_rows = _line_format(lines.rm_eval_items)
_colon_rows = _line_format(lambda text: lines.colon_items(text, STEP_KEYS))
_value_name_rows = _line_format(lines.value_name_items)
_name_value_rows = _line_format(lines.name_value_items)
_metrics_block_rows = _line_format(lines.metrics_block_items)


def _pair_rows(text: str, source: str) -> list[dict] | None:
    """Logs pasted without braces: ``'loss': 0.0, 'grad_norm': nan`` (a dict cut out of a line), or verl's
    ``step:1 - actor/entropy:0.44 - critic/score/mean:0.59``, or ``reward: 0   loss: 0`` (pairs two or more spaces
    apart); one row per line that holds two or more values."""
    items = []
    for line in text.splitlines():
        if not (pairs := QUOTED_PAIR.findall(line)):
            # verl's " - "-separated pairs, unless pairs two spaces apart are more (mmengine's "... - INFO -
            # Epoch(train) [1][200/735]  lr: 1.9870e-04  loss: 2.7522  grad_norm: 3.0608")
            spaced = SPACED_PAIR.findall(line)
            dashed = KV_PAIR.findall(line) if " - " in line else []
            pairs = dashed if len(dashed) >= len(spaced) else spaced
        if row := _row_of(pairs):
            items.append(row)
    return _rows_from_dicts(items, source) if items else None


def _table_rows(text: str, source: str) -> list[dict] | None:
    """A Markdown or notebook table (``Step | Training Loss | reward``), as the Trainer's notebook display and
    W&B copy it; column titles map to logged names (``Training Loss`` -> ``loss``, ``rewards / x`` -> ``rewards/x``)."""
    lines = [ln.strip().strip("|") for ln in text.splitlines() if ln.count("|") >= 2]
    if len(lines) < 2:
        return None
    header = [_column(c) for c in lines[0].split("|")]
    items = []
    for line in lines[1:]:
        cells = [c.strip() for c in line.split("|")]
        if len(cells) == len(header) and not all(set(c) <= set("-: ") for c in cells):
            items.append(dict(zip(header, cells)))
    return _rows_from_dicts(items, source) if items else None


def _aligned_rows(text: str, source: str) -> list[dict] | None:
    """A table aligned with spaces: a header of names, then rows of as many numbers (``...`` rows skipped)."""
    lines = [ln.split() for ln in text.splitlines() if ln.strip()]
    if len(lines) < 2 or any(R._value(c) is not None for c in lines[0]):
        return None
    header = [_column(c) for c in lines[0]]
    items = [
        dict(zip(header, cells))
        for cells in lines[1:]
        if len(cells) == len(header) and all(R._value(c) is not None for c in cells)
    ]
    return _rows_from_dicts(items, source) if len(items) >= 1 else None


def _column(title: str) -> str:
    title = re.sub(r"\s*/\s*", "/", title.strip())
    return COLUMNS.get(title.lower(), title)


def _csv_rows(text: str, source: str) -> list[dict] | None:
    """A CSV (or other delimited) table with a header of metric names; None if it has no numeric rows."""
    first = text.splitlines()[0]
    try:
        dialect = csv.Sniffer().sniff(first) if "," not in first else csv.excel
        reader = csv.DictReader(io.StringIO(text), dialect=dialect)
        header = reader.fieldnames or []
    except csv.Error:
        return None
    if len(header) < 2:
        return None
    rows = []
    for rec in reader:
        row = {}
        for k, v in rec.items():
            value = None if k is None or v in (None, "") else R._value(v)
            if value is not None:
                row[k] = value
        if row:
            rows.append(row)
    return _rows_from_dicts(rows, source) if rows else None


def _fmt(v: float) -> str:
    return f"{v:.4g}" if v == v and abs(v) != float("inf") else str(v)


def _span(pts, t) -> str:
    """The steps of the evidence: each one for up to three ("steps 1, 2"; NaN at scattered steps), else a range."""
    if len(pts) == 1:
        return f"{t['step']} {pts[0][0]}"
    if len(pts) <= 3:
        return f"{t['steps']} " + ", ".join(str(s) for s, _ in pts)
    return f"{t['steps']} {pts[0][0]}–{pts[-1][0]}"


def report(findings, log: list[dict], lang: str = "en") -> str:
    t = TEXT[lang]
    n_keys = len(R.keys(log) - {"step"})
    if not findings:
        return t["none"].format(rows=len(log), keys=n_keys)
    out = [t["some"].format(n=len(findings), rows=len(log), keys=n_keys), ""]
    kind = None
    for i, f in enumerate(findings, 1):
        if f.kind != kind:
            kind = f.kind
            out += [f"{t[kind]}:", ""]
        out.append(f"{i}. {f.page['title'][lang]}")
        out.append(f"   {f.page['url'][lang]}")
        for ev in f.evidence:
            pts = ev.points
            if pts:
                shown = ", ".join(f"{_fmt(v)}" for _, v in pts[:6]) + (", …" if len(pts) > 6 else "")
                span = _span(pts, t)
                out.append(f"   - {ev.text}: {span}: {shown}")
            else:
                out.append(f"   - {ev.text}")
        out.append("")
    return "\n".join(out).rstrip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="rlhf-doctor", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("log", type=pathlib.Path, help="trainer_state.json, JSONL/console log, or CSV")
    parser.add_argument("--lang", choices=("en", "zh"), default="en", help="language of the report")
    parser.add_argument("--json", action="store_true", help="print the findings as JSON")
    parser.add_argument("--rules", type=pathlib.Path, help="a rules.json other than the bundled one")
    args = parser.parse_args(argv)
    try:
        log = read_log(args.log)
        rules = R.load_rules(args.rules)
    except LogError as e:
        print(f"rlhf-doctor: {e}", file=sys.stderr)
        return 2
    except (OSError, json.JSONDecodeError, KeyError) as e:
        print(f"rlhf-doctor: cannot read the rules: {e}", file=sys.stderr)
        return 2
    findings = R.diagnose(log, rules, args.lang)
    if args.json:
        print(
            json.dumps(
                [
                    {
                        "page": f.page["id"],
                        "kind": f.kind,
                        "url": f.page["url"][args.lang],
                        "evidence": [{"metric": e.metric, "condition": e.text, "points": e.points} for e in f.evidence],
                    }
                    for f in findings
                ],
                ensure_ascii=False,
                indent=2,
            )
        )
    else:
        print(report(findings, log, args.lang))
    return 1 if any(f.kind == "problem" for f in findings) else 0


if __name__ == "__main__":
    sys.exit(main())
