"""Shared pytest setup for tests/ and the walkthrough notebooks (nbval)."""

import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent
# Import the handbook package from THIS checkout (not from wherever an editable install points).
sys.path.insert(0, str(ROOT))

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
