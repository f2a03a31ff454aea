"""Which stacks the version matrix runs: ``compat/matrix-columns.json`` (committed), written by
``python -m handbook matrix-plan`` from the package index's release dates.

A column is one environment: a TRL release plus the packages installed over the pinned test stack. Three kinds:

- ``pinned``: the latest patch of every TRL minor release from ``FIRST_MINOR`` to the newest, each on the pinned
  stack (only TRL differs), so a failure there is TRL's doing; every seed runs;
- ``transformers``: the newest TRL on the lowest transformers it accepts and on the newest transformers; every
  seed;
- ``release``: every minor release from ``RELEASE_FIRST_MINOR`` (older than the pinned columns), each with the
  transformers, accelerate and peft that were current the day it was published (and datasets/huggingface_hub no
  newer than that day): the stack its early users ran; seed 0 only, to keep the matrix within two hours on 2
  cores.

The plan needs the network (PyPI's JSON API); the matrix itself only needs ``pip install``.
"""

from __future__ import annotations

import datetime as dt
import json
import pathlib
import re
import urllib.request
import zipfile
from dataclasses import asdict, dataclass, field

from handbook.content import pages

PLAN = pages.ROOT / "compat" / "matrix-columns.json"
FIRST_MINOR = "0.29"
"""The oldest TRL minor release on the pinned stack (TRL 0.29 is the last 0.x line; 1.0 followed it). Older ones
import transformers' private ``_is_package_available``, whose answer transformers 5.3 changed (see
docs/integrations/trl-import-guards-transformers-5.md): on the pinned stack they fail before any page runs."""
RELEASE_FIRST_MINOR = "0.19"
"""The oldest TRL minor release in a ``release`` column (its own day's stack): 0.19-0.28 were the releases most
2025 threads ran."""
ERA_PACKAGES = ("transformers", "accelerate", "peft")
"""Pinned to the release current on the TRL release's day in a ``release`` column."""
ERA_CEILINGS = ("datasets", "huggingface_hub")
"""Capped (``<=``) at the release current on that day: pip picks what the pinned packages accept."""
INDEX = "https://pypi.org/pypi/{}/json"


@dataclass(frozen=True)
class Column:
    name: str
    """The key in compat/trl-matrix.json: ``1.6.0`` (pinned stack), ``1.6.0@release``,
    ``1.16.0@transformers-4.56.2``."""
    kind: str
    trl: str
    install: list[str] = field(default_factory=list)
    """Requirement specifiers installed over the pinned stack (``trl==...`` first)."""
    seeds: str = "all"
    """``all`` or ``seed0``: which seeds of each page run."""
    date: str = ""
    """The TRL release's publication day (``release`` columns)."""

    @property
    def slug(self) -> str:
        return "trl-" + re.sub(r"[^A-Za-z0-9.]+", "-", self.name.removeprefix("trl-"))


def version_key(v: str):
    """A version for sorting (an unparsable one sorts first)."""
    from packaging.version import InvalidVersion, Version

    try:
        return Version(v)
    except InvalidVersion:
        return Version("0")


def load() -> list[Column]:
    if not PLAN.exists():
        raise SystemExit(f"{PLAN.relative_to(pages.ROOT)} is missing: run `python -m handbook matrix-plan`")
    return [Column(**c) for c in json.loads(PLAN.read_text(encoding="utf-8"))["columns"]]


def _releases(package: str) -> dict[str, str]:
    """version -> first upload day (ISO) of every non-yanked final release."""
    from packaging.version import InvalidVersion, Version

    with urllib.request.urlopen(INDEX.format(package), timeout=60) as resp:
        data = json.load(resp)
    out = {}
    for v, files in data["releases"].items():
        try:
            if not files or Version(v).is_prerelease or any(f.get("yanked") for f in files):
                continue
        except InvalidVersion:
            continue
        out[v] = min(f["upload_time"] for f in files)[:10]
    return out


def latest_patches(trl: dict[str, str], first: str = FIRST_MINOR) -> list[str]:
    """The latest patch of every minor release from ``first`` on, oldest first."""
    from packaging.version import Version

    best: dict[tuple[int, int], Version] = {}
    for v in map(Version, trl):
        if (v.major, v.minor) >= tuple(map(int, first.split("."))):
            best[(v.major, v.minor)] = max(best.get((v.major, v.minor), v), v)
    return [str(best[k]) for k in sorted(best)]


def current_on(releases: dict[str, str], day: str) -> str:
    """The highest release published on or before ``day``."""
    from packaging.version import Version

    return str(max((Version(v) for v, d in releases.items() if d <= day), default=None))


def lowest_transformers(trl_version: str) -> str:
    """The lowest transformers the TRL release's wheel metadata accepts (``transformers>=X``)."""
    import subprocess
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", f"trl=={trl_version}", "-d", tmp], check=True
        )
        wheel = next(pathlib.Path(tmp).glob("*.whl"))
        with zipfile.ZipFile(wheel) as zf:
            meta = zf.read(next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))).decode()
    m = re.search(r"^Requires-Dist: transformers\s*\(?>=\s*([0-9.]+)", meta, re.M)
    if not m:
        raise SystemExit(f"trl {trl_version}: no transformers>= requirement in its metadata")
    return m.group(1)


def plan() -> list[Column]:
    rel = {p: _releases(p) for p in ("trl", *ERA_PACKAGES, *ERA_CEILINGS)}
    minors = latest_patches(rel["trl"])
    cols = [Column(v, "pinned", v, [f"trl=={v}"]) for v in minors]
    newest, newest_tf = minors[-1], current_on(rel["transformers"], dt.date.today().isoformat())
    low = lowest_transformers(newest)
    # transformers 4.x needs huggingface_hub < 1, hence datasets 4.x: a coherent stack, not one swapped package
    cols.append(
        Column(
            f"{newest}@transformers-{low}",
            "transformers",
            newest,
            [f"trl=={newest}", f"transformers=={low}", "huggingface_hub<1", "datasets>=4.7,<5"],
        )
    )
    cols.append(
        Column(
            f"{newest}@transformers-{newest_tf}",
            "transformers",
            newest,
            [f"trl=={newest}", f"transformers=={newest_tf}"],
        )
    )
    for v in latest_patches(rel["trl"], RELEASE_FIRST_MINOR):
        day = rel["trl"][v]
        install = [f"trl=={v}"] + [f"{p}=={current_on(rel[p], day)}" for p in ERA_PACKAGES]
        install += [f"{p}<={current_on(rel[p], day)}" for p in ERA_CEILINGS]
        cols.append(Column(f"{v}@release", "release", v, install, "seed0", day))
    return cols


def write() -> int:
    cols = plan()
    PLAN.parent.mkdir(parents=True, exist_ok=True)
    body = {"generated": dt.date.today().isoformat(), "columns": [asdict(c) for c in cols]}
    PLAN.write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {PLAN.relative_to(pages.ROOT)}: {len(cols)} columns")
    for c in cols:
        print(f"  {c.name:32} {' '.join(c.install)}")
    return 0
