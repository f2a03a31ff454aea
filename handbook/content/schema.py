"""The page schema: the typed front matter of a pitfall page (``FrontMatter``) and of a guide (``GuideMatter``),
and the patterns its fields follow. Used by the validator (``handbook.content.pages``) and the MkDocs hooks."""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from handbook.ui import CHAPTERS

__all__ = ["ValidationError"]

VERDICTS = ("holds", "corrected", "wrong", "obsolete", "new")
"""holds/corrected/wrong/obsolete judge the common advice a page answers against current TRL; ``new`` is a
trap users report that no common advice covers."""

SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
ADVICE = re.compile(r"000 §11\.(?:\d+ row \d+|6|9|11)|002 (?:principle|trick|phenomenon) \d+")
"""Canonical ids of the common-advice items a page answers: a row of source document 000's tables
(``000 §11.3 row 6``; sections 11.6, 11.9 and 11.11 have no table: ``000 §11.6``), or an item of document 002
numbered in document order from 1 (``002 principle 1``, ``002 trick 13``, ``002 phenomenon 12``)."""
TAG = re.compile(r"[\w .+/-]{1,40}")
SOURCE = re.compile(r"^[\w.-]+/[\w.-]+#\d+$")
INCLUDE = re.compile(r'^\s*--8<--\s+"([^"]+)"\s*$')


METRIC = re.compile(r"[\w./-]{1,80}")
RUN_NUMBER = re.compile(r"\{\{\s*(symptom|fix)\.([\w./-]+)\.(first|last|min|max|mean)(?::([1-6]))?\s*\}\}")
"""A number a page quotes from its recorded run: ``{{ fix.grad_norm.max }}`` (seed 0, 3 significant digits;
``{{ fix.loss.last:4 }}`` for 4; see handbook/lanes/runs.py)."""


NAV_TITLE_WIDTH = 25
"""The widest ``nav_title`` in columns (``label_width``): what one line of Material's sidebar holds at 1366 px.
Measured in Chromium with DejaVu Sans (what the theme's system-font stack falls back to on Linux, wider than the
fonts of macOS and Windows): a sidebar line is 210 px of 14 px text; the labels take 6.5 to 8.4 px per column
(capitals widest, the code font included) and a Chinese character 14 px, so 25 columns fit (the widest label is
196 px; at 28 columns, 5 labels wrapped). tests/test_site.py checks in the browser that every chapter's links are
one line high in both languages."""
FIX_LINE_WIDTH = 160
"""The widest ``fix_line`` in columns: one sentence, the change a reader makes."""


