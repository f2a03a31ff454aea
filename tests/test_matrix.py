"""The committed TRL version matrix (compat/trl-matrix.json, written by `make matrix`) is current and clean.

- every pitfall page has a row for every version in the matrix, recorded for the code the page shows now
  (a snippet edited since its row was recorded makes the row stale: run `make matrix`);
- no version inside a page's `trl:` range failed;
- on the pinned TRL every page passed.
"""

from __future__ import annotations

import json

import pytest
from packaging.specifiers import SpecifierSet

from handbook import matrix, pages

PITFALLS = pages.pitfall_pages()


@pytest.fixture(scope="module")
def data():
    assert matrix.RESULTS.exists(), f"{matrix.RESULTS.relative_to(pages.ROOT)} is missing: run `make matrix`"
    return json.loads(matrix.RESULTS.read_text(encoding="utf-8"))


def test_matrix_covers_the_pin_and_older_releases(data):
    versions = list(data["versions"])
    assert data["pinned"] == matrix.pinned(), "the matrix was recorded for another pin: run `make matrix`"
    assert matrix.pinned() in versions and all(v in versions for v in matrix.BASELINE), versions


@pytest.mark.parametrize("page", PITFALLS, ids=lambda p: p.rel)
def test_page_row_is_current_and_holds_in_range(data, page):
    cells = data["pages"].get(page.rel)
    if not cells:  # a new page: the matrix workflow (or `python -m handbook matrix --page ...`) fills its row
        pytest.skip(f"{page.rel}: not yet run on other TRL releases (make matrix MATRIX_ARGS='--page {page.rel}')")
    missing = [v for v in data["versions"] if v not in cells]
    assert not missing, f"{page.rel}: no result for trl {missing}: run `make matrix`"
    current = matrix.page_hash(page.path)
    stale = [v for v, c in cells.items() if c["hash"] != current]
    assert not stale, f"{page.rel}: its code changed since the matrix ran on trl {stale}: run `make matrix`"
    spec = SpecifierSet(page.meta["trl"])
    failed = [
        f"trl {v}: {c.get('reason', '')[:200]}"
        for v, c in cells.items()
        if c["outcome"] == "failed" and spec.contains(v)
    ]
    assert not failed, f"{page.rel}: fails inside its range trl{page.meta['trl']}:\n" + "\n".join(failed)
    pin = cells[matrix.pinned()]
    assert pin["outcome"] == "passed", f"{page.rel}: did not pass on the pinned trl {matrix.pinned()}: {pin}"
