"""TODO: one line on what this snippet shows.

Page: docs/{chapter}/{slug}.md (中文: docs/{chapter}/{slug}.zh.md)
Run:  python snippets/{chapter}/{slug}.py
"""

from handbook import runner  # first: sets the fast, offline, 1-thread environment

SEEDS = (0, 1, 2)


# --8<-- [start:symptom]
def symptom(seed: int = 0) -> dict:
    """Reproduce the symptom; return the data the test asserts on."""
    runner.setup(seed)
    raise NotImplementedError
# --8<-- [end:symptom]


# --8<-- [start:fix]
def fix(seed: int = 0) -> dict:
    """The same run with the fix applied."""
    runner.setup(seed)
    raise NotImplementedError
# --8<-- [end:fix]


# --8<-- [start:verify]
def verify(seed: int = 0) -> str:
    bad, good = symptom(seed), fix(seed)
    assert bad != good, "TODO: assert the symptom shows in `bad` and is gone in `good`"
    return "TODO: a one-line human verdict"
# --8<-- [end:verify]


if __name__ == "__main__":
    runner.verdict(True, verify())
