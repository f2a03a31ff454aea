"""``DoctorCallback``: the same rules, checked while a Trainer runs; once per matched page, with its link: a
warning for a problem, an info line for an expected pattern.

    from rlhf_doctor.callback import DoctorCallback
    trainer = GRPOTrainer(..., callbacks=[DoctorCallback()])   # or trainer.add_callback(DoctorCallback())

transformers is imported only here (the command-line tool needs no torch).
"""

from __future__ import annotations

import logging

from transformers import TrainerCallback

from rlhf_doctor import rules as R

logger = logging.getLogger("rlhf_doctor")


class DoctorCallback(TrainerCallback):
    """Reads every log the Trainer writes; warns once per handbook page whose rule starts to match."""

    def __init__(self, lang: str = "en", rules: list[dict] | None = None, every: int = 1) -> None:
        self.lang = lang
        self.rules = R.load_rules() if rules is None else rules
        self.every = max(1, every)
        self.log: list[dict] = []
        self.warned: set[str] = set()

    def on_log(self, args, state, control, logs=None, **kwargs):
        if not logs or not state.is_world_process_zero:
            return
        self.log.append({"step": int(state.global_step), **logs})
        if len(self.log) % self.every:
            return
        for finding in R.diagnose(self.log, self.rules, self.lang):
            pid = finding.page["id"]
            if pid in self.warned:
                continue
            self.warned.add(pid)
            evidence = "; ".join(e.text for e in finding.evidence)
            say = logger.warning if finding.kind == "problem" else logger.info  # expected patterns: once, quietly
            say(
                "rlhf-doctor: %s (%s) -> %s", finding.page["title"][self.lang], evidence, finding.page["url"][self.lang]
            )
