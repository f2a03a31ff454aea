"""GRPO server mode: TRL's start-up wait times out only when nothing listens.

Page: docs/integrations/vllm-server-not-up-yet.md
(中文: docs/integrations/vllm-server-not-up-yet.zh.md)
"""

# --8<-- [start:fix]
import time

import requests
import torch
from trl import GRPOConfig


def wait_for_vllm_server(base_url, timeout=600.0, request_timeout=10.0):
    """Wait for a live vLLM server at base_url; raise with the reason, never hang.

    Call it before GRPOTrainer(...). Returns the id of the model the server serves.
    """
    deadline = time.monotonic() + timeout
    while True:
        try:
            health = requests.get(f"{base_url}/health", timeout=request_timeout)
        except requests.ConnectionError as e:
            # nothing listens (yet): the server may still be loading the model
            if time.monotonic() > deadline:
                raise RuntimeError(f"nothing answers at {base_url}") from e
            time.sleep(2)
            continue
        except requests.Timeout as e:
            # it accepted the connection, then said nothing
            raise RuntimeError(f"{base_url} accepts but does not answer") from e
        if health.status_code != 200:
            # another program on that port, or a vLLM whose engine died (503)
            raise RuntimeError(f"{base_url}/health answered {health.status_code}")
        models = requests.get(f"{base_url}/v1/models", timeout=request_timeout)
        return models.json()["data"][0]["id"]


grpo_config = GRPOConfig(
    use_vllm=True,
    vllm_mode="server",
    vllm_server_base_url="http://10.0.0.5:8000",  # the server's node and port
    vllm_server_timeout=600,  # TRL's own wait, in seconds (default 240)
    bf16=torch.cuda.is_available(),
)
# then, before GRPOTrainer(...):
# wait_for_vllm_server(grpo_config.vllm_server_base_url, timeout=600)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import http.server
import importlib.util
import logging
import os
import socket
import socketserver
import tempfile
import threading

from datasets import Dataset
from trl import GRPOTrainer
from trl.generation.vllm_client import VLLMClient

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
TRL_TIMEOUT = 1  # vllm_server_timeout for TRL's wait below: 1 s instead of 240 s
LOG = logging.getLogger(VLLMClient.__module__)


class Answers404(http.server.BaseHTTPRequestHandler):
    """Another program on the port: it answers every path with 404."""

    def do_GET(self):
        self.send_response(404)
        self.end_headers()
        self.wfile.write(b'{"detail":"Not Found"}')

    def log_message(self, *args):
        pass


class RecordLog(logging.Handler):
    def __init__(self):
        super().__init__(logging.INFO)
        self.lines = []

    def emit(self, record):
        self.lines.append((record.thread, record.getMessage()))


