"""The rules and how they read a log: standard library only.

A log is a list of rows (dicts of logged values, each with a ``step``), as in ``trainer_state.json``'s
``log_history``. A rule belongs to a handbook page and holds conditions over logged metrics; it matches when
all of them (``match: all``) or one of them (``match: any``) hold. Each condition names a ``metric`` (a key as
logged; ``*`` matches any characters, e.g. ``rewards/*/std``) and a pattern ``is``. A rule may also list
``unless`` conditions: it does not match when any of them holds (e.g. an expected pattern that does not apply
when ``grad_norm`` is 0).

=========  =====================================================================================================
above      ``for`` consecutive logged values above ``value``
below      ``for`` consecutive logged values below ``value``
equals     ``for`` consecutive logged values within ``tol`` (relative, default 1e-3) of ``value``
drops_to   as ``equals``, after a logged value that is not ``value`` (a loss that falls to 0, not one logged 0 from
           the first row)
constant   ``for`` consecutive logged values that do not change (within ``tol``, absolute, default 1e-9)
rising     the mean of the last third of the values exceeds the first third's by ``value`` (relative, default
           0.5 = +50 %), over at least ``for`` values
falling    the mean of the last third is below the first third's by ``value`` (relative, default 0.5)
spike      a value ``value`` times (default 10) the median of the values before it (at least 3 before it)
nan        a NaN or infinite value
missing    the key is never logged with a number (while the log has rows): absent, or only NaN
present    the key is logged at least once
=========  =====================================================================================================

For ``above``, ``below``, ``equals`` and ``drops_to``, a metric logged fewer than ``for`` times (a few rows pasted
from a console) matches when every one of its logged values does.
"""

from __future__ import annotations

import bisect
import fnmatch
import json
import math
import pathlib
from collections.abc import Callable
from dataclasses import dataclass, field

RULES_FILE = pathlib.Path(__file__).with_name("rules.json")
KINDS = ("problem", "expected")
"""A rule's ``kind``: a *problem* to fix, or an *expected* pattern (TRL working as designed; the page says why)."""


@dataclass
class Evidence:
    metric: str
    text: str  # the condition, in words
    points: list[tuple[int, float]] = field(default_factory=list)  # (step, value) that matched


@dataclass
class Finding:
    page: dict  # the rule's page entry of rules.json
    evidence: list[Evidence]

    @property
    def kind(self) -> str:
        """``problem`` (something to fix) or ``expected`` (how TRL behaves: the page explains why it is fine)."""
        return self.page["rule"].get("kind", "problem")

    @property
    def first_step(self) -> int:
        steps = [s for e in self.evidence for s, _ in e.points]
        return min(steps) if steps else 0


def load_rules(path: pathlib.Path | None = None) -> list[dict]:
    return json.loads((path or RULES_FILE).read_text(encoding="utf-8"))["pages"]


def _value(v) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        try:
            return float(v)  # "nan", "inf" and numbers written as text (CSV)
        except ValueError:
            return None
    return None


def series(log: list[dict], key: str) -> list[tuple[int, float]]:
    out = []
    for i, row in enumerate(log):
        if key in row and (v := _value(row[key])) is not None:
            out.append((int(row.get("step", i + 1)), v))
    return out


def keys(log: list[dict]) -> set[str]:
    return {k for row in log for k in row}


def _runs(points, ok, n):
    """The first stretch of at least n consecutive points satisfying ok (the whole stretch)."""
    start = None
    for i, (_, v) in enumerate(points + [(0, math.nan)]):
        if i < len(points) and ok(v):
            start = i if start is None else start
        else:
            if start is not None and i - start >= n:
                return points[start:i]
            start = None
    return None


def _short(pts, n):
    """``for`` on an excerpt: at most the number of values logged (a pasted log of 1 or 2 rows)."""
    return max(1, min(n, len(pts)))


def _above(pts, finite, cond, n):
    return _runs(pts, lambda v: math.isfinite(v) and v > cond["value"], _short(pts, n))


def _below(pts, finite, cond, n):
    return _runs(pts, lambda v: math.isfinite(v) and v < cond["value"], _short(pts, n))


def _near(cond):
    """Whether a logged value is ``value`` within ``tol`` (relative): ``equals`` and ``drops_to``."""
    value = cond["value"]
    limit = cond.get("tol", 1e-3) * max(abs(value), 1e-12)
    return lambda v: math.isfinite(v) and abs(v - value) <= limit


def _equals(pts, finite, cond, n):
    return _runs(pts, _near(cond), _short(pts, n))


def _drops_to(pts, finite, cond, n):
    ok = _near(cond)
    first = next((i for i, (_, v) in enumerate(pts) if math.isfinite(v) and not ok(v)), None)
    if first is None:
        return None
    after = pts[first + 1 :]
    return _runs(after, ok, _short(after, n)) if after else None


