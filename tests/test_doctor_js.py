"""The in-browser log doctor (docs/javascripts/doctor.js) reads and diagnoses exactly as the Python one does.

One node process runs doctor.js on every corpus log (doctor/tests/corpus/), on the logs the tests of
tests/test_doctor.py build, and on edge cases of each format; its rows (keys and values, in order), findings
(page, kind, evidence text, steps and values) and report text, in English and Chinese, must equal the Python
doctor's (cli.read_log, rules.diagnose, cli.report). Python's number formatting, float() and fnmatch, which the
port re-implements, are compared value by value. No browser is needed; without node the module is skipped.
"""

from __future__ import annotations

import json
import pathlib
import random
import shutil
import subprocess

import pytest
import yaml
from rlhf_doctor import cli
from rlhf_doctor import rules as R

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCTOR_JS = ROOT / "docs" / "javascripts" / "doctor.js"
CORPUS = ROOT / "doctor" / "tests" / "corpus"
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed: the JS doctor cannot be run")

RUNNER = r"""
const doctor = require(process.argv[1]);
const X = doctor._internals;
const chunks = [];
process.stdin.on("data", (c) => chunks.push(c));
process.stdin.on("end", () => {
  const input = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const num = (s) => (s === "nan" ? NaN : s === "inf" ? Infinity : s === "-inf" ? -Infinity : Number(s));
  const repr = (v) => X.floatRepr(v);
  const canonValue = (k, v) => {
    if (k === "step") return BigInt(v).toString();
    try {
      const x = X.pyValue(v);
      return x === null ? null : repr(x);
    } catch (e) {
      return e.pyType || "jsbug: " + e.message;
    }
  };
  const rules = {};
  for (const [name, text] of Object.entries(input.rules)) rules[name] = doctor.parseRules(text).pages;
  const out = { cases: {}, floats: [], values: [], fnmatch: [] };
  for (const c of input.cases) {
    let log;
    try {
      log = doctor.readLog(c.text, "log");
    } catch (e) {
      out.cases[c.id] = { error: e instanceof doctor.LogError ? "LogError" :
        e.pyType ? "error:" + e.pyType.replace(/^csv\./, "") : "jsbug: " + e.stack };
      continue;
    }
    const res = { rows: log.map((row) => [...row].map(([k, v]) => [k, canonValue(k, v)])) };
    for (const lang of ["en", "zh"]) {
      const findings = doctor.diagnose(log, rules[c.rules], lang);
      res[lang] = {
        findings: findings.map((f) => [f.page.id, f.kind,
          f.evidence.map((e) => [e.metric, e.text, e.points.map(([s, v]) => [BigInt(s).toString(), repr(v)])])]),
        report: doctor.report(findings, log, lang),
      };
    }
    out.cases[c.id] = res;
  }
  for (const s of input.floats) {
    const v = num(s);
    out.floats.push([repr(v), X.formatG(v), X.formatFixed0(v * 100) + "%"]);
  }
  for (const s of input.values) {
    const v = X.pyValue(s);
    out.values.push(v === null ? null : repr(v));
  }
  for (const [name, pat] of input.fnmatch) out.fnmatch.push(X.fnmatchRegex(pat).test(name));
  out.text = doctor.TEXT;
  process.stdout.write(JSON.stringify(out));
});
"""

