"""The validator itself: it must catch what the contract forbids, and name the file and the field."""

from __future__ import annotations

import pathlib
import re

import pytest

from handbook import __main__ as cli
from handbook.content import contract, pages, schema
from handbook.site import site_checks

GOOD = """---
id: grpo-zero-std-group
chapter: online-rl
title: "GRPO: every reward in a group is the same"
nav_title: "Equal rewards in a group"
fix_line: "Grade the reward instead of pass/fail, as `graded_reward` does."
symptoms: ["frac_reward_zero_std is 1.0", "reward_std = 0", "loss is 0"]
tags: [GRPO]
snippet: snippets/online-rl/grpo-zero-std-group.py
advice: ["000 §11.3 row 6"]
sources: []
trl: ">=1.0"
verdict: wrong
verdict_reason: "advantages are exactly 0, not NaN"
---

# Title

## Symptom {#symptom}

!!! folklore "The folklore says"
    no

## Why it happens {#why}

## Fix {#fix}

```python
--8<-- "online-rl/grpo-zero-std-group.py:fix"
```

## Evidence {#evidence}

```python
--8<-- "online-rl/grpo-zero-std-group.py:evidence"
```

## Related pages {#related}
"""


def check(text: str, name: str = "online-rl/grpo-zero-std-group.md") -> list[str]:
    return pages.validate(pages.from_text(pages.DOCS / name, text)).errors


def test_good_page_passes():
    assert check(GOOD) == []


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda t: t.replace("verdict: wrong", "verdict: maybe"), "field 'verdict'"),
        (lambda t: t.replace('symptoms: ["frac_reward_zero_std is 1.0", ', "symptoms: ["), "field 'symptoms'"),
        (lambda t: t.replace("chapter: online-rl", "chapter: nowhere"), "field 'chapter'"),
        (lambda t: t.replace('trl: ">=1.0"', 'trl: "one point sixteen"'), "field 'trl'"),
        (lambda t: t.replace("id: grpo-zero-std-group", "id: Other_Name"), "field 'id'"),
        (lambda t: t.replace('advice: ["000 §11.3 row 6"]', "advice: []"), "'advice' must name it"),
        (lambda t: t.replace('advice: ["000 §11.3 row 6"]', 'advice: ["000 table 3 row 6"]'), "canonical id"),
        (lambda t: t.replace('advice: ["000 §11.3 row 6"]', 'advice: ["002 trick 4\\n"]'), "canonical id"),
        (lambda t: t.replace("advice:", "seed_rows:"), "seed_rows"),
        (lambda t: t.replace("!!! folklore", "!!! note"), "folklore"),
        (lambda t: t.replace("## Fix {#fix}", "## Fix"), "sections"),
        (lambda t: t.replace('--8<-- "online-rl/grpo-zero-std-group.py:fix"', "print('pasted')"), "code fence"),
        (lambda t: t.replace(':fix"', ':no-such-section"'), "has no section"),
        (
            lambda t: t.replace('```python\n--8<-- "online-rl/grpo-zero-std-group.py:fix"', "``` { .python }\nx = 1"),
            "code fence",
        ),
        (
            lambda t: t.replace(
                '```python\n--8<-- "online-rl/grpo-zero-std-group.py:fix"', "``` { .python .not-runnable }\nx = 1"
            ),
            "code fence",
        ),
        (lambda t: t.replace('grpo-zero-std-group.py:evidence"', 'grpo-zero-std-group.py:fix"'), "every section"),
        (
            lambda t: t.replace(
                '--8<-- "online-rl/grpo-zero-std-group.py:evidence"',
                '--8<-- "online-rl/grpo-zero-std-group.py:evidence"\n--8<-- "online-rl/grpo-zero-std-group.py:fix"',
            ),
            "exactly one include",
        ),
        (
            lambda t: t.replace(
                '## Fix {#fix}\n\n```python\n--8<-- "online-rl/grpo-zero-std-group.py:fix"\n```', "## Fix {#fix}"
            ).replace(
                "## Evidence {#evidence}\n",
                '## Evidence {#evidence}\n\n```python\n--8<-- "online-rl/grpo-zero-std-group.py:fix"\n```\n',
            ),
            "belongs under {#fix}",
        ),
        (
            lambda t: t.replace('grpo-zero-std-group.py:evidence"', 'grpo-low-temperature-zero-std.py:evidence"'),
            "only its own snippet",
        ),
        (lambda t: t.replace("sources: []", "sources: [trl-1234]"), "field 'sources'"),
        (lambda t: t.replace("tags: [GRPO]", "tags: [GRPO]\nsurprise: 1"), "surprise"),
        (lambda t: t.replace('nav_title: "Equal rewards in a group"\n', ""), "field 'nav_title': Field required"),
        (lambda t: t.replace("fix_line: ", "fix: "), "field 'fix_line': Field required"),
        (lambda t: t.replace("Equal rewards in a group", "TODO"), "field 'nav_title'"),
        (lambda t: t.replace("```python\n--8<--", '```python hl_lines="2 40"\n--8<--', 1), "hl_lines [40] outside"),
    ],
)
def test_each_contract_breach_is_reported_with_file_and_field(edit, expected):
    errors = check(edit(GOOD))
    assert errors, "the validator accepted a broken page"
    assert all(re.match(r"docs/online-rl/grpo-zero-std-group\.md(:\d+)?: ", e) for e in errors), errors
    assert any(expected in e for e in errors), errors


