"""Shared pytest setup for tests/ and the walkthrough notebooks (nbval)."""

import os

pytest_plugins = ["handbook.pytest_pages"]  # pitfall pages under docs/ are test files (pytest docs/<page>.md)

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