# -- the inputs ---------------------------------------------------------------------------------------------------
ENTRIES = yaml.safe_load((CORPUS / "index.yaml").read_text(encoding="utf-8"))
RULE = {"when": [{"metric": "frac_reward_zero_std", "is": "above", "value": 0.99, "for": 2}]}
PAGE = {"id": "p", "title": {"en": "Zero std", "zh": "零方差"}, "url": {"en": "https://x/p/", "zh": "https://x/zh/p/"}}
PATTERN_CONDITIONS = [  # tests/test_doctor.py::test_patterns, one page each
    {"metric": "kl", "is": "rising"},
    {"metric": "kl", "is": "falling"},
    {"metric": "loss", "is": "equals", "value": 0.693147, "for": 5},
    {"metric": "loss", "is": "drops_to", "value": 0, "for": 2},
    {"metric": "loss", "is": "constant", "for": 9},
    {"metric": "loss", "is": "constant", "for": 10},
    {"metric": "entropy", "is": "missing"},
    {"metric": "kl", "is": "missing"},
    {"metric": "grad_*", "is": "present"},
    {"metric": "grad_norm", "is": "spike"},
    {"metric": "grad_norm", "is": "spike", "value": 3.0},
    {"metric": "loss", "is": "nan"},
    {"metric": "kl", "is": "rising", "value": 1},
    {"metric": "kl", "is": "falling", "value": 0.125},
    {"metric": "[gk]*", "is": "above", "value": 0.0, "for": 2},
    {"metric": "*/std", "is": "below", "value": 1e-06, "for": 2},
]
RULESETS = {
    "one": {"version": 1, "pages": [{**PAGE, "rule": RULE}]},
    "patterns": {
        "version": 1,
        "pages": [{**PAGE, "id": f"p{i:02d}", "rule": {"when": [c]}} for i, c in enumerate(PATTERN_CONDITIONS)]
        + [
            {
                **PAGE,
                "id": "both",
                "rule": {"when": [{"metric": "kl", "is": "rising"}, {"metric": "x", "is": "present"}]},
            },
            {
                **PAGE,
                "id": "any",
                "rule": {"match": "any", "when": [{"metric": "kl", "is": "rising"}, {"metric": "x", "is": "present"}]},
            },
        ],
    },
    "excerpt": {  # tests/test_doctor.py::test_short_excerpt_and_unless and the expected-pattern ranking
        "version": 1,
        "pages": [
            {**PAGE, "id": "short", "rule": {"when": [{"metric": "loss", "is": "below", "value": 0.05, "for": 3}]}},
            {
                **PAGE,
                "id": "vetoed",
                "rule": {
                    "when": [{"metric": "loss", "is": "below", "value": 0.05, "for": 3}],
                    "unless": [{"metric": "grad_norm", "is": "below", "value": 1e-10}],
                },
            },
            {**PAGE, "id": "e", "rule": {"kind": "expected", "when": [{"metric": "loss", "is": "present"}]}},
            {**PAGE, "id": "n", "rule": {"when": [{"metric": "loss", "is": "nan"}]}},
        ],
    },
}


def _jsonl(rows) -> str:
    return "\n".join(json.dumps(r) for r in rows) + "\n"


