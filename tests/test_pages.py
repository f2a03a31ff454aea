"""The page contract: every page validates, every twin matches, every snippet has a page."""

import pytest

from handbook.content import pages
from handbook.site import site_checks

PAGES = sorted(pages.DOCS.rglob("*.md"))


@pytest.mark.parametrize("path", PAGES, ids=lambda p: str(p.relative_to(pages.ROOT)))
def test_page_contract(path):
    page = pages.validate(pages.load(path))
    assert not page.errors, "\n".join(page.errors)


def test_all_pages_twins_ids_and_snippets():
    errors = site_checks.check_all()
    assert not errors, "\n".join(errors)