def test_untested_code_may_be_shown_as_text():
    text = GOOD.replace(
        "## Why it happens {#why}", "## Why it happens {#why}\n\n```text\nfrom trl import PPOTrainer\n```"
    )
    assert check(text) == []


SNIPPET = contract.SNIPPETS / "online-rl" / "grpo-zero-std-group.py"


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda t: t.replace("# --8<-- [start:fix]", "x = 1\n\n# --8<-- [start:fix]"), ":9: sections: code outside"),
        (
            lambda t: t.replace("import math\n", "import math\nfrom handbook import runner\n"),
            "imports: imports 'handbook'",
        ),
        (lambda t: t.replace("def check(seed: int = 0)", "def verify(seed: int = 0)"), "check: defines no"),
        (lambda t: t.replace("def check(seed: int = 0)", "def check(s, seed: int = 0)"), "check: must be declared"),
        (lambda t: t.replace("SEEDS = (0, 1, 2)", "SEEDS = [0, 1]"), "SEEDS: must be a non-empty tuple"),
        (lambda t: t.replace("SEEDS = (0, 1, 2)", "SEEDS = (0, 1, 2)\nSEEDS = (3,)"), "SEEDS: define SEEDS"),
        (lambda t: t.replace('"Qwen/Qwen2.5-0.5B-Instruct")', '"gpt2")'), "model: the model must be one"),
        (
            lambda t: t.replace("import math\n", 'import math\nLR_SCALE = float(os.environ["HANDBOOK_LR_SCALE"])\n'),
            "LR_SCALE: the learning-rate scale must be one",
        ),
        (lambda t: t.replace("        print(check(seed))\n", "        check(seed)\n"), "main: the last section"),
        (lambda t: t.replace("[start:fix]", "[start:setup]"), "section name 'setup'"),
        (lambda t: t.replace("# --8<-- [end:evidence]", ""), "never closed"),
        (
            lambda t: t.replace("[start:fix]", "[start:evidence-x]").replace("[end:fix]", "[end:evidence-x]"),
            "has no 'fix' section",
        ),
        (lambda t: t.replace("def check(", "def check(("), "syntax"),
        (lambda t: t.replace(', "claim: reward_std logs 0"', ""), "assert: has no message"),
    ],
)
def test_each_snippet_contract_breach_names_file_line_and_field(tmp_path, edit, expected):
    bad = tmp_path / "bad.py"
    bad.write_text(edit(SNIPPET.read_text(encoding="utf-8")), encoding="utf-8")
    errors = contract.parse(bad).errors
    assert any(expected in e for e in errors), errors
    assert all(e.startswith(str(bad)) for e in errors), errors


def test_a_shown_line_wider_than_a_code_block_is_named_by_file_and_line(tmp_path):
    text = SNIPPET.read_text(encoding="utf-8")
    seeds = "SEEDS = (0, 1, 2)  # the test suite runs check() once per seed"
    wide = seeds + ", on the tiny model and on SmolLM2-135M-Instruct"
    assert len(wide) > contract.MAX_LINE
    line = text.splitlines().index(seeds) + 1
    bad = tmp_path / "wide.py"
    bad.write_text(text.replace(seeds, wide), encoding="utf-8")
    assert contract.parse(bad).errors == [
        f"{bad}:{line}: line-length: {len(wide)} characters wide; a page shows at most {contract.MAX_LINE} without "
        "scrolling: move a trailing comment above the line, wrap the comment, split the string (implicit "
        "concatenation), then `ruff format`"
    ]
    # the module docstring is not shown; a wide (CJK) character takes two columns
    bad.write_text(text.replace('"""', '"""' + "x" * 100, 1).replace(seeds, seeds[:60] + "，" * 15), encoding="utf-8")
    assert [e.split(": ")[1] for e in contract.parse(bad).errors] == ["line-length"]