def closed_port():
    """A local port where nothing listens."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def trl_wait(base_url, seconds):
    """Run TRL's start-up check in a thread; what it did within `seconds`.

    VLLMClient() refuses to build where vLLM is not installed, so the client is
    made without __init__ and its check_server (what __init__ runs first) is called.
    """
    client = object.__new__(VLLMClient)
    client.base_url, client.host = base_url, "127.0.0.1"
    log = RecordLog()
    LOG.addHandler(log)
    LOG.setLevel(logging.INFO)
    outcome = {}

    def run():
        started = time.monotonic()
        try:
            client.check_server(total_timeout=TRL_TIMEOUT, retry_interval=0.5)
            outcome["result"] = "returned"
        except Exception as e:  # noqa: BLE001 - requests' ConnectionError is observed
            outcome["result"] = f"{type(e).__name__}: {e}"
        outcome["seconds"] = time.monotonic() - started

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    waiting = thread.is_alive()
    LOG.removeHandler(log)
    lines = [line for ident, line in log.lines if ident == thread.ident]
    return {"waiting": waiting, "log": lines, **outcome}, thread


def zero_reward(completions, **kwargs):
    return [0.0] * len(completions)


def fix_error(base_url):
    """What wait_for_vllm_server says about base_url (1 s in all, 1 s a request)."""
    try:
        wait_for_vllm_server(base_url, timeout=1, request_timeout=1)
    except RuntimeError as e:
        return str(e)
    return None


def trainer_without_vllm(base_url, seed):
    """The ImportError GRPOTrainer raises in server mode where vLLM is missing."""
    prompts = Dataset.from_list([{"prompt": "Say hi."}] * 4)
    args = GRPOConfig(
        output_dir=tempfile.mkdtemp(),
        use_vllm=True,
        vllm_mode="server",
        vllm_server_base_url=base_url,
        per_device_train_batch_size=2,
        num_generations=2,
        report_to="none",
        seed=seed,
        bf16=torch.cuda.is_available(),
    )
    try:
        GRPOTrainer(MODEL, zero_reward, args=args, train_dataset=prompts)
    except ImportError as e:
        return str(e)
    return None


def check(seed: int = 0) -> str:
    cuda = torch.cuda.is_available()
    defaults = GRPOConfig(use_vllm=True, vllm_mode="server", bf16=cuda)
    where = (defaults.vllm_server_host, defaults.vllm_server_port)
    assert where == ("0.0.0.0", 8000), "claim: by default: this machine, port 8000"
    assert defaults.vllm_server_timeout == 240, "claim: TRL waits 240 s by default"

    # 1. Nothing listens: TRL gives up after vllm_server_timeout.
    nobody = f"http://127.0.0.1:{closed_port()}"
    refused, _ = trl_wait(nobody, seconds=10)
    assert not refused["waiting"], f"claim: with nothing listening, TRL stops {refused}"
    assert "can't be reached at" in refused["result"], f"claim: {refused}"
    assert refused["seconds"] >= TRL_TIMEOUT, "claim: after vllm_server_timeout"
    retried = any("Server is not up yet" in line for line in refused["log"])
    assert retried, "claim: it logs 'Server is not up yet' while it waits"

    # 2. Another program answers /health with 404: TRL never gives up.
    other = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Answers404)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    wrong = f"http://127.0.0.1:{other.server_address[1]}"
    answered, answered_thread = trl_wait(wrong, seconds=4 * TRL_TIMEOUT)
    assert answered["waiting"], f"claim: a 404 from /health: TRL waits on {answered}"
    retries = sum("Server is not up yet" in line for line in answered["log"])
    assert retries >= 4, f"claim: it retries past vllm_server_timeout ({retries})"

    # 3. Something accepts the connection and never answers: TRL waits, silently.
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen()  # the kernel accepts connections; nobody reads or answers
    mute = f"http://127.0.0.1:{silent.getsockname()[1]}"
    hung, hung_thread = trl_wait(mute, seconds=4 * TRL_TIMEOUT)
    assert hung["waiting"], f"claim: TRL's health request has no timeout: {hung}"
    assert not hung["log"], "claim: and it logs nothing while it blocks"

    # The Fix's check names each case within its own timeout.
    fixed = [fix_error(nobody), fix_error(wrong), fix_error(mute)]
    other.shutdown()
    other.server_close()
    silent.close()  # the two waiting TRL threads now get refused, and stop
    answered_thread.join(10)
    hung_thread.join(10)
    assert fixed[0].startswith("nothing answers"), f"claim: fix: {fixed[0]}"
    assert fixed[1].endswith("answered 404"), f"claim: fix names the 404: {fixed[1]}"
    assert fixed[2].endswith("does not answer"), f"claim: fix: {fixed[2]}"

    missing = importlib.util.find_spec("vllm") is None
    if missing:  # a training machine without vLLM stops before any of this
        error = trainer_without_vllm(nobody, seed) or ""
        expected = "vLLM is not available and `use_vllm` is set to True"
        assert expected in error, f"claim: the trainer needs vLLM too: {error!r}"
    return (
        f"nothing listening: {refused['result'][:60]}... after "
        f"{refused['seconds']:.1f} s; /health 404: still waiting after "
        f"{4 * TRL_TIMEOUT} s ({retries} retries); silent socket: still waiting, "
        f"no log line; fix: {fixed}; trainer without vLLM: "
        f"{'ImportError' if missing else 'n/a (vLLM installed)'}"
    )


def check_vllm(seed: int = 0) -> str:
    """On a GPU with vLLM: GRPOTrainer's own wait, nothing listening, 5 s timeout."""
    prompts = Dataset.from_list([{"prompt": "Say hi."}] * 4)
    args = GRPOConfig(
        output_dir=tempfile.mkdtemp(),
        use_vllm=True,
        vllm_mode="server",
        vllm_server_base_url=f"http://127.0.0.1:{closed_port()}",
        vllm_server_timeout=5,
        per_device_train_batch_size=2,
        num_generations=2,
        report_to="none",
        seed=seed,
        bf16=True,
    )
    started = time.monotonic()
    try:
        GRPOTrainer(MODEL, zero_reward, args=args, train_dataset=prompts)
    except Exception as e:  # noqa: BLE001 - requests' ConnectionError is observed
        assert "can't be reached at" in str(e), f"claim: TRL raises: {e!r}"
    else:
        raise AssertionError("claim: there is no server to reach")
    seconds = time.monotonic() - started
    return f"GRPOTrainer, nothing listening: ConnectionError after {seconds:.0f} s"


SEEDS = (0,)  # one seed: sockets and TRL's start-up check, no training

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
