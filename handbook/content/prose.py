"""Checks of a page's prose: run times typed by hand (pages quote numbers from their records, never by hand)."""

from __future__ import annotations

import re

from handbook.content import markdown_scan

_NUM = r"(?:\d+(?:\.\d+)?|[一二两三四五六七八九十几]+)"
_SPAN = rf"{_NUM}(?:\s*(?:–|—|-|~|to|到|至)\s*{_NUM})?"
_EN_UNIT = r"(?:s|secs?|seconds?|mins?|minutes?)\b(?!\s*time-?out)"
_ZH_UNIT = r"(?:秒钟?|分钟|小时)(?!的?超时)"
HAND_TIMES = [
    # took 226 s, takes about 4 s, needs 30-45 seconds
    re.compile(
        r"\b(?:took|takes?|taking|lasted|lasts|needs|needed|ran\s+in|runs\s+in)\s+(?:(?:well\s+)?(?:about|around"
        rf"|roughly|under|over|less\s+than|more\s+than|nearly|almost)\s+)?{_SPAN}\s*{_EN_UNIT}",
        re.I,
    ),
    # about 3 s, about 0 s each, around 10 seconds
    re.compile(rf"\b(?:about|around|roughly|approximately)\s+{_SPAN}\s*{_EN_UNIT}", re.I),
    # 8 to 10 s per seed, 3 s on the tiny model, 30-45 s on the 2-core CPU test machine, 15 s each
    re.compile(
        rf"\b{_SPAN}\s*{_EN_UNIT}\s+(?:each\b|per\s+(?:seed|check|run|page)\b|with\s+the\s+profiler"
        r"|on\s+(?:the\s+|a\s+|one\s+)?(?:tiny|real|SmolLM2|shared|single|\d+-core|CPU)\b)",
        re.I,
    ),
    # (well) under a second, less than a second, about a second
    re.compile(
        r"\b(?:well\s+)?(?:under|less\s+than|about|around)\s+a\s+(?:second|minute)\b"
        r"(?![\s-]*(?:copy|model|process|network|look|pass|run|step|time)\b)",
        re.I,
    ),
    # a bare duration in brackets: (3 s), (the check loads no model; 3 s), （约 3 秒）
    re.compile(rf"[(;（；]\s*(?:about\s+|约\s*)?{_SPAN}\s*(?:s|secs?|seconds?|秒钟?)\s*[)）]"),
    # 约 3 秒, 用了 226 秒, 需要 5 到 11 秒, 每个随机种子 8 到 10 秒, 在微型测试模型上 3 秒; not 600 秒的超时
    re.compile(
        r"(?:大约|约|用了|用时|耗时|需要|花了|跑了|要跑|每次|每个随机种子|每个种子"
        rf"|在(?:微型测试模型|真实模型|SmolLM2[\w.-]*)上)\s*(?:约|需要|用了)?\s*{_SPAN}\s*{_ZH_UNIT}"
    ),
    # 不到一秒, 远不到一秒, 一秒以内
    re.compile(r"不到\s*(?:一|1)\s*秒|(?:一|1)\s*秒钟?以内"),
]
"""A run time typed into a page's prose (a timeout or other setting is not one). Pages quote numbers from their
records; the real-model record (compat/real/) holds each seed's ``seconds``, the tiny-model record none."""


def hand_typed_times(body: str) -> list[tuple[int, str]]:
    """(body line, quoted phrase) of every run time typed into prose outside code; lines are joined, so a phrase
    wrapped over two lines is seen, and a phrase caught by two patterns is reported once."""
    outside = dict(markdown_scan.outside_fences(body))
    count = len(body.splitlines())
    text = "\n".join(re.sub(r"`[^`\n]*`", "CODE", outside.get(n, "")) for n in range(1, count + 1))
    hits = sorted((m.start(), m.end(), m.group(0)) for rx in HAND_TIMES for m in rx.finditer(text))
    out, end = [], -1
    for start, stop, quote in hits:
        if start < end:
            continue
        end = stop
        out.append((text.count("\n", 0, start) + 1, " ".join(quote.split())))
    return out