def test_the_exemplar_snippet_meets_the_contract():
    snip = contract.parse(SNIPPET)
    assert snip.errors == [] and snip.seeds == (0, 1, 2) and list(snip.sections) == ["fix", "evidence"]
    assert snip.uses_model and "check" in snip.functions


def test_page_code_is_what_the_page_shows_in_order():
    code = contract.page_code(contract.ROOT / "docs" / "online-rl" / "grpo-zero-std-group.md")
    assert code.index("def graded_reward") < code.index("def check(")
    assert "--8<--" not in code and contract.MODEL_LINE in code


def test_zh_headings_must_be_chinese():
    errors = check(GOOD, name="online-rl/grpo-zero-std-group.zh.md")
    assert any("should read '症状'" in e for e in errors), errors


def test_parity_catches_a_diverging_twin():
    en = pages.Page(pages.DOCS / "x.md", "en", *pages.split_front_matter(GOOD))
    zh_text = GOOD.replace("verdict: wrong", "verdict: holds").replace("{#evidence}", "{#proof}")
    zh = pages.Page(pages.DOCS / "x.zh.md", "zh", *pages.split_front_matter(zh_text))
    errors = site_checks.check_parity(en, zh)
    assert any("field 'verdict'" in e for e in errors) and any("anchors" in e for e in errors), errors


def test_scaffold_writes_three_files_that_the_validator_flags_until_filled(tmp_path, monkeypatch):
    monkeypatch.setattr(pages, "DOCS", tmp_path / "docs")
    monkeypatch.setattr(pages, "SNIPPETS", tmp_path / "snippets")
    monkeypatch.setattr(pages, "ROOT", tmp_path)
    (tmp_path / "handbook").symlink_to(pathlib.Path(cli.__file__).parent)
    assert cli.main(["new", "sft", "my-new-trap"]) == 0
    made = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    assert made == ["docs/sft/my-new-trap.md", "docs/sft/my-new-trap.zh.md", "snippets/sft/my-new-trap.py"]
    errors = site_checks.check_all()
    assert any("TODO" in e for e in errors), errors  # templates are not publishable as they are
    assert not any(": line-length: " in e for e in errors), errors  # but their code fits a page
    assert cli.main(["new", "sft", "my-new-trap"]) == 1  # refuses to overwrite
    assert cli.main(["new", "sft", "Bad_Slug"]) == 2


EN_PAGE, ZH_PAGE = "online-rl/grpo-zero-std-group.md", "online-rl/grpo-zero-std-group.zh.md"


def _timing_errors(prose: str, name: str = EN_PAGE) -> tuple[list[str], int]:
    """The validator's run-time errors for ``prose`` put at the top of the Evidence section, and that file line."""
    marker = "## Evidence {#evidence}\n\n"
    text = GOOD.replace(marker, marker + prose + "\n\n")
    meta, body = pages.split_front_matter(text)
    page = pages.Page(pages.DOCS / name, pages.lang_of(pathlib.Path(name)), meta, body)
    page.offset = text[: len(text) - len(body)].count("\n")  # as pages.load sets it: errors name the file line
    line = text[: text.index(marker) + len(marker)].count("\n") + 1
    return [e for e in pages.validate(page).errors if "run time typed by hand" in e], line


@pytest.mark.parametrize(
    ("prose", "name"),
    [
        ("`check(0)` took 226 s on SmolLM2", EN_PAGE),
        ("about 3 s on the tiny model", EN_PAGE),
        ("每个随机种子 8 到 10 秒", ZH_PAGE),
        ("The check takes about 3 s on the tiny model after the imports.", EN_PAGE),
        ("Trainer construction only (well under a second per seed).", EN_PAGE),
        ("The same on the tiny and the real model (3 s).", EN_PAGE),
        ("Seeds 1 and 2 agree. 5 to 11 seconds on the tiny model.", EN_PAGE),
        ("The two-process launch took 30–45 s on the shared 2-core CPU test machine.", EN_PAGE),
        ("`check(0)` 在 SmolLM2 上用了\n615 秒（单个 CPU 核）。", ZH_PAGE),  # wrapped between verb and number
        ("只构建训练器（每次远不到一秒）。", ZH_PAGE),
        ("导入之后检查在微型测试模型上约 3–4 秒。", ZH_PAGE),
        ("检查在微型测试模型上 3 秒。", ZH_PAGE),
    ],
)
def test_a_run_time_typed_by_hand_is_rejected_with_file_and_line(prose, name):
    errors, line = _timing_errors(prose, name)
    assert len(errors) == 1, errors
    assert re.fullmatch(
        rf"docs/{re.escape(name)}:{line}: body: a run time typed by hand \('.+'\): "
        r"quote timings from the record or not at all",
        errors[0],
    ), errors