def label_width(text: str) -> int:
    """Columns a label takes: a Chinese (wide) character counts 2, any other 1; a backtick (code markup) 0."""
    return sum(0 if c == "`" else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def inline_code_problem(text: str) -> str | None:
    """Why ``text`` is not plain text with `code` spans (balanced single backticks, nothing empty), or None."""
    if text.count("`") % 2:
        return "has an unclosed backtick (write metric and argument names as `name`)"
    if "``" in text:
        return "has an empty `` code span"
    return None


def check_label(v: str, max_width: int) -> str:
    """A one-line label of front matter: text with `code` spans, at most ``max_width`` columns wide."""
    if not v.strip() or "TODO" in v or "\n" in v:
        raise ValueError(f"is empty, TODO or more than one line: {v!r}")
    if problem := inline_code_problem(v):
        raise ValueError(problem)
    if (width := label_width(v)) > max_width:
        raise ValueError(
            f"is {width} columns wide (a Chinese character counts 2, a backtick 0); at most {max_width} fit: "
            f"shorten {v!r}"
        )
    return v


class ChartReference(BaseModel):
    """``chart.reference``: a dashed line at the value the page is about (e.g. ln 2 = 0.6931 for a DPO loss)."""

    model_config = ConfigDict(extra="forbid")

    metric: str
    value: float
    label: str = Field(min_length=1, max_length=30)


class ChartSpec(BaseModel):
    """``chart:`` in front matter: which logged metrics of which recorded trainer runs the page plots."""

    model_config = ConfigDict(extra="forbid")

    metrics: list[str] = Field(min_length=1, max_length=3)
    """Logged keys, as in ``trainer.state.log_history`` (``loss``, ``grad_norm``, ``rewards/margins``)."""
    runs: dict[Literal["symptom", "fix"], int] = Field(min_length=1)
    """Which trainer runs of ``check(seed)`` they are: 1 = the first trainer the check builds."""
    caption: str | None = None
    """Optional sentence after the generated caption, in the page's language."""
    reference: ChartReference | None = None
    """Optional dashed line in one panel (its ``metric`` must be one of ``metrics``)."""

    @field_validator("metrics")
    @classmethod
    def _metrics(cls, v: list[str]) -> list[str]:
        for m in v:
            if not METRIC.fullmatch(m):
                raise ValueError(f"{m!r} is not a logged metric key")
        return v

    @field_validator("runs")
    @classmethod
    def _runs(cls, v: dict) -> dict:
        if any(type(n) is not int or n < 1 for n in v.values()):
            raise ValueError("run numbers start at 1 (the first trainer the check builds)")
        if len(set(v.values())) != len(v):
            raise ValueError("symptom and fix must be different runs")
        return v

    @model_validator(mode="after")
    def _reference(self):
        if self.reference is not None and self.reference.metric not in self.metrics:
            raise ValueError(f"reference.metric {self.reference.metric!r} is not one of metrics {self.metrics}")
        return self


def advice_ids(v: list[str]) -> list[str]:
    """Validate a page's ``advice`` list: canonical ids, each once."""
    for item in v:
        if not ADVICE.fullmatch(str(item)):
            raise ValueError(
                f"{item!r} is not a canonical id: '000 §11.N row K', '000 §11.6|9|11', "
                "'002 principle N', '002 trick N' or '002 phenomenon N'"
            )
    if len(set(v)) != len(v):
        raise ValueError("lists an id twice")
    return v


class FrontMatter(BaseModel):
    """Front matter of a pitfall page (``kind: pitfall``, the default)."""

    model_config = ConfigDict(extra="forbid")

    id: str
    kind: Literal["pitfall"] = "pitfall"
    chapter: str
    title: str = Field(min_length=6)
    symptoms: list[str] = Field(min_length=3)
    tags: list[str] = Field(min_length=1)
    snippet: str
    advice: list[str]
    sources: list[str] = []
    trl: str
    """The TRL versions on which the snippet's assertions were observed to hold (PEP 440). The matrix run
    (``make matrix``) records where they really did; the test suite skips the page outside this range."""
    transformers: str | None = None
    """Optional: the transformers versions the claim depends on (PEP 440); outside it the page is skipped."""
    advice_trl: str | None = None
    """Optional: the TRL versions the common advice was written for, when that era is over (PEP 440)."""
    verdict: Literal[VERDICTS]  # type: ignore[valid-type]
    verdict_reason: str = Field(min_length=10)
    """The cause in one line, in the page's language: shown as "Why" under the symptoms."""
    fix_line: str
    """The fix in one line, imperative, naming the argument and value of the page's Fix code: shown first under
    the symptoms ("Fix: ..."), and what a search result starts with."""
    nav_title: str
    """The page's short label in the sidebar (its title stays the full sentence): the symptom in the reader's
    words, `code` for metric and argument names, without the chapter's trainer name where the chapter says it."""
    order: int = 100
    tiny_only: str | None = None
    """Set when the snippet's assertions hold only on the tiny test model: says why, in the page's language."""
    real_seeds: list[int] | None = Field(default=None, min_length=1, max_length=3)
    """Optional: the seeds the real-model lane (``make real``) runs; default: the snippet's first seed. More than
    one where the claim is statistical."""
    claimed_failures: dict[int, Literal["divergence", "no-gradient"]] | None = None
    """Runs whose failure IS the page's claim: ``{2: divergence}`` (run 1 = the first trainer the check builds).
    Every other run must be sane training (handbook/lanes/evidence.py); the twins declare the same."""
    chart: ChartSpec | None = None
    """The run chart the page shows (from its run record, ``compat/runs/``); see handbook/lanes/runs.py."""
    doctor: dict | None = None
    """The log doctor's rule for this page: conditions over logged metrics (doctor/rlhf_doctor/rules.py)."""

    @field_validator("claimed_failures")
    @classmethod
    def _claimed(cls, v: dict | None) -> dict | None:
        if v is not None and any(n < 1 for n in v):
            raise ValueError(f"run numbers start at 1 (the first trainer the check builds), got {sorted(v)}")
        return v

    @field_validator("doctor")
    @classmethod
    def _doctor(cls, v: dict | None) -> dict | None:
        if v is not None:
            from rlhf_doctor import rules as R

            problems = R.validate_rule(v)
            if problems:
                raise ValueError("; ".join(problems))
        return v

    @field_validator("nav_title")
    @classmethod
    def _nav_title(cls, v: str) -> str:
        return check_label(v, NAV_TITLE_WIDTH)

    @field_validator("fix_line")
    @classmethod
    def _fix_line(cls, v: str) -> str:
        return check_label(v, FIX_LINE_WIDTH)

    @field_validator("id")
    @classmethod
    def _slug(cls, v: str) -> str:
        if not SLUG.fullmatch(v):
            raise ValueError("must be kebab-case (a-z, 0-9, '-')")
        return v

    @field_validator("chapter")
    @classmethod
    def _chapter(cls, v: str) -> str:
        if v not in CHAPTERS:
            raise ValueError(f"unknown chapter {v!r}; one of {list(CHAPTERS)}")
        return v

    @field_validator("tags")
    @classmethod
    def _tags(cls, v: list[str]) -> list[str]:
        for tag in v:
            if not TAG.fullmatch(str(tag)):
                raise ValueError(f"tag {tag!r}: letters, digits, spaces and . _ / + - only")
        return v

    @field_validator("symptoms", "tags")
    @classmethod
    def _no_todo(cls, v: list[str]) -> list[str]:
        for item in v:
            if not str(item).strip() or "TODO" in str(item):
                raise ValueError(f"has an empty or TODO entry: {item!r}")
        return v

    @field_validator("advice")
    @classmethod
    def _advice(cls, v: list[str]) -> list[str]:
        return advice_ids(v)

    @field_validator("sources")
    @classmethod
    def _sources(cls, v: list[str]) -> list[str]:
        for src in v:
            if not SOURCE.fullmatch(str(src)):
                raise ValueError(f"{src!r} must look like 'owner/repo#123'")
        return v

    @field_validator("trl", "transformers", "advice_trl")
    @classmethod
    def _specifier(cls, v: str | None) -> str | None:
        if v is None:
            return v
        try:
            SpecifierSet(v)
        except InvalidSpecifier as e:
            raise ValueError(f"not a PEP 440 version specifier: {e}") from None
        if not v.strip():
            raise ValueError("is empty: give a range such as '>=1.0'")
        return v

    @model_validator(mode="after")
    def _consistency(self):
        if self.verdict == "new" and self.advice:
            raise ValueError("verdict 'new' is for traps no common advice covers; judge the advice instead")
        if self.verdict != "new" and not self.advice:
            raise ValueError(f"verdict {self.verdict!r} judges common advice, so 'advice' must name it")
        if self.verdict == "new" and not self.sources:
            raise ValueError("a trap no common advice covers must cite at least one real thread in 'sources'")
        if "TODO" in self.title or "TODO" in self.verdict_reason:
            raise ValueError("title/verdict_reason still contain TODO")
        return self


class GuideMatter(BaseModel):
    """Front matter of a guide page (home, chapter index, how-to, walkthrough): no snippet required."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["guide"]
    title: str = Field(min_length=2)
    order: int = 100
    id: str | None = None
    nav_title: str | None = None
    """Optional: a short sidebar label, as on a pitfall page."""
    hide: list[str] = []
    search: dict[Literal["exclude"], bool] = {}
    """Material's own switch: ``search: {exclude: true}`` leaves the page out of the search index."""
    advice: list[str] = []
    """Common-advice items a guide page discusses (each statement linking the pages that test it)."""

    @field_validator("advice")
    @classmethod
    def _advice(cls, v: list[str]) -> list[str]:
        return advice_ids(v)

    @field_validator("nav_title")
    @classmethod
    def _nav_title(cls, v: str | None) -> str | None:
        return None if v is None else check_label(v, NAV_TITLE_WIDTH)
