"""A contributor's path, end to end, in a scratch tree: ``new`` -> fill the TODOs -> ``check`` is clean -> the
page's code runs and passes, as ``pytest docs/<page>.md`` runs it."""

from __future__ import annotations

import pathlib

import pytest

from handbook import __main__ as cli
from handbook.content import contract, pages
from handbook.lanes import pytest_pages
from handbook.site import site_checks

SNIPPET = '''"""SFTConfig does not pack by default: turn packing on yourself.

Page: docs/sft/packing-default-off.md
中文: docs/sft/packing-default-off.zh.md
"""

# --8<-- [start:fix]
import torch
from trl import SFTConfig

sft_config = SFTConfig(
    packing=True,  # not the default
    logging_steps=1,
    save_strategy="no",
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
def check(seed: int = 0) -> str:
    default = SFTConfig(bf16=torch.cuda.is_available())
    assert default.packing is False, (
        f"claim: SFTConfig does not pack by default, got {default.packing!r}"
    )
    assert sft_config.packing is True, "claim: the Fix turns packing on"
    return f"default packing={default.packing}; fix packing={sft_config.packing}"


SEEDS = (0,)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
'''

EN = {
    '"TODO: the symptom, as a user would name it"': '"SFT does not pack sequences unless asked"',
    '"TODO: the sidebar label, one line"': '"Packing is off by default"',
    '"TODO: the fix in one line: the argument and value the Fix sets, as written there"': (
        '"Turn packing on yourself: `packing=True` in `SFTConfig`."'
    ),
    '"TODO: a phrase a stuck user types"': '"SFT packing is off"',
    '"TODO: a metric key or error string they paste"': '"packing=False"',
    '"TODO: the question they ask (\\"is it normal that ...\\")"': '"is it normal that SFT pads every row"',
    "tags: [TODO]": "tags: [SFT]",
    '"TODO: owner/repo#123, a public thread where users hit this"': '"huggingface/trl#4040"',
    '"TODO: one line: what TRL 1.16 really does"': '"SFTConfig.packing defaults to False."',
    "# TODO: the symptom, as a user would name it": "# SFT does not pack sequences unless asked",
    "TODO: what the user sees (metric values, error text).": "Every row is padded to the longest of its batch.",
    "TODO: the mechanism in TRL 1.16, with the source it comes from.": "`SFTConfig.packing` is `False`.",
    "TODO: what the test asserts, in prose.": "The check asserts the default and the Fix.",
    "- TODO": "- none yet",
}
ZH = {
    '"TODO：用户看到的现象"': '"SFT 默认不打包序列"',
    '"TODO：侧栏里的短标签，一行"': '"默认不打包"',
    '"TODO：一句话修复：写出 Fix 里设置的参数和值，与那里写法一致"': (
        '"自己打开打包：在 `SFTConfig` 里设 `packing=True`。"'
    ),
    '"TODO：用户会搜索的中文短语"': '"SFT 没有打包"',
    '"TODO：指标名或报错原文"': '"packing=False"',
    '"TODO：用户会问的问题（“……正常吗”）"': '"SFT 每行都补齐正常吗"',
    "tags: [TODO]": "tags: [SFT]",
    '"TODO: owner/repo#123, a public thread where users hit this"': '"huggingface/trl#4040"',
    '"TODO：一句话说明 TRL 1.16 的真实行为"': '"SFTConfig.packing 默认为 False。"',
    "# TODO：用户看到的现象": "# SFT 默认不打包序列",
    "- TODO": "- 暂无",
    "TODO": "默认值与修复都由检查断言。",
}


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    for module in (pages, contract):
        monkeypatch.setattr(module, "ROOT", tmp_path)
        monkeypatch.setattr(module, "SNIPPETS", tmp_path / "snippets")
    monkeypatch.setattr(pages, "DOCS", tmp_path / "docs")
    (tmp_path / "handbook").symlink_to(pathlib.Path(cli.__file__).parent)
    return tmp_path


def fill(path: pathlib.Path, table: dict[str, str]) -> None:
    text = path.read_text(encoding="utf-8")
    for todo, words in table.items():
        text = text.replace(todo, words)
    path.write_text(text, encoding="utf-8")


def test_new_fill_check_run(scratch):
    assert cli.main(["new", "sft", "packing-default-off"]) == 0
    before = site_checks.check_all()
    assert before and all("TODO" in e for e in before), before  # only the TODOs are flagged, nothing else
    en, zh = scratch / "docs/sft/packing-default-off.md", scratch / "docs/sft/packing-default-off.zh.md"
    fill(en, EN)
    fill(zh, ZH)
    (scratch / "snippets/sft/packing-default-off.py").write_text(SNIPPET, encoding="utf-8")
    assert site_checks.check_all() == []
    res = pytest_pages.runner().run(en, contract.CHECK, 0, timeout=300)  # the worker this process's pages run in
    assert res.ok and res.message == "default packing=False; fix packing=True", (res.kind, res.message, res.log)


def test_contributing_lists_every_chapter_in_order():
    import re

    text = (pages.ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    line = text[text.index("Chapters: ") : text.index("(the one source")]
    assert re.findall(r"`([\w-]+)`", line) == list(pages.CHAPTERS), line