def _inline_cases(benchmark_log) -> list[tuple[str, str, str]]:
    """(id, text, ruleset) for the logs tests/test_doctor.py builds."""
    rows = [{"step": s, "frac_reward_zero_std": 1.0, "loss": 0.0} for s in (1, 2, 3)]
    console = (
        "Loading...\n"
        + "\n".join(f"{{'loss': 0.0, 'grad_norm': nan, 'frac_reward_zero_std': 1.0, 'epoch': {s}}}" for s in (1, 2, 3))
        + "\n100%|###| 3/3\n"
    )
    pattern_rows = [{"step": i, "kl": 0.01 * i, "loss": 0.6931, "grad_norm": 1.0} for i in range(1, 10)]
    bench = benchmark_log(3000)
    cases = [
        ("cli-state", json.dumps({"global_step": 3, "log_history": rows}), "one"),
        ("cli-jsonl", "\n".join(json.dumps(r) for r in rows), "one"),
        ("cli-console", console, "one"),
        ("cli-csv", "train/global_step,train/frac_reward_zero_std,train/loss\n1,1.0,0\n2,1.0,0\n3,,0\n4,1,0\n", "one"),
        ("cli-healthy", json.dumps({"step": 1, "frac_reward_zero_std": 0.2}), "one"),
        ("foreign-empty", "", "one"),
        ("foreign-model", '{"model": "x"}', "one"),
        ("foreign-history", '{"log_history": 3}', "one"),
        ("foreign-list", "[1, 2, 3]", "one"),
        ("foreign-hello", "hello\nworld\n", "one"),
        ("patterns", _jsonl(pattern_rows), "patterns"),
        ("patterns-spiky", _jsonl(pattern_rows + [{"step": 10, "grad_norm": 50.0}]), "patterns"),
        ("patterns-nan", _jsonl(pattern_rows + [{"step": 10, "loss": float("nan")}]), "patterns"),
        ("patterns-x", _jsonl([{**r, "x": 1} for r in pattern_rows]), "patterns"),
        (
            "mlx-lm",
            "Iter 1: Val loss 0.693, Val chosen reward 0.000, Val took 0.464s\n"
            "Iter 10: Train loss 0.061, Chosen reward -0.206, Margin 0.021, Learning Rate 1.000e-05, Peak mem 5.2 GB\n"
            "Iter 20: Train loss nan, It/sec 0.068\nIter 30: Saved adapter weights to adapters.safetensors.\n",
            "patterns",
        ),
        ("nanogpt", "iter 1631: loss 4.0863, time 561.94ms\niter 1632: loss nan, time 563.15ms\n", "patterns"),
        ("patterns-kl-nan", _jsonl([{**r, "kl": float("nan")} for r in pattern_rows]), "patterns"),
        (
            "patterns-drop",
            _jsonl([{"step": 1, "loss": 2.7}] + [{"step": i, "loss": 0.0} for i in (2, 3, 4)]),
            "patterns",
        ),
        ("patterns-zeros", _jsonl([{"step": i, "loss": 0.0} for i in (1, 2, 3)]), "patterns"),
        ("patterns-bench", _jsonl(bench), "site"),
        ("excerpt-one", _jsonl([{"step": 1, "loss": 0.0, "grad_norm": 0.0}]), "excerpt"),
        ("excerpt-two", _jsonl([{"step": 1, "loss": 0.0, "grad_norm": 0.0}, {"step": 2, "loss": 0.5}]), "excerpt"),
        ("excerpt-nogn", _jsonl([{"step": 1, "loss": 0.0}]), "excerpt"),
        ("excerpt-nan", _jsonl([{"step": 1, "loss": 0.0}, {"step": 2, "loss": float("nan")}]), "excerpt"),
        (
            "swift",
            '{"loss": 0.0, "train/grad_norm": 0.5, "completions/clipped_ratio": 0.75,'
            ' "global_step/max_steps": "2/4389", "train_speed(iter/s)": "0.03", "memory(GiB)": "71.2"}\n',
            "site",
        ),
        ("verl", '{"actor/entropy": 1.2, "critic/score/mean": 0.3, "actor/pg_loss": 0.01, "step": 7}\n', "site"),
        ("summary", "completions/clipped_ratio: 1   reward: 0\nloss: 0   clip_ratio: 0.0\n", "site"),
        (  # tests/test_doctor.py::test_minimind_and_torchtune_colon_pairs_are_read
            "minimind",
            "12:30:01 INFO train.py:88 loss:9.1\n"
            "Epoch:[0/19](0/24681) loss:8.863 lr:0.00020000 epoch_Time:372.0min:\n"
            "epoch:3 lr:0.0002 tokens:1000\n"
            "Epoch:[0/19](100/24681) loss:5.251 lr:0.00020000 epoch_Time:98.0min:\n",
            "site",
        ),
        (
            "torchtune",
            "Step 1 | loss:2.0853 lr:2e-05 tokens_per_second_per_gpu:57.8\nStep 2 | loss:1.87 lr:2e-05\n",
            "site",
        ),
        ("minimind-near", "12:30:01 INFO train.py:88 loss:9.1\nepoch:3 lr:0.0002 tokens:1000\n", "site"),
        (  # tests/test_doctor.py::test_tinygrad_value_first_lines_are_read
            "tinygrad",
            "10.5008 loss, 0.000016689301 LR, 8.83 GB used, 18.70 s\n12:30:01 10.4 loss, 0.00002 LR\n"
            "Trained for 3 epochs, 10.4 loss\n124.27 GB used, 12.50 s\n"
            "10.4828 loss, 0.000025033951 LR, 124.27 GB used, 12.50 s\n"
            "    7  123.45 ms run,   45.10 ms python, 3.52 loss, 0.000100 LR, 24.10 GB used, 812.50 GFLOPS\n",
            "site",
        ),
        (
            "tinygrad-near",
            "12:30:01 10.4 loss, 0.00002 LR\nTrained for 3 epochs, 10.4 loss\n124.27 GB used, 12.50 s\n",
            "site",
        ),
        (  # tests/test_doctor.py::test_deepspeed_chat_reward_eval_lines_are_read
            "ds-chat-rm",
            "***** Evaluating reward, Epoch 0/3 *****\n"
            "chosen_last_scores (higher is better) : 2.172806739807129, acc (higher is better) : 0.4861111044883728\n"
            "Epoch 1/3 with loss 0.6737638572528841\nacc (higher is better) : 0.5\n"
            "chosen_last_scores (higher is better) : 1.5, see the plot\n"
            "chosen_last_scores (higher is better) : -6.797516345977783, "
            "rejected_last_scores (lower is better) : -7.1, acc (higher is better) : 0.6073232293128967\n",
            "site",
        ),
        (
            "ds-chat-rm-near",
            "Epoch 1/3 with loss 0.67\nacc (higher is better) : 0.5\n"
            "chosen_last_scores (higher is better) : 1.5, see it\n",
            "site",
        ),
        (  # tests/test_doctor.py::test_iter_lines_in_markdown_bullets_are_read
            "iter-bullets",
            "## Pattern\n\n- Clean descent: lm_loss 1.45 → 0.55 over iters 1 → 1271\n"
            "- iter 1272: lm_loss 1.13, **grad_norm 63.5** (vs ~0.3 just before)\n"
            "- iter 1273: lm_loss 2.35, **grad_norm 156**\n- iter 1280: grad_norm 0.5, lr 0.0001\n"
            "* iter 1290: lm_loss 2.1, grad_norm 9.5\n",
            "site",
        ),
        (
            "iter-bullets-near",
            "- Clean descent: lm_loss 1.45 → 0.55 over iters 1 → 1271\n- iter 1280: grad_norm 0.5, lr 1\n",
            "site",
        ),
        (  # tests/test_doctor.py::test_comma_separated_name_value_lines_are_read
            "cpm",
            "Epoch 3, global step 750, total step 2142, train lm loss: 11.526718473434448\n"
            "Epoch 3, the loss is still 11.5 after 900 steps, see below\n2020-11-30 12:00:01, step 5, loss: 1.2\n"
            "Epoch 4, global step 860, total step 2142, train lm loss: 11.551578998565674\n",
            "site",
        ),
        (
            "liger",
            "Liger kernel patches have been reverted.\nStep 31, Loss: 0.8136419057846069\n"
            "Step 0, Loss: 10.938319206237793\nStep 1, Loss: 7.0052409172058105, Loss: 9.9\n"
            "Eval Loss: 0.618675172328949\n",
            "site",
        ),
        ("comma-names", "epoch 1, step 5, global step 105, kl loss: 0.02, val loss 2.5, lr: 1e-05\n", "site"),
        (  # tests/test_doctor.py::test_comma_lines_after_a_progress_part_are_read
            "mmf-progress",
            "2021-04-12T20:19:17 | mmf.trainers.callbacks.logistics: progress: 100/22000, train/total_loss: 0.6858, "
            "train/total_loss/avg: 0.6858, max mem: 3788.0, experiment: run, epoch: 1, lr: 0., ups: 0.70, "
            "time: 02m 22s 173ms\n"
            "2021-04-12T20:21:22 | mmf.trainers.callbacks.logistics: progress: 200/22000, train/total_loss: 0.6094, "
            "train/total_loss/avg: 0.6476, max mem: 3788.0, experiment: run, epoch: 1, lr: 0., ups: 0.80\n",
            "site",
        ),
        (
            "minimind-comma",
            "Epoch:[1/2](100/39695), loss: 7.5180, logits_loss: 7.5180, aux_loss: 0.0000, lr: 0.00050000, "
            "epoch_time: 4767.0min\nEpoch:[1/2](200/39695), loss: 7.0277, aux_loss: 0.0000, lr: 0.0005\n"
            "Epoch:[1/2](300/39695), see the plot, loss: 6.9\nprogress: 5/10, time: 2s\n",
            "site",
        ),
        (  # tests/test_doctor.py::test_the_trainers_metrics_summary_is_read
            "metrics-summary",
            "[INFO|x] saved\n***** train metrics *****\n  epoch                    =         10.0\n"
            "  total_flos               = 1268772033GF\n  train_loss               =       0.2208\n"
            "  train_runtime            =   0:08:59.74\nFigure saved at: x.png\n\n***** eval metrics *****\n\n"
            "  epoch  =  3.0\n  eval_loss  =  nan\nINFO ***** train metrics *****\nINFO epoch = 0.37\n"
            "***** predict metrics *****\n  predict_runtime = 0:00:01.00\n",
            "site",
        ),
        (
            "comma-near",
            "Epoch 3, the loss is still 11.5 after 900 steps, see below\n2020-11-30 12:00:01, step 5, loss: 1.2\n"
            "Step 12, Loss: 1.35 (fp32)\nStep 12,Loss: 1.35\nEval Loss: 0.618675172328949\nStep 12, lr: 2e-05\n",
            "site",
        ),
    ]
    return cases


