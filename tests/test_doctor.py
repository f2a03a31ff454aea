"""The log doctor: rules from the pages, checked on the run record; the CLI; the TrainerCallback."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
from rlhf_doctor import cli

from handbook.content import pages
from handbook.site import doctor_rules as doctor

R = doctor.R
MAX_FALSE_ALARMS = 0.10
"""Share of (fix run, rule) checks allowed to fire (printed by test_fire_silent_matrix)."""

RULE = {"when": [{"metric": "frac_reward_zero_std", "is": "above", "value": 0.99, "for": 2}]}
PAGE = {"id": "p", "title": {"en": "Zero std", "zh": "零方差"}, "url": {"en": "https://x/p/", "zh": "https://x/zh/p/"}}


def test_rules_json_is_in_sync():
    committed = json.loads(doctor.RULES_JSON.read_text(encoding="utf-8"))
    assert committed == doctor.export(), "doctor/rlhf_doctor/rules.json is stale: python -m handbook doctor-rules"


def test_fire_silent_matrix(record_property):
    """Each page's rule fires on its own recorded symptom runs and stays silent on its own fix runs; over all fix
    runs of all pages, firings are false alarms; over all symptom runs, runs no rule names are misses."""
    m = doctor.fire_silent()
    rules = len(doctor.export()["pages"])
    checks = max(m.fix_runs * max(rules, 1), 1)
    record_property(
        "figures",
        (
            f"log doctor: {rules} rules; own symptom runs fired {len(m.fired)}/{len(m.fired) + len(m.missed)}, "
            f"own fix runs silent {len(m.silent)}/{len(m.silent) + len(m.own_false)}; "
            f"false alarms {len(m.false_alarms)}/{checks} (fix runs x rules) over {m.fix_runs} fix runs; "
            f"symptom runs no rule names {len(m.all_misses)}/{m.symptom_runs}"
        ),
    )
    assert not m.missed, "rules silent on their own page's symptom run:\n" + "\n".join(m.missed)
    assert not m.own_false, "rules firing on their own page's fix run:\n" + "\n".join(m.own_false)
    assert len(m.false_alarms) / checks <= MAX_FALSE_ALARMS, "\n".join(m.false_alarms)


def test_every_rule_page_has_runs_to_check():
    """A rule no recorded run can confirm is a guess: each rule's page has a chart with a symptom and a fix run."""
    for entry in doctor.export()["pages"]:
        page = pages.load(pages.DOCS / entry["chapter"] / f"{entry['id']}.md")
        runs = (page.meta.get("chart") or {}).get("runs", {})
        assert {"symptom", "fix"} <= set(runs), f"{page.rel}: field 'doctor' needs chart runs symptom and fix"


@pytest.mark.parametrize(
    "log,expect",
    [
        ([{"step": 1, "frac_reward_zero_std": 1.0}, {"step": 2, "frac_reward_zero_std": 1.0}], True),
        ([{"step": 1, "frac_reward_zero_std": 1.0}, {"step": 2, "frac_reward_zero_std": 0.5}], False),
        ([{"step": 1, "loss": 0.1}], False),
    ],
)
def test_above_for_consecutive_steps(log, expect):
    found = R.diagnose(log, [{**PAGE, "rule": RULE}])
    assert bool(found) is expect
    if expect:
        assert found[0].evidence[0].points == [(1, 1.0), (2, 1.0)]