def _constant(pts, finite, cond, n):
    tol = cond.get("tol", 1e-9)
    n = _short(finite, n)  # a pasted row or two, like above/below/equals: every value logged is the same
    i = 0
    while i < len(finite):
        j = i
        while j + 1 < len(finite) and abs(finite[j + 1][1] - finite[i][1]) <= tol:
            j += 1
        if j - i + 1 >= n:
            return finite[i : j + 1]
        i = j + 1
    return None


def _trend(sign: int):
    """Rising (sign 1) or falling (-1): the last third's mean beyond the first third's by ``value`` (relative)."""

    def match(pts, finite, cond, n):
        if len(finite) < max(n, 3):
            return None
        third = max(len(finite) // 3, 1)
        first = sum(v for _, v in finite[:third]) / third
        last = sum(v for _, v in finite[-third:]) / third
        rel = cond.get("value") if cond.get("value") is not None else 0.5
        return [finite[0], finite[-1]] if sign * (last - first) > rel * max(abs(first), 1e-12) else None

    return match


def _spike(pts, finite, cond, n):
    factor = cond.get("value") if cond.get("value") is not None else 10.0
    before = sorted(v for _, v in finite[:3])
    for i in range(3, len(finite)):
        if (median := before[len(before) // 2]) > 0 and finite[i][1] > factor * median:
            return [finite[i]]
        bisect.insort(before, finite[i][1])
    return None


def _nan(pts, finite, cond, n):
    return [p for p in pts if not math.isfinite(p[1])] or None


@dataclass(frozen=True)
class Pattern:
    """One ``is:`` pattern: how it matches a metric's (step, value) points and how it reads in each language."""

    match: Callable | None  # (points, finite points, condition, for) -> matched points or None; None: key-level
    en: str
    zh: str
    needs_value: bool = False
    default_for: int = 1
    capped: bool = False  # ``for`` is capped at the values logged (_short): the evidence says how many matched


PATTERNS: dict[str, Pattern] = {
    "above": Pattern(
        _above,
        "{metric} above {value} for {n} logged step(s)",
        "{metric} 连续 {n} 个记录步高于 {value}",
        True,
        capped=True,
    ),
    "below": Pattern(
        _below,
        "{metric} below {value} for {n} logged step(s)",
        "{metric} 连续 {n} 个记录步低于 {value}",
        True,
        capped=True,
    ),
    "equals": Pattern(
        _equals,
        "{metric} equal to {value} for {n} logged step(s)",
        "{metric} 连续 {n} 个记录步等于 {value}",
        True,
        capped=True,
    ),
    "drops_to": Pattern(
        _drops_to,
        "{metric} falls to {value} and stays there for {n} logged step(s)",
        "{metric} 降到 {value} 后连续 {n} 个记录步保持不变",
        True,
        capped=True,
    ),
    "constant": Pattern(
        _constant,
        "{metric} unchanged for {n} logged step(s)",
        "{metric} 连续 {n} 个记录步保持不变",
        default_for=3,
        capped=True,
    ),
    "rising": Pattern(
        _trend(1),
        "{metric} rising (last third of the run {pct} above the first third)",
        "{metric} 持续上升（后三分之一比前三分之一高 {pct}）",
        default_for=3,
    ),
    "falling": Pattern(
        _trend(-1),
        "{metric} falling (last third of the run {pct} below the first third)",
        "{metric} 持续下降（后三分之一比前三分之一低 {pct}）",
        default_for=3,
    ),
    "spike": Pattern(
        _spike,
        "{metric} more than {value}x the median of the steps before",
        "{metric} 超过此前各步中位数的 {value} 倍",
    ),
    "nan": Pattern(_nan, "{metric} is NaN or infinite", "{metric} 出现 NaN 或无穷大"),
    "missing": Pattern(None, "{metric} is never logged (or only as NaN)", "日志里从未记录 {metric}（或只有 NaN）"),
    "present": Pattern(None, "{metric} is logged", "日志记录了 {metric}"),
}
"""Every pattern a rule may use: adding one is one entry here (its matcher and its words)."""


def _condition(cond: dict, log: list[dict], all_keys: set[str]) -> list[tuple[str, list]] | None:
    """The (metric, points) evidence if the condition holds for some matching key, else None."""
    pattern = PATTERNS[cond["is"]]
    matching = sorted(k for k in all_keys if fnmatch.fnmatchcase(k, cond["metric"]))
    if cond["is"] == "missing":  # a notebook table shows a metric never logged as a column of nan
        logged = [k for k in matching if any(math.isfinite(v) for _, v in series(log, k))]
        return [(cond["metric"], [])] if not logged and log else None
    if cond["is"] == "present":
        return [(matching[0], series(log, matching[0])[:1])] if matching else None
    n = int(cond.get("for", pattern.default_for))
    for key in matching:
        pts = series(log, key)
        hit = pattern.match(pts, [p for p in pts if math.isfinite(p[1])], cond, n)
        if hit:
            return [(key, hit)]
    return None


def describe(cond: dict, lang: str, metric: str | None = None, points: list | None = None) -> str:
    """The evidence line of a condition; ``points``, the values it matched, give the count on a short excerpt."""
    pattern = cond["is"]
    value = cond.get("value")
    pct = f"{(value if value is not None else 0.5):.0%}" if pattern in ("rising", "falling") else ""
    if pattern == "spike" and value is None:
        value = 10
    words = getattr(PATTERNS[pattern], lang)
    n = cond.get("for", PATTERNS[pattern].default_for)
    if PATTERNS[pattern].capped and points is not None:
        n = len(points)  # what the log shows (0 at steps 1 and 2: "for 2 logged step(s)"), not the rule's `for`
    return words.format(metric=metric or cond["metric"], value=value, n=n, pct=pct)


def diagnose(log: list[dict], rules: list[dict] | None = None, lang: str = "en") -> list[Finding]:
    """The pages whose rule matches ``log``: problems before expected patterns, then most specific first (more
    conditions, then earliest evidence)."""
    rules = load_rules() if rules is None else rules
    all_keys = keys(log)
    findings = []
    for page in rules:
        rule = page["rule"]
        results = [(c, _condition(c, log, all_keys)) for c in rule["when"]]
        held = [(c, r) for c, r in results if r]
        if not held or (rule.get("match", "all") == "all" and len(held) != len(results)):
            continue
        if any(_condition(c, log, all_keys) for c in rule.get("unless", [])):
            continue
        evidence = [
            Evidence(metric, describe(c, lang, metric, points), points) for c, r in held for metric, points in r
        ]
        findings.append(Finding(page, evidence))
    findings.sort(key=lambda f: (f.kind == "expected", -len(f.evidence), f.first_step, f.page["id"]))
    return findings


def validate_rule(rule: dict) -> list[str]:
    """Problems with a rule (a page's ``doctor:`` front matter), as 'field: message' strings."""
    errors = []
    if not isinstance(rule, dict):
        return ["doctor: must be a mapping with 'when' (and optional 'match', 'kind', 'unless')"]
    unknown = set(rule) - {"when", "match", "kind", "unless"}
    if unknown:
        errors.append(f"doctor: unknown key(s) {sorted(unknown)}; allowed: when, match, kind, unless")
    if rule.get("kind", "problem") not in KINDS:
        errors.append(f"doctor.kind: {rule.get('kind')!r} must be one of {list(KINDS)}")
    if rule.get("match", "all") not in ("all", "any"):
        errors.append(f"doctor.match: {rule.get('match')!r} must be 'all' or 'any'")
    when = rule.get("when")
    if not isinstance(when, list) or not when:
        return errors + ["doctor.when: a non-empty list of conditions"]
    for i, cond in enumerate(when):
        errors += _validate_condition(cond, f"doctor.when[{i}]")
    unless = rule.get("unless", [])
    if not isinstance(unless, list):
        return errors + ["doctor.unless: a list of conditions (the rule does not match when any holds)"]
    for i, cond in enumerate(unless):
        errors += _validate_condition(cond, f"doctor.unless[{i}]")
    return errors


def _validate_condition(cond, where: str) -> list[str]:
    if not isinstance(cond, dict):
        return [f"{where}: must be a mapping like {{metric: loss, is: above, value: 1.0}}"]
    errors = []
    extra = set(cond) - {"metric", "is", "value", "for", "tol"}
    if extra:
        errors.append(f"{where}: unknown key(s) {sorted(extra)}; allowed: metric, is, value, for, tol")
    if not isinstance(cond.get("metric"), str) or not cond.get("metric", "").strip():
        errors.append(f"{where}.metric: the logged key (e.g. 'kl', 'rewards/margins', 'rewards/*/std')")
    if cond.get("is") not in PATTERNS:
        errors.append(f"{where}.is: {cond.get('is')!r}; one of {list(PATTERNS)}")
    elif PATTERNS[cond["is"]].needs_value and _value(cond.get("value")) is None:
        errors.append(f"{where}.value: a number is required for is: {cond['is']}")
    for key in ("value", "tol"):
        if key in cond and (isinstance(cond[key], bool) or not isinstance(cond[key], (int, float))):
            errors.append(f"{where}.{key}: {cond[key]!r} is not a number")
    if "for" in cond and (type(cond["for"]) is not int or cond["for"] < 1):
        errors.append(f"{where}.for: {cond['for']!r} must be a whole number of logged steps >= 1")
    return errors