EDGE_CASES = [  # each format cli.py reads, and the corners of each (run with the site's rules)
    ("bom-jsonl", '\ufeff{"loss": 0.0, "grad_norm": 0.0, "reward_std": 0.0}\n{"loss": 0.0, "grad_norm": 0.0}\n'),
    ("state-nan", '{"log_history": [{"loss": NaN, "step": 1}, {"loss": Infinity, "step": 2}, {"loss": -Infinity}]}'),
    (
        "state-pretty",
        '  {\n "log_history": [\n  {"loss": 0.6931, "grad_norm": 0.5, "step": 1},\n'
        '  {"loss": 0.6932, "grad_norm": 0.4, "step": 2},\n  {"loss": 0.6931, "grad_norm": 0.3, "step": 3}\n ]\n}\n',
    ),
    ("list-of-dicts", '[{"loss": 0.0, "step": 5}, {"loss": 0.0, "step": "6"}, {"loss": "0", "step": true}]'),
    ("list-bad-json", "[{'loss': 0.0}]"),
    (
        "dict-cut-off",
        "{'loss': 2.09, 'grad_norm': 6.08, 'epoch': 0.0}\n{'loss': 2.08, 'grad_norm': nan, 'epoch': 0.0, 'global_st\n"
        "{'loss': 1.5, 'grad_norm': nan, 'lr': 1e-05, 'mem\n{'loss': 1.4, 'grad_norm': 3.0, 'epoch': 0.1}\n",
    ),
    (
        "mmengine-pairs",
        "10/30 22:18:02 - mmengine - INFO - Epoch(train) [1][200/735]  lr: 1.987e-04  loss: 2.7522  grad_norm: 3.06\n"
        "10/30 22:18:30 - mmengine - INFO - Epoch(train) [1][210/735]  lr: 1.9857e-04  loss: 2.6150  grad_norm: nan\n"
        "step:1 - actor/entropy:0.44 - critic/score/mean:0.59\n",
    ),
    ("list-bracket-console", "[2024-01-01 10:00] {'loss': 0.5, 'grad_norm': 1.0}\n"),
    ("one-dict-text-only", '{"model": "x", "loss": "n/a"}'),
    ("one-dict-trailing", '{"loss": 1.0} trailing'),
    ("jsonl-mixed", '{"loss": 1}\nnot json\n{"loss": 2, "step": 10}\n{broken\n'),
    ("jsonl-dup-keys", '{"loss": 1, "train/loss": 2, "loss": 3, "clip_ratio": 0.0, "lr": 1e-3}\n'),
    ("jsonl-huge-int", '{"loss": 1e400, "grad_norm": -1e400, "step": 123456789012345678901234567890}\n'),
    (
        "pretty-fragment",
        '"log_history": [\n    {\n      "grad_norm": NaN,\n      "loss": 9078019.2,\n'
        '      "step": 5\n    },\n    {\n      "grad_norm": 1.5,\n      "loss": 12.0,\n      "step": 10\n    }\n',
    ),
    (
        "console-wrapped",
        "{'loss': 0.6931, 'grad_norm':\n 0.25, 'learning_rate': 5e-07, 'epoch': 0.1}\n"
        "{'loss': 0.6931,\n'grad_norm': 0.5, 'epoch': 0.2}\n{'loss': 0.6931, 'grad_norm': 0.1, 'epoch': 0.3}\n",
    ),
    (
        "console-nan-inf",
        "{'loss': nan, 'grad_norm': inf, 'kl': -inf, 'x': 'nan here', 'epoch': 1}\n"
        "{'loss': -nan, 'grad_norm': 'inf', 'kl': NaN, 'epoch': 2}\n",
    ),
    (
        "console-literals",
        "{'loss': 1_000, 'grad_norm': 0x10, 'kl': -(2), 'a': (1, [2]), 'b': 1+2j, 'c': b'x', "
        "'d': True, 'e': None, 'f': ..., 'g': set(), 'h': 'x' 'y', 'i': r'\\d', 'j': .5, 'k': 5., 'l': 1e-3j}\n"
        "{'loss': 01, 'grad_norm': 2}\n{'loss': tensor(0.5), 'grad_norm': 3}\n{'loss': 3, 2: 4, 'grad_norm': 1}\n"
        "{'loss': u'4', 'grad_norm': 1, 'epoch': f'x'}\n{'loss': '\\x41', 'grad_norm': '\\u00e9'}\n",
    ),
    ("console-unhashable", "{'loss': 1, [1]: 2}\n"),
    ("console-strings", "{'loss': '0.5', 'grad_norm': ' 1_0 ', 'kl': '\u0661\u0662', 'reward': '1e5', 'x': '.'}\n"),
    ("pairs-quoted", "step 1: 'loss': 0.0, 'grad_norm': nan, 'reward': '0.5'\nrandom text\n'loss': 0.1, 'kl': 2\n"),
    (
        "pairs-verl",
        "step:1 - actor/entropy:0.44 - critic/score/mean:0.59 - actor/pg_loss:0.0\n"
        "step:2 - actor/entropy:0.01 - critic/score/mean:0.60 - response_length/clip_ratio:1.0\n",
    ),
    ("pairs-spaced", "loss: 0   grad_norm: 0   reward_std: 0\n  kl: 0.5  entropy: 0.1\nloss: 1 only one\n"),
    (
        "table-md",
        "| Step | Training Loss | Validation Loss | rewards / margins |\n|---|:--:|---|---|\n"
        "| 1 | 0.693100 | 0.6931 | 0.0 |\n| 2 | 0.693200 | 0.6930 | 0.0 |\n| 3 | 0.6931 | x | 0 |\n| 4 | 1 |\n",
    ),
    ("table-dup", "a | a | b\n1 | 2 | 3\n"),
    (
        "aligned",
        "Step  loss  grad_norm  reward_mean  clipped_ratio  mean_length\n1  0  0  0  1.0  256\n"
        "2  0  0  0  1.0  256\n...\n10  0  0  0  1.0  256\n",
    ),
    ("aligned-no-rows", "name value\nfoo bar\n"),
    ("csv-comma", "step,loss,grad_norm,kl\n1,0.0,0.0,0.1\n2,,0.0,0.2\n3,0.0,0.0\n4,0.0,0.0,0.3,9\n\n5,x,0,0.4\n"),
    ("csv-quoted", 'step,"loss, total","grad_norm"\n1,"0.5",0.0\n2,"0.5",0.0\n3,"0.""5",0\n'),
    ("csv-tab", "step\tloss\tkl\n1\t0.0\t0.5\n2\t0.0\t0.6\n"),
    ("csv-semicolon", "step;loss;kl\n1;0.0;0.5\n2;0.0;0.6\n"),
    ("csv-crlf", "step,loss,kl\r\n1,0.0,0.5\r\n2,0.0,0.6\r\n"),
    ("csv-bare-cr-later", "step,loss\n1,0.0\n2\r3,0.0\n"),
    ("csv-bare-cr-first", "step\r,loss\n1,0.0\n"),
    ("csv-quote-delim", 'a"b"c\n1"2"3\n'),
    ("csv-sniff-quotes", "'a' 'b'\n'1' '2'\n"),
    ("csv-one-column", "loss\n0.5\n0.6\n"),
    ("csv-unterminated", 'step,loss\n1,"0.5\n2,0.6\n'),
    ("blank-start", "\n\n   \nstep,loss\n1,0.5\n"),
    ("whitespace-only", " \n\t \u3000\n"),
    ("garbage", "hello world\nthis is not a log\n"),
    ("unicode-lines", "loss: 0\u2028grad_norm: 0   kl: 1\u2029reward: 0   reward_std: 0\x1cx: 1  y: 2\n"),
    ("dpo-stuck", "{'loss': 0.6931, 'grad_norm': 0.0, 'rewards/margins': 0.0, 'epoch': 0.01}\n" * 4),
    (
        "grpo-zero",
        "{'loss': 0.0, 'grad_norm': 0.0, 'reward': 1.0, 'reward_std': 0.0, 'frac_reward_zero_std': 1.0}\n" * 3,
    ),
    ("spiky", _jsonl([{"grad_norm": g} for g in (1.0, 1.2, 0.9, 1.1, 15.0, 1.0, 250.0, 300.0)])),
]