def test_patterns():
    def fires(cond, log):
        return bool(R.diagnose(log, [{**PAGE, "rule": {"when": [cond]}}]))

    rows = [{"step": i, "kl": 0.01 * i, "loss": 0.6931, "grad_norm": 1.0} for i in range(1, 10)]
    assert fires({"metric": "kl", "is": "rising"}, rows)
    assert not fires({"metric": "kl", "is": "falling"}, rows)
    assert fires({"metric": "loss", "is": "equals", "value": 0.693147, "for": 5}, rows)
    assert fires({"metric": "loss", "is": "constant", "for": 9}, rows)
    # fewer values than `for` (a pasted excerpt): constant when every value logged is the same, as above/below
    assert fires({"metric": "loss", "is": "constant", "for": 10}, rows)
    changed = rows[:4] + [{**rows[4], "loss": 0.5}] + rows[5:]
    assert not fires({"metric": "loss", "is": "constant", "for": 5}, changed)
    assert fires({"metric": "loss", "is": "constant", "for": 4}, changed)
    assert fires({"metric": "entropy", "is": "missing"}, rows)
    assert not fires({"metric": "kl", "is": "missing"}, rows)
    # a notebook table prints a metric the trainer never logged as a column of nan: missing, like an absent key
    assert fires({"metric": "kl", "is": "missing"}, [{**r, "kl": "nan"} for r in rows])
    assert not fires({"metric": "kl", "is": "missing"}, [{**r, "kl": "nan"} for r in rows[:-1]] + rows[-1:])
    assert fires({"metric": "grad_*", "is": "present"}, rows)
    # drops_to: a loss that falls to 0 and stays, not one logged 0 from the first row
    drop = {"metric": "loss", "is": "drops_to", "value": 0, "for": 2}
    zeros = [{"step": i, "loss": 0.0} for i in range(1, 5)]
    assert not fires(drop, zeros)
    assert fires(drop, [{"step": 0, "loss": 2.7}] + zeros)
    assert not fires(drop, [{"step": 0, "loss": 2.7}, {"step": 1, "loss": 0.0}, {"step": 2, "loss": 1.1}] + rows)
    assert fires(drop, [{"step": 0, "loss": 2.7}, {"step": 1, "loss": 0.0}])  # a two-row paste: the one after
    spiky = rows + [{"step": 10, "grad_norm": 50.0}]
    assert fires({"metric": "grad_norm", "is": "spike"}, spiky)
    assert not fires({"metric": "grad_norm", "is": "spike"}, rows)
    nan = rows + [{"step": 10, "loss": "nan"}]
    assert fires({"metric": "loss", "is": "nan"}, nan) and not fires({"metric": "loss", "is": "nan"}, rows)
    both = {"when": [{"metric": "kl", "is": "rising"}, {"metric": "entropy", "is": "present"}]}
    assert not R.diagnose(rows, [{**PAGE, "rule": both}])
    assert R.diagnose(rows, [{**PAGE, "rule": {**both, "match": "any"}}])


def test_short_excerpt_and_unless():
    """A metric logged fewer times than ``for`` (a pasted row or two) matches when all its values do; ``unless``
    conditions veto a rule."""
    rule = {"when": [{"metric": "loss", "is": "below", "value": 0.05, "for": 3}]}
    one = [{"step": 1, "loss": 0.0, "grad_norm": 0.0}]
    (found,) = R.diagnose(one, [{**PAGE, "rule": rule}])
    assert found.evidence[0].text == "loss below 0.05 for 1 logged step(s)", "the count matched, not the rule's 3"
    ln2 = {"when": [{"metric": "loss", "is": "equals", "value": 0.6931, "for": 3}, {"metric": "m", "is": "constant"}]}
    (found,) = R.diagnose([{"step": 7, "loss": 0.6931, "m": 0.0}], [{**PAGE, "rule": ln2}])  # one pasted row
    assert [e.text for e in found.evidence] == [
        "loss equal to 0.6931 for 1 logged step(s)",
        "m unchanged for 1 logged step(s)",
    ]
    long = [{"step": s, "loss": 0.0} for s in range(1, 6)]
    (found,) = R.diagnose(long, [{**PAGE, "rule": rule}])
    assert found.evidence[0].text == "loss below 0.05 for 5 logged step(s)", "what the log shows, not the rule's 3"
    assert "steps 1–5: 0, 0, 0, 0, 0" in cli.report([found], long)
    two = [{"step": 3, "loss": 0.0}, {"step": 9, "loss": 0.01}]
    assert "loss below 0.05 for 2 logged step(s): steps 3, 9: 0, 0.01" in cli.report(
        R.diagnose(two, [{**PAGE, "rule": rule}]), two
    )
    assert not R.diagnose(one + [{"step": 2, "loss": 0.5}], [{**PAGE, "rule": rule}])
    vetoed = {**rule, "unless": [{"metric": "grad_norm", "is": "below", "value": 1e-10}]}
    assert not R.diagnose(one, [{**PAGE, "rule": vetoed}])
    assert R.diagnose([{"step": 1, "loss": 0.0}], [{**PAGE, "rule": vetoed}])  # grad_norm not logged: no veto
    assert R.validate_rule({**rule, "unless": "grad_norm"})
    assert any(e.startswith("doctor.unless[0]") for e in R.validate_rule({**rule, "unless": [{"metric": "x"}]}))


@pytest.mark.parametrize(
    "rule,field",
    [
        ({"when": []}, "doctor.when"),
        ({"when": [{"metric": "kl", "is": "exploding"}]}, "doctor.when[0].is"),
        ({"when": [{"metric": "kl", "is": "above"}]}, "doctor.when[0].value"),
        ({"when": [{"metric": "kl", "is": "above", "value": "high"}]}, "doctor.when[0].value"),
        ({"when": [{"metric": "kl", "is": "rising", "for": 0}]}, "doctor.when[0].for"),
        ({"when": [{"is": "nan"}]}, "doctor.when[0].metric"),
        ({"when": [{"metric": "kl", "is": "nan", "steps": 3}]}, "doctor.when[0]"),
        ({"when": [{"metric": "kl", "is": "nan"}], "match": "most"}, "doctor.match"),
        ({"if": []}, "doctor"),
    ],
)
def test_bad_rules_name_the_field(rule, field):
    problems = R.validate_rule(rule)
    assert problems and any(p.startswith(field) for p in problems), problems


