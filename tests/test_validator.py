"""The validator itself: it must catch what the contract forbids, and name the file and the field."""

from __future__ import annotations

import pathlib
import re

import pytest

from handbook import __main__ as cli
from handbook import contract, pages, site_checks

GOOD = """---
id: grpo-zero-std-group
chapter: online-rl
title: "GRPO: every reward in a group is the same"
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
    page = pages.Page(path=pages.DOCS / name, lang=pages.lang_of(pathlib.Path(name)), meta={}, body="")
    meta, body = pages.split_front_matter(text)
    page.meta, page.body = meta or {}, body
    return pages.validate(page).errors


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
