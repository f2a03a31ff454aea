"""Run a page's code the way a reader would: pasted into a fresh file, outside this repository.

``PageRunner`` writes the code a page shows (``contract.page_code``: its Python blocks, includes resolved as
the site resolves them) to a temporary file outside the repository and runs it in a long-lived worker
process (``page_worker.py``) in which this repository cannot be imported. ``HANDBOOK_MODEL`` is pointed at
the tiny test model for the seed (``tiny.model_path``) unless it is already set (GPU CI sets a real model), and
``HANDBOOK_VLM`` at the tiny vision-language model (``tiny_vlm.vlm_path``) on that tiny lane only: a lane with a
real text model leaves it as the environment has it (unset: the page's own default, a hub id).
"""

from __future__ import annotations

import json
import os
import pathlib
import select
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

from handbook import tiny, tiny_vlm
from handbook.content import contract, pages
from handbook.lanes import evidence

WORKER = pathlib.Path(__file__).with_name("page_worker.py")
TIMEOUT = float(os.environ.get("HANDBOOK_SNIPPET_TIMEOUT", "240"))
"""Seconds one ``check(seed)`` may take before the page is reported as hanging (the worker is restarted)."""

TINY_LR_SCALE = 300
"""What a page's ``LR_SCALE`` is on the tiny test model (``contract.LR_SCALE_LINE``): measured on GRPO and DPO
runs, the toy needs 100-300x SmolLM2-135M-Instruct's learning rate to move as far in the same steps."""

ENV = {
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "TOKENIZERS_PARALLELISM": "false",
    "TRANSFORMERS_VERBOSITY": "error",
    "HF_DATASETS_DISABLE_PROGRESS_BARS": "1",
    "WANDB_DISABLED": "true",
    "PYTHONWARNINGS": "ignore::FutureWarning,ignore::DeprecationWarning,ignore::UserWarning",
}


@dataclass
class Result:
    ok: bool
    kind: str  # passed | claim | error | paste | contract | timeout | crash | collapsed
    message: str
    traceback: str = ""
    seconds: float = 0.0
    log: str = ""
    runs: list = field(default_factory=list)
    """What each trainer the check built logged, in build order (``page_worker.RUNS``)."""


class PageRunner:
    """One worker process; ``run(page, func, seed)`` runs ``func(seed)`` of the page's pasted code."""

    def __init__(self, model: str | None = None) -> None:
        self.model = model
        """What every page's ``MODEL`` is pointed at: this, else ``$HANDBOOK_MODEL``, else the seed's tiny model."""
        self.tmp = pathlib.Path(tempfile.mkdtemp(prefix="handbook-pages-"))
        self.proc: subprocess.Popen | None = None
        self.log_path = self.tmp / "worker.log"

    # -- process -----------------------------------------------------------------------------------
    def _start(self) -> None:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSTARTUP")}
        env.update({k: os.environ.get(k, v) for k, v in ENV.items()})
        env["HANDBOOK_BLOCKED_IMPORTS"] = json.dumps(contract.FORBIDDEN_IMPORTS)
        work = self.tmp / "cwd"  # emptied after every run (page_worker.py)
        work.mkdir(exist_ok=True)
        (self.tmp / "tmp").mkdir(exist_ok=True)
        # tempfile's directory: removed with the runner, not per run (datasets keeps a per-process cache there)
        env["TMPDIR"] = str(self.tmp / "tmp")
        self.log = open(self.log_path, "ab")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-I", str(WORKER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            cwd=work,
            env=env,
            text=True,
            bufsize=1,
        )
        first = self._read(timeout=300)
        if not first or not first.get("ready"):
            raise RuntimeError(f"the page worker did not start:\n{self._log_tail(0)}")

    def _read(self, timeout: float) -> dict | None:
        assert self.proc and self.proc.stdout
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            return None
        line = self.proc.stdout.readline()
        return json.loads(line) if line else None

    def _log_tail(self, offset: int, limit: int = 4000) -> str:
        self.log.flush()
        data = self.log_path.read_bytes()[offset:].decode("utf-8", "replace")
        return data[-limit:]

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)

    # -- running a page ----------------------------------------------------------------------------
    def code_file(self, page: pathlib.Path) -> pathlib.Path:
        """The page's code, written to a fresh file outside the repository."""
        rel = page.resolve().relative_to(contract.ROOT / "docs").with_suffix("")
        target = self.tmp / ("__".join(rel.parts).replace("-", "_") + ".py")
        target.write_text(contract.page_code(page), encoding="utf-8")
        return target

    def run(self, page: pathlib.Path, func: str, seed: int, timeout: float = TIMEOUT) -> Result:
        """Run ``func(seed)`` of the code ``page`` shows; a pass counts only if its runs are evidence: every trainer
        trained sanely unless the page claims that run's failure (``handbook.lanes.evidence``)."""
        res = self.run_file(self.code_file(page), func, seed, timeout)
        if res.ok:
            claimed = pages.load(page).meta.get("claimed_failures") or {}
            insane = evidence.verdict(res.runs, evidence.vocab_size(self.model_for(seed)), claimed)
            if insane:
                res.ok, res.kind = False, "collapsed"
                res.message = "; ".join(insane) + f" (the check itself passed: {res.message})"
        return res

    def model_for(self, seed: int) -> str:
        """What the page's ``MODEL`` points at for this seed."""
        return self.model or os.environ.get(contract.MODEL_ENV) or tiny.model_path(seed)

    def run_file(self, code: pathlib.Path, func: str, seed: int, timeout: float = TIMEOUT) -> Result:
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        assert self.proc and self.proc.stdin
        model = self.model or os.environ.get(contract.MODEL_ENV)
        env = {contract.MODEL_ENV: self.model_for(seed)}
        env[contract.LR_SCALE_ENV] = "1" if model else str(TINY_LR_SCALE)
        if contract.VLM_ENV in code.read_text(encoding="utf-8"):  # built only for the pages that read it
            vlm = os.environ.get(contract.VLM_ENV) or (None if model else tiny_vlm.vlm_path(seed))
            if vlm:
                env[contract.VLM_ENV] = vlm
        offset = self.log_path.stat().st_size
        request = {"file": str(code), "func": func, "seed": seed, "env": env}
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        reply = self._read(timeout)
        if reply is None:
            alive = self.proc.poll() is None
            self.stop()
            kind = "timeout" if alive else "crash"
            msg = (
                f"{func}({seed}) took longer than {timeout:.0f} s"
                if alive
                else f"the worker died during {func}({seed})"
            )
            return Result(False, kind, msg, log=self._log_tail(offset))
        return Result(
            reply["ok"],
            reply["kind"],
            reply["message"],
            reply.get("traceback", ""),
            reply.get("seconds", 0.0),
            "" if reply["ok"] else self._log_tail(offset),
            reply.get("runs", []),
        )