def test_front_matter_rule_is_validated(tmp_path):
    page = next(p for p in pages.all_pages() if p.kind == "pitfall" and p.lang == "en")
    bad = dict(page.meta, doctor={"when": [{"metric": "kl", "is": "exploding"}]})
    with pytest.raises(Exception, match=r"doctor\.when\[0\]\.is"):
        pages.FrontMatter.model_validate(bad)


# -- the command-line tool ---------------------------------------------------------------------------------
def _cli(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "rlhf_doctor", *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=60
    )


@pytest.fixture
def rules_file(tmp_path):
    path = tmp_path / "rules.json"
    path.write_text(json.dumps({"version": 1, "pages": [{**PAGE, "rule": RULE}]}), encoding="utf-8")
    return path


def test_cli_reads_trainer_state_jsonl_console_and_csv(tmp_path, rules_file):
    rows = [{"step": s, "frac_reward_zero_std": 1.0, "loss": 0.0} for s in (1, 2, 3)]
    state = tmp_path / "trainer_state.json"
    state.write_text(json.dumps({"global_step": 3, "log_history": rows}), encoding="utf-8")
    jsonl = tmp_path / "log.jsonl"
    jsonl.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    console = tmp_path / "train.log"
    console.write_text(
        "Loading...\n"
        + "\n".join(f"{{'loss': 0.0, 'grad_norm': nan, 'frac_reward_zero_std': 1.0, 'epoch': {s}}}" for s in (1, 2, 3))
        + "\n100%|###| 3/3\n",
        encoding="utf-8",
    )
    csv_file = tmp_path / "export.csv"
    csv_file.write_text("train/global_step,train/frac_reward_zero_std,train/loss\n1,1.0,0\n2,1.0,0\n3,,0\n4,1,0\n")
    for log in (state, jsonl, console, csv_file):
        res = _cli(log, "--rules", rules_file)
        assert res.returncode == 1, (log.name, res.stdout, res.stderr)
        assert "Zero std" in res.stdout and "https://x/p/" in res.stdout and "frac_reward_zero_std" in res.stdout
    zh = _cli(state, "--rules", rules_file, "--lang", "zh")
    assert "零方差" in zh.stdout and "https://x/zh/p/" in zh.stdout and "连续" in zh.stdout
    healthy = tmp_path / "ok.jsonl"
    healthy.write_text(json.dumps({"step": 1, "frac_reward_zero_std": 0.2}), encoding="utf-8")
    res = _cli(healthy, "--rules", rules_file)
    assert res.returncode == 0 and "No handbook page matches" in res.stdout
    as_json = json.loads(_cli(state, "--rules", rules_file, "--json").stdout)
    assert as_json[0]["page"] == "p" and as_json[0]["evidence"][0]["points"][0] == [1, 1.0]