FLOATS = [0.0, -0.0, 1.0, -1.5, 0.1, 0.3, 1e-05, 0.0001, 1e16, 1e15, 123456789012345678.0, 1e-10, 1e-06, 5e-324,
          1.7976931348623157e308, 0.6931, 0.69314718, 12345.0, 12.125, 1.0625, 0.0125, 0.005, 0.125, 0.625,
          99999.5, 9.9995, 0.00099995, 2.5, 0.5, -0.005, 810.3125, 8102.26953125, 1e21, 1e22, 3.0303030303030305e-08,
          float("nan"), float("inf"), float("-inf")]  # fmt: skip
_rng = random.Random(0)  # and doubles of every magnitude, and halfway cases (binary fractions) for the rounding
FLOATS += [_rng.uniform(-1, 1) * 10.0 ** _rng.randint(-12, 22) for _ in range(300)]
FLOATS += [_rng.randint(1, 2**16) / 2.0 ** _rng.randint(0, 20) for _ in range(300)]
VALUES = ["1", " 2.5 ", "1_000", "1__0", "_1", "1_", "1_.5", "1e1_0", "nan", "-NaN", "inf", "+Infinity", "infinit",
          "1e", ".5", "5.", ".", "+.5e-3", "0x10", "\u0661\u0662", "\uff11", "1\x1c", "\x1c1", "\u30001\u3000",
          "1\x85", "12\u00a0", "\ufeff1", "1\x7f", "", " ", "--1", "1e400", "-0", "0.000", "١.٥"]  # fmt: skip
