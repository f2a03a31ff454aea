"""The page runner hands each page the model and learning-rate scale of its lane (``handbook.harness``)."""

from __future__ import annotations

import pytest

from handbook import contract, harness

PROBE = """import os

def check(seed: int = 0) -> str:
    return os.environ["HANDBOOK_MODEL"] + " | " + os.environ["HANDBOOK_LR_SCALE"]
"""


@pytest.mark.parametrize(
    ("model", "scale"),
    [(None, str(harness.TINY_LR_SCALE)), ("/some/real/model", "1")],
    ids=["tiny-lane", "real-lane"],
)
def test_lr_scale_is_the_toy_factor_only_on_the_tiny_model(tmp_path, monkeypatch, model, scale):
    monkeypatch.delenv(contract.MODEL_ENV, raising=False)
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE, encoding="utf-8")
    runner = harness.PageRunner(model)
    try:
        res = runner.run_file(probe, "check", 0, timeout=120)
    finally:
        runner.close()
    assert res.ok, res.message
    seen_model, seen_scale = res.message.split(" | ")
    assert seen_scale == scale
    assert (seen_model == model) if model else ("tiny-qwen2" in seen_model)