@pytest.mark.parametrize(
    "content,message",
    [
        (b"", "empty"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe", "not a text file"),
        (b'{"model": "x"}', "without 'log_history'"),
        (b'{"log_history": 3}', "not a list"),
        (b"[1, 2, 3]", "not a dict"),
        (b"[1, 2", "invalid JSON"),  # no other reader finds rows either
        (b"hello\nworld\n", "no logged values found"),
    ],
)
def test_cli_foreign_files(tmp_path, content, message):
    path = tmp_path / "weird.txt"
    path.write_bytes(content)
    res = _cli(path)
    assert res.returncode == 2 and message in res.stderr and str(path) in res.stderr, res.stderr


def test_console_log_opening_with_a_bracketed_tag_is_read(tmp_path):
    """A LLaMA-Factory log starts "[INFO|date] logger >> {...}": not a broken JSON list (hiyouga/LlamaFactory#6286)."""
    path = tmp_path / "llamafactory.txt"
    path.write_text(
        "[INFO|2024-12-08 01:09:59] llamafactory.train.callbacks:157 >> {'loss': 0.0000, 'epoch': 0.03}\n"
        "{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 4.99e-05, 'epoch': 0.03}\n"
        "{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 4.98e-05, 'epoch': 0.04}\n"
    )
    rows = cli.read_log(path)
    assert [r["loss"] for r in rows][-2:] == [0.0, 0.0] and rows[-1]["grad_norm"] == "nan", rows


def test_mlx_lm_iter_lines_are_read(tmp_path):
    """mlx-lm prints "Iter N: Train loss 0.693, Chosen reward 0.000, ..." (ml-explore/mlx-examples#1209): one row per
    line, its step the iteration, Val values under TRL's eval_ names, units after a value ignored."""
    path = tmp_path / "mlx.txt"
    path.write_text(
        "Iter 1: Val loss 0.693, Val chosen reward 0.000, Val took 0.464s\n"
        "Iter 10: Train loss 0.061, Chosen reward -0.206, Margin 0.021, Learning Rate 1.000e-05, Peak mem 5.276 GB\n"
        "Iter 20: Train loss nan, It/sec 0.068\n"
        "Iter 30: Saved adapter weights to adapters.safetensors.\n"
    )
    rows = cli.read_log(path)
    assert [r["step"] for r in rows] == [1, 10, 20], rows
    assert rows[0]["eval_loss"] == "0.693" and rows[0]["eval_rewards/chosen"] == "0.000", rows[0]
    assert rows[1]["loss"] == "0.061" and rows[1]["rewards/margins"] == "0.021", rows[1]
    assert rows[1]["learning_rate"] == "1.000e-05" and rows[1]["peak_mem"] == "5.276", rows[1]
    assert R.diagnose(rows, [{**PAGE, "rule": {"when": [{"metric": "loss", "is": "nan"}]}}])


def test_nanogpt_iter_lines_are_read(tmp_path):
    """nanoGPT prints "iter 1631: loss 4.0863, time 561.94ms": read as mlx-lm's lines are (lower-case "iter"), one row
    per line, the unit after a value ignored; a line with one value is no row."""
    path = tmp_path / "nanogpt.txt"
    path.write_text(
        "$ torchrun --standalone --nproc_per_node=8 train.py\n"
        "iter 1631: loss 4.0863, time 561.94ms\niter 1632: loss nan, time 563.15ms\niter 1633: loss 3.98\n"
    )
    rows = cli.read_log(path)
    assert [r["step"] for r in rows] == [1631, 1632], rows
    assert rows[0]["loss"] == "4.0863" and rows[0]["time"] == "561.94", rows[0]
    assert R.diagnose(rows, [{**PAGE, "rule": {"when": [{"metric": "loss", "is": "nan"}]}}])


def _read(tmp_path, text: str) -> list[dict]:
    """The rows cli.read_log reads from a log of this text."""
    path = tmp_path / "log.txt"
    path.write_text(text, encoding="utf-8")
    return cli.read_log(path)


def test_minimind_and_torchtune_colon_pairs_are_read(tmp_path):
    """minimind prints "Epoch:[0/19](100/24681) loss:5.251 lr:0.00020000 epoch_Time:98.0min:" (jingyaogong/minimind#26)
    and torchtune "Step 2 | loss:1.87 lr:2e-05 ..." (meta-pytorch/torchtune#1358): "name:value" pairs one space apart,
    the step the line's; a value with a unit glued on is no pair, and a line needs two values, one of them a loss (a
    timestamp or a "file.py:88" is no pair)."""
    rows = _read(
        tmp_path,
        "12:30:01 INFO train.py:88 loss:9.1\n"
        "Epoch:[0/19](0/24681) loss:8.863 lr:0.00020000 epoch_Time:372.0min:\n"
        "epoch:3 lr:0.0002 tokens:1000\n"
        "Epoch:[0/19](100/24681) loss:5.251 lr:0.00020000 epoch_Time:98.0min:\n",
    )
    assert [(r["step"], r["loss"], r["learning_rate"]) for r in rows] == [
        (0, "8.863", "0.00020000"),
        (100, "5.251", "0.00020000"),
    ], rows
    assert "epoch_Time" not in rows[0], rows[0]
    tune = _read(
        tmp_path,
        "Step 1 | loss:2.085338592529297 lr:2e-05 tokens_per_second_per_gpu:57.828881833956174\n"
        "Step 2 | loss:1.8718312978744507 lr:2e-05 tokens_per_second_per_gpu:405.044978758513\n",
    )
    assert [(r["step"], r["loss"]) for r in tune] == [(1, "2.085338592529297"), (2, "1.8718312978744507")]
    assert cli._colon_rows("12:30:01 INFO train.py:88 loss:9.1\nepoch:3 lr:0.0002 tokens:1000\n", "near") is None


def test_tinygrad_value_first_lines_are_read(tmp_path):
    """tinygrad prints the value before its name, "10.5008 loss, 0.000016689301 LR, 8.83 GB used, 18.70 s"
    (tinygrad/tinygrad#11467), and its mlperf trainers open the line with the step ("  5  123.45 ms run, ..."): a row
    when every comma-separated part is a value and a name and one name is a loss; prose or a timestamp in any part, or
    no loss, and the line is no row."""
    rows = _read(
        tmp_path,
        "10.5008 loss, 0.000016689301 LR, 8.83 GB used, 18.70 s\n"
        "12:30:01 10.4 loss, 0.00002 LR\n"
        "Trained for 3 epochs, 10.4 loss\n"
        "124.27 GB used, 12.50 s\n"
        "10.4828 loss, 0.000025033951 LR, 124.27 GB used, 12.50 s\n"
        "    7  123.45 ms run,   45.10 ms python, 3.52 loss, 0.000100 LR, 24.10 GB used, 812.50 GFLOPS\n",
    )
    assert [(r["step"], r["loss"], r["learning_rate"]) for r in rows] == [
        (1, "10.5008", "0.000016689301"),
        (2, "10.4828", "0.000025033951"),
        (7, "3.52", "0.000100"),
    ], rows
    assert rows[0]["gb_used"] == "8.83" and rows[2]["ms_run"] == "123.45", rows
    near = "12:30:01 10.4 loss, 0.00002 LR\nTrained for 3 epochs, 10.4 loss\n124.27 GB used, 12.50 s\n"
    assert cli._value_name_rows(near, "near") is None


def test_deepspeed_chat_reward_eval_lines_are_read(tmp_path):
    """DeepSpeed-Chat's step 2 prints "chosen_last_scores (higher is better) : 2.17, acc (higher is better) : 0.49"
    (deepspeedai/DeepSpeedExamples#322): one row per line of such pairs, acc as the RewardTrainer's eval_accuracy; its
    "Epoch 1/3 with loss 0.67" lines (one value) and a line with one pair or with prose after a pair are no rows."""
    rows = _read(
        tmp_path,
        "***** Evaluating reward, Epoch 0/3 *****\n"
        "chosen_last_scores (higher is better) : 2.172806739807129, acc (higher is better) : 0.4861111044883728\n"
        "Epoch 1/3 with loss 0.6737638572528841\n"
        "acc (higher is better) : 0.5\n"
        "chosen_last_scores (higher is better) : 1.5, see the plot\n"
        "chosen_last_scores (higher is better) : -6.797516345977783, rejected_last_scores (lower is better) : -7.1, "
        "acc (higher is better) : 0.6073232293128967\n",
    )
    assert [list(r.items()) for r in rows] == [
        [("chosen_last_scores", "2.172806739807129"), ("eval_accuracy", "0.4861111044883728"), ("step", 1)],
        [
            ("chosen_last_scores", "-6.797516345977783"),
            ("rejected_last_scores", "-7.1"),
            ("eval_accuracy", "0.6073232293128967"),
            ("step", 2),
        ],
    ], rows
    near = (
        "Epoch 1/3 with loss 0.67\nacc (higher is better) : 0.5\nchosen_last_scores (higher is better) : 1.5, see it\n"
    )
    assert cli._rm_eval_rows(near, "near") is None


def test_iter_lines_in_markdown_bullets_are_read(tmp_path):
    """A run summarised in an issue's bullets, "- iter 1273: lm_loss 2.35, **grad_norm 156**" (NVIDIA-NeMo/Megatron-
    Bridge#4024): read as "iter N:" lines, "**" and a remark in brackets after a value dropped; a bullet needs a loss
    among its values, and a bullet that is not an "iter N:" line (a range, prose) is no row."""
    rows = _read(
        tmp_path,
        "## Pattern\n\n"
        "- Clean descent: lm_loss 1.45 → 0.55 over iters 1 → 1271\n"
        "- iter 1272: lm_loss 1.13, **grad_norm 63.5** (vs ~0.3 just before)\n"
        "- iter 1273: lm_loss 2.35, **grad_norm 156**\n"
        "- iter 1280: grad_norm 0.5, lr 0.0001\n"
        "* iter 1290: lm_loss 2.1, grad_norm 9.5\n",
    )
    assert [list(r.items()) for r in rows] == [
        [("lm_loss", "1.13"), ("grad_norm", "63.5"), ("step", 1272)],
        [("lm_loss", "2.35"), ("grad_norm", "156"), ("step", 1273)],
        [("lm_loss", "2.1"), ("grad_norm", "9.5"), ("step", 1290)],
    ], rows
    near = "- Clean descent: lm_loss 1.45 → 0.55 over iters 1 → 1271\n- iter 1280: grad_norm 0.5, lr 0.0001\n"
    assert cli._iter_rows(near, "near") is None


def test_comma_separated_name_value_lines_are_read(tmp_path):
    """CPM's finetune script prints "Epoch 3, global step 750, total step 2142, train lm loss: 11.526718473434448"
    (zhenhao-huang/CPM-1-Finetune-Text-Generation#3) and Liger's convergence tests "Step 11, Loss: 1.1540931463241577"
    (linkedin/Liger-Kernel#232): one row per line whose every ", "-separated part is a name and its value (a colon or
    not), two or more, one named "...loss"; the training loss is TRL's loss, other names lower-cased with "_"; the step
    is the global step's, else the step's, never the total step. Prose with commas, a timestamp or a remark in a part,
    one part alone, or no loss, and the line is no row."""
    rows = _read(
        tmp_path,
        "Epoch 3, global step 750, total step 2142, train lm loss: 11.526718473434448\n"
        "Epoch 3, the loss is still 11.5 after 900 steps, see below\n"
        "2020-11-30 12:00:01, step 5, loss: 1.2\n"
        "Epoch 4, global step 860, total step 2142, train lm loss: 11.551578998565674\n",
    )
    assert [list(r.items()) for r in rows] == [
        [("epoch", "3"), ("global_step", "750"), ("total_step", "2142"), ("loss", "11.526718473434448"), ("step", 750)],
        [("epoch", "4"), ("global_step", "860"), ("total_step", "2142"), ("loss", "11.551578998565674"), ("step", 860)],
    ], rows
    liger = _read(
        tmp_path,
        "Liger kernel patches have been reverted.\n"
        "Step 31, Loss: 0.8136419057846069\n"
        "Step 0, Loss: 10.938319206237793\n"
        "Step 1, Loss: 7.0052409172058105, Loss: 9.9\n"
        "Eval Loss: 0.618675172328949\n",
    )
    assert [list(r.items()) for r in liger] == [
        [("step", 31), ("loss", "0.8136419057846069")],
        [("step", 0), ("loss", "10.938319206237793")],
        [("step", 1), ("loss", "7.0052409172058105")],
    ], liger
    other = _read(tmp_path, "epoch 1, step 5, global step 105, kl loss: 0.02, val loss 2.5, lr: 1e-05\n")
    assert list(other[0].items()) == [
        ("epoch", "1"),
        ("step", 105),
        ("global_step", "105"),
        ("kl_loss", "0.02"),
        ("val_loss", "2.5"),
        ("lr", "1e-05"),
        ("learning_rate", "1e-05"),
    ], other
    near = (
        "Epoch 3, the loss is still 11.5 after 900 steps, see below\n"
        "2020-11-30 12:00:01, step 5, loss: 1.2\n"
        "Step 12, Loss: 1.35 (fp32)\n"
        "Step 12,Loss: 1.35\n"
        "Eval Loss: 0.618675172328949\n"
        "Step 12, lr: 2e-05\n"
    )
    assert cli._name_value_rows(near, "near") is None


def test_comma_lines_after_a_progress_part_are_read(tmp_path):
    """mmf prints "... logistics: progress: 100/22000, train/total_loss: 0.6858, ..., experiment: run, ..., time: 02m
    22s 173ms" (facebookresearch/mmf#870) and minimind "Epoch:[1/2](100/39695), loss: 7.5180, ..., epoch_time:
    4767.0min" (jingyaogong/minimind#772): after such a progress part, which gives the step, parts whose value is no
    number are skipped; the rest must be name-value pairs, two or more, one a loss (mmf's train/total_loss is the
    training loss). Without a progress part, or with a part that is neither, the line is no row."""
    rows = _read(
        tmp_path,
        "2021-04-12T20:16:54 | mmf.trainers.core.training_loop: Starting training...\n"
        "2021-04-12T20:19:17 | mmf.trainers.callbacks.logistics: progress: 100/22000, train/total_loss: 0.6858, "
        "train/total_loss/avg: 0.6858, max mem: 3788.0, experiment: run, epoch: 1, lr: 0., time: 02m 22s 173ms\n",
    )
    assert [list(r.items()) for r in rows] == [
        [
            ("loss", "0.6858"),
            ("total_loss/avg", "0.6858"),
            ("max_mem", "3788.0"),
            ("epoch", "1"),
            ("lr", "0."),
            ("step", 100),
            ("learning_rate", "0."),
        ]
    ], rows
    mini = _read(
        tmp_path,
        "Model Params: 63.91M\n"
        "Epoch:[1/2](100/39695), loss: 7.5180, logits_loss: 7.5180, aux_loss: 0.0000, lr: 0.00050000, "
        "epoch_time: 4767.0min\n"
        "Epoch:[1/2](200/39695), loss: 7.0277, logits_loss: 7.0277, aux_loss: 0.0000, lr: 0.00049999, "
        "epoch_time: 4750.0min\n",
    )
    assert [(r["step"], r["loss"]) for r in mini] == [(100, "7.5180"), (200, "7.0277")], mini
    near = "Epoch:[1/2](300/39695), see the plot, loss: 6.9\nprogress: 5/10, time: 2s, eta: 1m\n"
    assert cli._name_value_rows(near, "near") is None


def test_the_trainers_metrics_summary_is_read(tmp_path):
    """LLaMA-Factory and the Trainer's example scripts end a run with ``trainer.log_metrics``' block, "***** train
    metrics *****" then "  train_loss    =     0.2208" lines (a logger's INFO before them): each block is one row,
    up to the first other line, in order (steps 1, 2, 3). A header followed by fewer than two such lines is no row."""
    rows = _read(
        tmp_path,
        "[INFO|tokenization_utils_base.py:2534] >> Special tokens file saved\n"
        "***** train metrics *****\n"
        "  epoch                    =        5.0\n"
        "  total_flos               = 38889053GF\n"
        "  train_loss               =     2.2415\n"
        "  train_runtime            = 0:16:08.44\n"
        "  train_samples_per_second =      5.065\n"
        "Figure saved at: /root/saves/training_loss.png\n"
        "***** eval metrics *****\n\n"
        "  epoch  =  5.0\n"
        "  eval_loss  =  1.95\n"
        "INFO ***** train metrics *****\n"
        "INFO epoch = 0.3704\n"
        "INFO train_loss = 117.8037\n"
        "***** predict metrics *****\n"
        "  predict_runtime = 0:00:01.00\n",
    )
    assert [(r.get("train_loss"), r.get("eval_loss"), r["epoch"]) for r in rows] == [
        ("2.2415", None, "5.0"),
        (None, "1.95", "5.0"),
        ("117.8037", None, "0.3704"),
    ], rows
    assert [r["step"] for r in rows] == [1, 2, 3], rows
    assert cli._metrics_block_rows("***** train metrics *****\n  epoch = 1.0\nDone.\n", "one line") is None


def test_cut_off_dicts_and_mmengine_pairs_are_read(tmp_path):
    """A dict line the paste cut before its "}" keeps its whole pairs, in order with the complete ones; mmengine's
    "... - INFO - Epoch(train) [1][200/735]  lr: ...  loss: ..." reads as pairs two spaces apart, not verl's " - "."""
    cut = tmp_path / "cut.txt"
    cut.write_text(
        "{'loss': 2.09, 'grad_norm': 6.08, 'epoch': 0.0}\n{'loss': 2.08, 'grad_norm': nan, 'epoch': 0.0, 'global_st\n"
        "{'loss': 1.4, 'grad_norm': 3.0, 'epoch': 0.1}\n"
    )
    rows = cli.read_log(cut)
    assert [r["loss"] for r in rows] == [2.09, "2.08", 1.4] and rows[1]["grad_norm"] == "nan", rows
    mm = tmp_path / "mm.txt"
    mm.write_text(
        "10/30 22:18:02 - mmengine - INFO - Epoch(train) [1][200/735]  lr: 1.987e-04  loss: 2.7522  grad_norm: 3.06\n"
        "10/30 22:18:30 - mmengine - INFO - Epoch(train) [1][210/735]  lr: 1.9857e-04  loss: 2.6150  grad_norm: nan\n"
    )
    rows = cli.read_log(mm)
    assert [(r["loss"], r["grad_norm"], r["learning_rate"]) for r in rows] == [
        ("2.7522", "3.06", "1.987e-04"),
        ("2.6150", "nan", "1.9857e-04"),
    ], rows


def test_cli_missing_file(tmp_path):
    res = _cli(tmp_path / "nope.json")
    assert res.returncode == 2 and "cannot be read" in res.stderr


def test_cli_needs_no_torch(tmp_path, rules_file):
    """The doctor runs where torch cannot be imported (a laptop reading a log from the cluster)."""
    blocker = tmp_path / "sitecustomize.py"
    blocker.write_text(
        "import sys\nclass B:\n    def find_spec(self, name, *a):\n"
        "        if name.split('.')[0] in ('torch', 'transformers', 'trl', 'numpy'):\n"
        "            raise ImportError('blocked: ' + name)\nsys.meta_path.insert(0, B())\n"
    )
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join(json.dumps({"step": s, "frac_reward_zero_std": 1.0}) for s in (1, 2)), encoding="utf-8")
    env = {"PYTHONPATH": f"{tmp_path}:{pages.ROOT / 'doctor'}", "PATH": "/usr/bin:/bin"}
    res = subprocess.run(
        [sys.executable, "-m", "rlhf_doctor", str(log), "--rules", str(rules_file)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert res.returncode == 1, res.stderr


def test_benchmark_10k_steps(record_property, benchmark_log):
    """10,000 logged steps with every rule of the handbook diagnose in well under 30 s (a quadratic rule would not)."""
    rules = doctor.export()["pages"] or [{**PAGE, "rule": RULE}]
    log = benchmark_log(10_000)
    started = time.perf_counter()
    findings = R.diagnose(log, rules)
    seconds = time.perf_counter() - started
    assert all(isinstance(f, R.Finding) for f in findings)
    assert seconds < 30, f"the doctor must stay linear: 10,000 steps took {seconds:.1f} s"  # ~0.7 s measured
    record_property("figures", f"log doctor: 10,000 logged steps x {len(rules)} rules diagnosed in {seconds:.3f} s")


def test_callback_warns_once_per_page(caplog):
    transformers = pytest.importorskip("transformers")
    from rlhf_doctor.callback import DoctorCallback

    cb = DoctorCallback(rules=[{**PAGE, "rule": RULE}])
    state = transformers.TrainerState()
    state.is_world_process_zero = True
    with caplog.at_level("WARNING", logger="rlhf_doctor"):
        for step in range(1, 6):
            state.global_step = step
            cb.on_log(None, state, None, logs={"frac_reward_zero_std": 1.0, "loss": 0.0})
    warnings = [r for r in caplog.records if r.name == "rlhf_doctor"]
    assert len(warnings) == 1 and "https://x/p/" in warnings[0].getMessage()


def test_expected_patterns_rank_after_problems_and_do_not_fail_the_cli(tmp_path):
    from rlhf_doctor import cli

    problem = {**PAGE, "id": "p", "rule": {"when": [{"metric": "loss", "is": "nan"}]}}
    expected = {**PAGE, "id": "e", "rule": {"kind": "expected", "when": [{"metric": "loss", "is": "present"}]}}
    log = [{"step": 1, "loss": 0.0}, {"step": 2, "loss": float("nan")}]
    found = R.diagnose(log, [expected, problem])
    assert [(f.page["id"], f.kind) for f in found] == [("p", "problem"), ("e", "expected")]
    text = cli.report(found, log)
    assert text.index("Problems:") < text.index("Expected: how TRL behaves, not a bug:")
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps({"version": 1, "pages": [expected]}), encoding="utf-8")
    healthy = tmp_path / "log.jsonl"
    healthy.write_text('{"loss": 0.0, "step": 1}\n', encoding="utf-8")
    assert cli.main([str(healthy), "--rules", str(rules)]) == 0  # expected only: exit 0
    assert R.validate_rule({"kind": "maybe", "when": [{"metric": "loss", "is": "present"}]})


def test_other_frameworks_metric_names_map_onto_trls(tmp_path):
    from rlhf_doctor import cli

    swift = tmp_path / "swift.jsonl"
    swift.write_text(
        '{"loss": 0.0, "train/grad_norm": 0.5, "completions/clipped_ratio": 0.75, "global_step/max_steps": "2/4389",'
        ' "train_speed(iter/s)": "0.03", "memory(GiB)": "71.2"}\n',
        encoding="utf-8",
    )
    (row,) = cli.read_log(swift)
    assert row["step"] == 2 and row["grad_norm"] == 0.5 and row["completions/clipped_ratio"] == 0.75
    verl = tmp_path / "verl.jsonl"
    verl.write_text('{"actor/entropy": 1.2, "critic/score/mean": 0.3, "actor/pg_loss": 0.01, "step": 7}\n')
    (row,) = cli.read_log(verl)
    assert (row["entropy"], row["reward"], row["loss"], row["step"]) == (1.2, 0.3, 0.01, 7)
    summary = tmp_path / "summary.txt"
    summary.write_text("completions/clipped_ratio: 1   reward: 0\nloss: 0   clip_ratio: 0.0\n", encoding="utf-8")
    first, second = cli.read_log(summary)
    assert (first["completions/clipped_ratio"], first["reward"]) == ("1", "0")
    assert second["clip_ratio/region_mean"] == "0.0"


def test_one_isolated_grad_norm_spike_names_the_explosion_page():
    """Users paste a run with one spike (0.9, 1.1, 1.0, then 11140): the rule's 'above 100 for 2' misses it; its
    'spike' condition (more than 8x the median of the steps before) fires, also on a 9x jump (15, 10, 8, then 92, as
    in unslothai/unsloth#5207); a smooth run, one at 6x, and one high but steady, do not."""
    rule = next(p for p in doctor.export()["pages"] if p["id"] == "grad-norm-explosion")
    rows = [{"step": s, "loss": 1.0, "grad_norm": g} for s, g in enumerate([1.2, 0.9, 1.1, 1.0, 11140.0, 1.3], 1)]
    (found,) = R.diagnose(rows, [rule])
    assert [(e.text, e.points) for e in found.evidence] == [
        ("grad_norm more than 8x the median of the steps before", [(5, 11140.0)])
    ]
    steady = [{**r, "grad_norm": 150.0 + r["step"]} for r in rows]  # high from the start: the "above" condition
    assert R.diagnose(steady, [rule])
    smooth = [{**r, "grad_norm": 1.0 + 0.2 * (r["step"] % 2)} for r in rows]
    assert not R.diagnose(smooth, [rule])
    jump = [{"step": s, "grad_norm": g} for s, g in enumerate([15.0, 9.8, 7.6, 92.1, 29.0], 1)]
    assert [e.points for f in R.diagnose(jump, [rule]) for e in f.evidence] == [[(4, 92.1)]]
    six = [{**r, "grad_norm": 58.8} if r["step"] == 4 else r for r in jump[:4]]  # 6x the median 9.8
    assert not R.diagnose(six, [rule])