NAV_LINE = 5  # the line of nav_title in GOOD


def test_a_too_long_nav_title_is_rejected_naming_file_line_and_width():
    errors = check(GOOD.replace("Equal rewards in a group", "Every reward in a group is the same one"))
    assert len(errors) == 1, errors
    assert re.fullmatch(
        rf"docs/online-rl/grpo-zero-std-group\.md:{NAV_LINE}: field 'nav_title': .*39 columns wide.*at most 25 fit.*",
        errors[0],
    ), errors


@pytest.mark.parametrize(
    ("prose", "name"),
    [
        ("a 600 s timeout", EN_PAGE),
        ("600 秒的超时", ZH_PAGE),
        ("timeout=1800", EN_PAGE),
        ("The Fix's config is in server mode with a 600 s timeout.", EN_PAGE),
        ("It waits up to `vllm_server_timeout` seconds; NCCL's `timeout=1800` is another matter.", EN_PAGE),
        ("Full fine-tuning takes a second copy of the model.", EN_PAGE),
        ("```text\nstep 3 took 12 s\n```", EN_PAGE),  # a pasted log is not prose
        ("“解决办法”里的配置带着 600 秒的超时。", ZH_PAGE),
        ("vLLM 在训练卡上预留了显存，几秒之内就显存溢出。", ZH_PAGE),
    ],
)
def test_timeouts_and_settings_are_not_run_times(prose, name):
    assert _timing_errors(prose, name)[0] == []


@pytest.mark.parametrize(("label", "ok"), [("一二三四五六七八九十一二", True), ("一二三四五六七八九十一二三", False)])
def test_a_chinese_character_counts_two_columns(label, ok):
    errors = check(GOOD.replace("Equal rewards in a group", label), name="online-rl/grpo-zero-std-group.zh.md")
    assert any("field 'nav_title'" in e for e in errors) != ok, errors


def test_backticks_mark_code_and_do_not_count():
    assert schema.label_width("`frac_reward_zero_std` 1") == 22
    assert check(GOOD.replace("Equal rewards in a group", "`frac_reward_zero_std` 1")) == []
    errors = check(GOOD.replace("Equal rewards in a group", "`frac_reward_zero_std 1"))
    assert any(f":{NAV_LINE}: field 'nav_title'" in e and "unclosed backtick" in e for e in errors), errors


def test_a_value_the_fix_line_names_must_be_in_the_fix_section():
    """The one-line fix cannot drift from the page: `name=value` is in its Fix section (prose or code) as written."""
    named = GOOD.replace("as `graded_reward` does.", "or set `num_generations=16`.")
    errors = check(named)
    assert any(
        re.match(r"docs/online-rl/grpo-zero-std-group\.md:6: field 'fix_line': `num_generations=16` is not in", e)
        for e in errors
    ), errors
    in_evidence = named.replace("## Evidence {#evidence}\n", "## Evidence {#evidence}\n\nWith `num_generations=16`.\n")
    assert any("field 'fix_line'" in e for e in check(in_evidence))  # another section does not count
    in_fix = named.replace("## Fix {#fix}\n", "## Fix {#fix}\n\nOr set `num_generations = 16`.\n")
    assert check(in_fix) == []  # spaces aside, exactly as written there
    assert check(in_fix.replace("num_generations = 16", "num_generations = 8")) != []
    assert check(in_fix.replace("num_generations = 16", "num_generations = 160")) != []  # whole values only
    assert check(in_fix.replace("num_generations = 16", "max_num_generations = 16")) != []


def test_the_fix_section_is_read_with_its_code_included():
    page = pages.from_text(pages.DOCS / "online-rl/grpo-zero-std-group.md", GOOD)
    fix = pages.section_text(page, "fix")
    assert "def graded_reward(" in fix and "--8<--" not in fix and "def check(" not in fix


def test_parity_catches_fix_lines_naming_different_values():
    en_text = GOOD.replace("as `graded_reward` does.", "`beta=0.04`.")
    en = pages.from_text(pages.DOCS / "x.md", en_text)
    zh = pages.from_text(pages.DOCS / "x.zh.md", en_text.replace("`beta=0.04`", "`beta=0.4`"))
    assert any("field 'fix_line'" in e for e in site_checks.check_parity(en, zh))
    assert not any("field 'fix_line'" in e for e in site_checks.check_parity(en, en))
