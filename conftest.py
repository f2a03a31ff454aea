"""Shared pytest setup for tests/ and the walkthrough notebooks (nbval)."""

import os

pytest_plugins = ["handbook.lanes.pytest_pages"]  # pitfall pages under docs/ are test files (pytest docs/<page>.md)

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")


def pytest_terminal_summary(terminalreporter):
    """Print the figures tests record with ``record_property("figures", text)`` (also from xdist workers)."""
    lines = [
        value
        for reports in terminalreporter.stats.values()
        for rep in reports
        if getattr(rep, "when", None) == "call"
        for name, value in getattr(rep, "user_properties", [])
        if name == "figures"
    ]
    if lines:
        terminalreporter.section("figures")
        for text in lines:
            terminalreporter.write_line(text)
