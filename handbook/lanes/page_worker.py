"""The process a page's code runs in during the test suite (started by ``handbook.lanes.harness``).

Run as a script with ``python -I``: the repository is not on ``sys.path`` and its packages cannot be imported
(an import hook refuses them even where an editable install would find them), the working directory is a
throw-away folder. torch, transformers, datasets and TRL are imported once, so each page pays only for its
own runs.

Protocol: one JSON request per line on stdin ``{"file", "func", "seed", "env"}``; one JSON reply per line on
the original stdout ``{"ok", "kind", "message", "traceback", "seconds"}``. Everything the page prints goes to
stderr (a log file the harness reads back on failure).
"""

import gc
import importlib.abc
import importlib.util
import json
import math
import os
import pathlib
import shutil
import sys
import tempfile
import time
import traceback
import warnings

BLOCKED = set(json.loads(os.environ.get("HANDBOOK_BLOCKED_IMPORTS", "[]")))


class _Refuse(importlib.abc.MetaPathFinder):
    """A page's code may import only what a reader has: TRL and its dependencies, never this repository."""

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r} (this repository's code is not importable by pages)")
        return None


sys.meta_path.insert(0, _Refuse())
for mod in list(sys.modules):
    if mod.split(".")[0] in BLOCKED:
        del sys.modules[mod]

proto = os.fdopen(os.dup(1), "w", buffering=1)
os.dup2(2, 1)  # the page's prints go to the log, not into the protocol
sys.stdout = sys.stderr

warnings.filterwarnings("ignore", message="IProgress not found")
import torch  # noqa: E402

torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
import datasets  # noqa: E402,F401
import transformers  # noqa: E402,F401
import trl  # noqa: E402,F401

transformers.utils.logging.disable_progress_bar()
# Every Trainer.train() ends in accelerate's free_memory(), a full gc.collect(): with torch, transformers and TRL
# imported that walks ~430k objects, 0.55 s each time, a fifth of a short check's CPU. Frozen, the imports' objects
# are left out of every collection (they live as long as the process anyway); what a page's code creates is not.
gc.freeze()


def _mutate(spec: str) -> None:
    """``Class.field=value;...``: change a TRL config default for this process (the mutation check)."""
    for item in filter(None, spec.split(";")):
        target, _, raw = item.partition("=")
        cls_name, _, fld = target.strip().partition(".")
        cls = getattr(trl, cls_name)
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        original = cls.__init__

        def init(self, *args, _original=original, _field=fld, _value=value, **kwargs):
            kwargs.setdefault(_field, _value)
            _original(self, *args, **kwargs)

        cls.__init__ = init


_mutate(os.environ.get("HANDBOOK_MUTATE", ""))

RUNS: list[dict] = []
"""What every trainer the page's code builds logs, in the order they are built (the run record: charts, the
log doctor). Observing only: a callback that copies each logged dict; the page's training is unchanged."""


class _Recorder(transformers.TrainerCallback):
    def __init__(self, run: dict) -> None:
        self.run = run

    def on_log(self, args, state, control, logs=None, **kwargs):
        row = {"step": int(state.global_step)}
        for key, value in (logs or {}).items():
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                continue
            value = float(value)
            row[key] = value if math.isfinite(value) else str(value)  # NaN/inf are symptoms worth keeping
        self.run["logs"].append(row)


_trainer_init = transformers.Trainer.__init__


def _recording_init(self, *args, **kwargs):
    _trainer_init(self, *args, **kwargs)
    run = {"trainer": type(self).__name__, "logs": []}
    RUNS.append(run)
    self.add_callback(_Recorder(run))


transformers.Trainer.__init__ = _recording_init
datasets.disable_progress_bars()

proto.write(json.dumps({"ready": True, "pid": os.getpid()}) + "\n")

CWD = pathlib.Path.cwd()
BASE_TMP = pathlib.Path(tempfile.gettempdir())  # the runner's folder ($TMPDIR), removed with the runner


def _fresh_temp() -> pathlib.Path:
    """A temp folder of this run only: tempfile, $TMPDIR and datasets' per-process cache of in-memory maps point
    into it, so no page can lose (or read) files of another page, whatever the order they run in."""
    run_tmp = pathlib.Path(tempfile.mkdtemp(prefix="run-", dir=BASE_TMP))
    tempfile.tempdir = str(run_tmp)
    os.environ["TMPDIR"] = str(run_tmp)
    if hasattr(datasets.fingerprint, "_TEMP_DIR_FOR_TEMP_CACHE_FILES"):
        datasets.fingerprint._TEMP_DIR_FOR_TEMP_CACHE_FILES = None  # made again, inside run_tmp, on first use
    return run_tmp


count = 0
for line in sys.stdin:
    req = json.loads(line)
    count += 1
    saved_env, saved_filters = dict(os.environ), warnings.filters[:]  # restored after the run: pages don't leak
    os.environ.update(req.get("env", {}))
    run_tmp = _fresh_temp()
    started = time.perf_counter()
    reply = {"ok": True, "kind": "passed", "message": "", "traceback": ""}
    name = f"handbook_page_{count}"
    RUNS.clear()
    try:
        spec = importlib.util.spec_from_file_location(name, req["file"])
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException as e:  # noqa: BLE001 - reported, never raised
            reply = {"ok": False, "kind": "paste", "message": f"{type(e).__name__}: {e}"}
            raise
        func = getattr(module, req["func"], None)
        if func is None:
            reply = {"ok": False, "kind": "paste", "message": f"the page's code defines no {req['func']}()"}
        else:
            result = func(req["seed"])
            reply["message"] = str(result)
            if not isinstance(result, str) or not result:
                reply = {
                    "ok": False,
                    "kind": "contract",
                    "message": f"{req['func']}() returned {result!r}, not a verdict",
                }
    except AssertionError as e:
        reply = {"ok": False, "kind": "claim", "message": str(e) or "an assert without a message failed"}
        reply["traceback"] = traceback.format_exc(limit=-3)
    except BaseException as e:  # noqa: BLE001
        if reply.get("kind") != "paste":
            reply = {"ok": False, "kind": "error", "message": f"{type(e).__name__}: {e}"}
        reply["traceback"] = traceback.format_exc(limit=-4)
    finally:
        sys.modules.pop(name, None)
    saved = sorted(str(p.relative_to(CWD)) for p in CWD.glob("**/checkpoint-*"))
    if saved and reply["ok"]:
        reply = {
            "ok": False,
            "kind": "contract",
            "message": f"the page's code saved checkpoints {saved[:3]} into the working directory: set "
            "save_strategy='no' (transformers 5 saves at the end of training otherwise; on a real model that is GBs)",
        }
    for entry in CWD.iterdir():  # each run starts in an empty working directory
        shutil.rmtree(entry, ignore_errors=True) if entry.is_dir() else entry.unlink(missing_ok=True)
    os.environ.clear()
    os.environ.update(saved_env)
    tempfile.tempdir = str(BASE_TMP)
    shutil.rmtree(run_tmp, ignore_errors=True)
    warnings.filters[:] = saved_filters
    reply["seconds"] = round(time.perf_counter() - started, 2)
    reply["runs"] = list(RUNS) if reply["ok"] else []  # every trainer built, in order (run 1 = the first)
    sys.stderr.flush()
    proto.write(json.dumps(reply) + "\n")
