"""The code hash that matrix cells, run records and real-model rows carry (``contract.page_hash``).

It identifies what a page's code does, so a record stays current when the code is only re-laid out (wrapped,
comments moved or reworded, docstrings rewritten, strings split) and goes stale when anything that runs changes.
"""

from __future__ import annotations

import pytest

from handbook.content import contract

CODE = '''import os

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")


def train(seed, beta=0.04):
    """Train once."""
    return {"beta": beta, "seed": seed}  # the value the page is about


def check(seed: int = 0) -> str:
    logs = train(seed)
    assert logs["beta"] > 0, f"claim: beta {logs['beta']} is positive for seed {seed}"
    return "ok"
'''

SAME = {
    "reformatted": CODE.replace(
        'return {"beta": beta, "seed": seed}  # the value the page is about',
        'return {\n        "beta": beta,\n        "seed": seed,\n    }',
    ),
    "comment moved above": CODE.replace(
        '    return {"beta": beta, "seed": seed}  # the value the page is about',
        '    # the value the page is about,\n    # on two lines now\n    return {"beta": beta, "seed": seed}',
    ),
    "docstring reworded": CODE.replace('"""Train once."""', '"""Train once,\n    with a longer story."""'),
    "docstring removed": CODE.replace('    """Train once."""\n', ""),
    "f-string split": CODE.replace(
        "f\"claim: beta {logs['beta']} is positive for seed {seed}\"",
        '(\n        f"claim: beta {logs[\'beta\']} "\n        f"is positive for seed {seed}"\n    )',
    ),
    "string split": CODE.replace('"Qwen/Qwen2.5-0.5B-Instruct"', '"Qwen/Qwen2.5-" "0.5B-Instruct"'),
    "module docstring": '"""What the page shows."""\n' + CODE,
}

DIFFERENT = {
    "a number": CODE.replace("beta=0.04", "beta=0.05"),
    "a name": CODE.replace("def train(", "def run(").replace("= train(", "= run("),
    "an assert message": CODE.replace("is positive", "is above zero"),
    "a string": CODE.replace("Qwen2.5-0.5B", "Qwen2.5-1.5B"),
    "a statement": CODE.replace('    return "ok"', '    print(logs)\n    return "ok"'),
    "an operator": CODE.replace('logs["beta"] > 0', 'logs["beta"] >= 0'),
    "a docstring-like string that is not first": CODE.replace(
        '    return {"beta"', '    "not a docstring"\n    return {"beta"'
    ),
}


@pytest.mark.parametrize("change", SAME)
def test_layout_comments_and_docstrings_keep_the_hash(change):
    assert SAME[change] != CODE
    compile(SAME[change], "<page>", "exec")
    assert contract.code_fingerprint(SAME[change]) == contract.code_fingerprint(CODE)


@pytest.mark.parametrize("change", DIFFERENT)
def test_a_change_to_what_runs_changes_the_hash(change):
    assert DIFFERENT[change] != CODE
    compile(DIFFERENT[change], "<page>", "exec")
    assert contract.code_fingerprint(DIFFERENT[change]) != contract.code_fingerprint(CODE)


def test_code_that_does_not_parse_is_hashed_as_text():
    broken = "def check(seed:\n    return 'ok'\n"
    assert contract.code_fingerprint(broken) == broken
    assert contract.code_fingerprint(broken + "# more\n") != contract.code_fingerprint(broken)


def test_page_hash_hashes_the_fingerprint_of_the_page_code(monkeypatch):
    page = contract.ROOT / "docs" / "online-rl" / "grpo-zero-std-group.md"
    before = contract.page_hash(page)
    code = contract.page_code(page)
    monkeypatch.setattr(contract, "page_code", lambda _: "# a new comment\n" + code + "\n# and a last one\n")
    assert contract.page_hash(page) == before
    monkeypatch.setattr(contract, "page_code", lambda _: code.replace("SEEDS = (", "SEEDS = (7, "))
    assert contract.page_hash(page) != before