FNMATCH = [("rewards/acc/std", "rewards/*/std"), ("rewards/std", "rewards/*/std"), ("grad_norm", "grad_?orm"),
           ("loss", "[!l]oss"), ("boss", "[!l]oss"), ("a-b", "a[-]b"), ("b", "[a-c]"), ("d", "[a-c]"), ("]", "[]]"),
           ("x", "[]]"), ("a", "[!]]"), ("[", "["), ("[a", "[a"), ("a.b", "a.b"), ("axb", "a.b"), ("x/y", "*"),
           ("", "*"), ("a\nb", "a*b"), ("c", "[z-a]"), ("-", "[a-]"), ("^", "[^]"), ("\\", "[\\]"),
           ("eval_rewards/x/mean", "eval_rewards/*/mean"), ("loss", "LOSS"), ("(x)", "(x)")]  # fmt: skip


def _python_result(path: pathlib.Path, rules: list[dict]) -> dict:
    try:
        log = cli.read_log(path)
    except cli.LogError:
        return {"error": "LogError"}
    except Exception as e:  # noqa: BLE001 - the JS port must fail where Python fails
        return {"error": "error:" + type(e).__name__}

    def canon(k, v):
        if k == "step":
            return str(v)
        try:
            x = R._value(v)
        except (OverflowError, ValueError) as e:
            return type(e).__name__
        return None if x is None else repr(x)

    out = {"rows": [[[k, canon(k, v)] for k, v in row.items()] for row in log]}
    for lang in ("en", "zh"):
        findings = R.diagnose(log, rules, lang)
        out[lang] = {
            "findings": [
                [
                    f.page["id"],
                    f.kind,
                    [[e.metric, e.text, [[str(s), repr(v)] for s, v in e.points]] for e in f.evidence],
                ]
                for f in findings
            ],
            "report": cli.report(findings, log, lang),
        }
    return out


