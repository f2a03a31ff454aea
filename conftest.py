"""Shared pytest setup for tests/ and the walkthrough notebooks (nbval)."""

import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent
# Import the handbook package from THIS checkout (not from wherever an editable install points).
sys.path.insert(0, str(ROOT))

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")


@pytest.hookimpl(tryfirst=True)  # before xdist reads the group markers
def pytest_collection_modifyitems(config, items):
    # A notebook's cells share one kernel: keep them on one xdist worker, in order.
    for item in items:
        path = pathlib.Path(str(item.fspath))
        if path.suffix == ".ipynb":
            item.add_marker(pytest.mark.xdist_group(f"notebook:{path.name}"))
