"""The committed version matrix (compat/trl-matrix.json, written by `make matrix`) is current and clean.

- the plan (compat/matrix-columns.json) has every TRL minor release from 0.29 to the pin on the pinned stack, and
  the pinned TRL on the lowest transformers it accepts and on a newer one than the pin;
- every planned column ran, and every pitfall page has a cell in each, recorded for the code the page shows now
  (a snippet edited since its row was recorded makes the row stale: run `make matrix`);
- no column inside a page's `trl:`/`transformers:` ranges failed (judged from the page's ranges as they are now:
  the file records no range judgement, which goes stale when a range changes);
- on the pinned stack every page passed.
"""

from __future__ import annotations

import json
import re
from importlib.metadata import requires, version

import pytest
from packaging.version import Version

from handbook.content import contract, pages
from handbook.versions import matrix, matrix_plan

PITFALLS = pages.pitfall_pages()


@pytest.fixture(scope="module")
def data():
    assert matrix.RESULTS.exists(), f"{matrix.RESULTS.relative_to(pages.ROOT)} is missing: run `make matrix`"
    return json.loads(matrix.RESULTS.read_text(encoding="utf-8"))


def test_plan_has_every_minor_release_and_the_transformers_bounds():
    cols = matrix_plan.load()
    pinned = [Version(c.trl) for c in cols if c.kind == "pinned"]
    minors = [(v.major, v.minor) for v in pinned]
    assert minors[0] == (0, 29) and Version(matrix.pinned()) in pinned, minors
    # consecutive: 0.29, then 1.0, 1.1, ... with no minor release left out
    for a, b in zip(minors, minors[1:]):
        assert b == (a[0], a[1] + 1) or (b[0] == a[0] + 1 and b[1] == 0), f"a minor release is missing after {a}"
    # every pinned release on its release-day stack too, and before them every minor from RELEASE_FIRST_MINOR
    # (TRL 0.19-0.28 fail on the pinned transformers before any page runs: release-day stacks only)
    release = [Version(c.trl) for c in cols if c.kind == "release"]
    older = [v for v in release if v < pinned[0]]
    assert release == older + pinned, release
    first = tuple(map(int, matrix_plan.RELEASE_FIRST_MINOR.split(".")))
    assert [(v.major, v.minor) for v in older] == [(0, m) for m in range(first[1], 29)], older
    low = re.search(r"transformers\s*\(?>=\s*([0-9.]+)", " ".join(requires("trl") or [])).group(1)
    bounds = {c.install[1] for c in cols if c.kind == "transformers" and c.trl == matrix.pinned()}
    assert f"transformers=={low}" in bounds, bounds
    assert any(Version(b.split("==")[1]) > Version(version("transformers")) for b in bounds), bounds


def test_every_planned_column_ran(data):
    planned = [c.name for c in matrix_plan.load()]
    assert data["pinned"] == matrix.pinned(), "the matrix was recorded for another pin: run `make matrix`"
    missing = [n for n in planned if n not in data["versions"]]
    assert not missing, f"columns never run: {missing}: run `make matrix`"
    for name in planned:
        stack = data["versions"][name]["stack"]
        assert {"trl", "transformers", "accelerate", "peft", "datasets"} <= set(stack), (name, stack)


@pytest.mark.parametrize("page", PITFALLS, ids=lambda p: p.rel)
def test_page_row_is_current_and_holds_in_range(data, page):
    cells = data["pages"].get(page.rel)
    if not cells:  # a new page: the matrix workflow (or `python -m handbook matrix --page ...`) fills its row
        pytest.skip(f"{page.rel}: not yet run on other stacks (make matrix MATRIX_ARGS='--page {page.rel}')")
    missing = [v for v in data["versions"] if v not in cells]
    assert not missing, f"{page.rel}: no result for {missing}: run `make matrix`"
    current = matrix.page_hash(page.path)
    stale = [v for v, c in cells.items() if c["hash"] != current]
    assert not stale, f"{page.rel}: its code changed since the matrix ran on {stale}: run `make matrix`"
    failed = [
        f"{name}: {c.get('reason', '')[:200]}"
        for name, c in cells.items()
        if c["outcome"] == "failed" and contract.out_of_range(page.meta, data["versions"][name]["stack"]) is None
    ]
    ranges = " ".join(f"{d}{page.meta[d]}" for d in contract.VERSIONED if page.meta.get(d))
    assert not failed, f"{page.rel}: fails inside its range {ranges}:\n" + "\n".join(failed)
    pin = cells[matrix.pinned()]
    assert pin["outcome"] == "passed", f"{page.rel}: did not pass on the pinned trl {matrix.pinned()}: {pin}"


def test_the_matrix_stores_no_range_judgement(data):
    """Whether a column is inside a page's ranges is judged from the page's front matter when the site is built and
    the suite runs. A flag stored by the run goes stale when a range changes: 17 cells still said "in range" after
    the DPO memory pages left TRL 1.6-1.8 out, and the Compatibility page drew them as red failures."""
    stored = [
        f"{rel} on {name}" for rel, cells in data["pages"].items() for name, c in cells.items() if "in_range" in c
    ]
    assert not stored, f"{len(stored)} cells store in_range, e.g. {stored[:3]}: the matrix's writer drops it"


def test_ranges_are_judged_on_the_columns_stack():
    meta = {"trl": ">=1.12", "transformers": ">=5.23"}
    assert contract.out_of_range(meta, {"trl": "1.16.0", "transformers": "5.24.0"}) is None
    assert "transformers>=5.23" in contract.out_of_range(meta, {"trl": "1.16.0", "transformers": "4.56.2"})
    assert "trl>=1.12" in contract.out_of_range(meta, {"trl": "1.6.0", "transformers": "5.24.0"})