def _recorded_runs() -> list[tuple[str, str, str]]:
    """Every run of the run record (compat/runs/, what the pages' charts show), as the trainer_state.json a user
    would paste: the same logs the doctor's own rules are checked on (tests/test_doctor.py)."""
    out = []
    for path in sorted((ROOT / "compat" / "runs").rglob("*.json")):
        rec = json.loads(path.read_text(encoding="utf-8"))
        for seed, runs in sorted(rec.get("seeds", {}).items()):
            for n, run in enumerate(runs, start=1):
                state = json.dumps({"global_step": len(run["logs"]), "log_history": run["logs"]})
                out.append((f"run/{path.parent.name}/{path.stem}/seed{seed}/run{n}", state, "site"))
    return out


@pytest.fixture(scope="module")
def compared(tmp_path_factory, benchmark_log):
    """Both doctors on every input: {case id: (python result, JS result)}, plus the unit grids."""
    tmp = tmp_path_factory.mktemp("doctor-js")
    site_rules = (ROOT / "doctor" / "rlhf_doctor" / "rules.json").read_text(encoding="utf-8")
    rules_text = {"site": site_rules, **{k: json.dumps(v, ensure_ascii=False) for k, v in RULESETS.items()}}
    rules = {k: json.loads(v)["pages"] for k, v in rules_text.items()}
    cases = []  # (id, path, ruleset)
    for entry in ENTRIES:
        cases.append(("corpus/" + entry["file"], CORPUS / entry["file"], "site"))
    for case_id, text, ruleset in (
        _inline_cases(benchmark_log) + _recorded_runs() + [(i, t, "site") for i, t in EDGE_CASES]
    ):
        path = tmp / f"{len(cases):03d}.log"
        path.write_bytes(text.encode("utf-8"))
        cases.append((case_id, path, ruleset))
    payload = {
        "rules": rules_text,
        "cases": [{"id": i, "text": p.read_bytes().decode("utf-8"), "rules": r} for i, p, r in cases],
        "floats": [repr(v) for v in FLOATS],
        "values": VALUES,
        "fnmatch": FNMATCH,
    }
    proc = subprocess.run(
        [NODE, "-e", RUNNER, str(DOCTOR_JS)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    js = json.loads(proc.stdout)
    python = {i: _python_result(p, rules[r]) for i, p, r in cases}
    return {"cases": {i: (python[i], js["cases"][i]) for i, _, _ in cases}, "js": js}


def test_every_corpus_log_reads_and_diagnoses_the_same(compared):
    ids = [i for i in compared["cases"] if i.startswith("corpus/")]
    assert len(ids) == len(ENTRIES) >= 25
    differ = [i for i in ids if compared["cases"][i][0] != compared["cases"][i][1]]
    assert not differ, _diff(compared, differ)


def test_every_recorded_run_diagnoses_the_same(compared):
    ids = [i for i in compared["cases"] if i.startswith("run/")]
    assert len(ids) >= 300, f"only {len(ids)} recorded runs compared"  # 401 when this was written
    differ = [i for i in ids if compared["cases"][i][0] != compared["cases"][i][1]]
    assert not differ, _diff(compared, differ)
    assert any(compared["cases"][i][0]["en"]["findings"] for i in ids), "no recorded run named a page"


def test_inline_and_edge_case_logs_read_and_diagnose_the_same(compared):
    ids = [i for i in compared["cases"] if not i.startswith(("corpus/", "run/"))]
    differ = [i for i in ids if compared["cases"][i][0] != compared["cases"][i][1]]
    assert not differ, _diff(compared, differ)


def test_a_known_log_names_its_page_in_js(compared):
    """Not only equal: the JS doctor finds the page on a real log (an empty answer on both sides would pass above)."""
    _, js = compared["cases"]["corpus/01-grpo-loss-zero-gradnorm-nonzero.txt"]
    assert [f[:2] for f in js["en"]["findings"]] == [["grpo-loss-not-progress-signal", "expected"]]
    assert js["zh"]["findings"][0][2][0][1].startswith("loss 连续")
    _, dpo = compared["cases"]["dpo-stuck"]
    assert dpo["en"]["findings"] and dpo["en"]["findings"][0][0] == "dpo-loss-stuck-ln2"
    assert compared["cases"]["garbage"][1] == {"error": "LogError"}
    for case, rows in (
        ("minimind", 2),
        ("torchtune", 2),
        ("tinygrad", 3),
        ("ds-chat-rm", 2),
        ("iter-bullets", 3),
        ("cpm", 2),
        ("liger", 3),
        ("comma-names", 1),
    ):
        assert len(compared["cases"][case][1]["rows"]) == rows, (case, compared["cases"][case][1])


def test_number_formatting_float_and_fnmatch_match_python(compared):
    js = compared["js"]
    expected_floats = [[repr(v), f"{v:.4g}", f"{v:.0%}"] for v in FLOATS]
    assert js["floats"] == expected_floats
    assert js["values"] == [None if (x := R._value(s)) is None else repr(x) for s in VALUES]
    import fnmatch

    assert js["fnmatch"] == [fnmatch.fnmatchcase(name, pat) for name, pat in FNMATCH]


def test_report_words_are_the_command_lines(compared):
    assert compared["js"]["text"] == cli.TEXT


def _diff(compared, ids) -> str:
    lines = []
    for i in ids[:5]:
        py, js = compared["cases"][i]
        show = [json.dumps(x, ensure_ascii=False)[:1500] for x in (py, js)]
        lines.append(f"{i}:\n  python: {show[0]}\n  js:     {show[1]}")
    return f"{len(ids)} input(s) differ:\n" + "\n".join(lines)
