"""GRPO server mode: the weight-sync rendezvous on vllm_group_port, and its timeouts.

Page: docs/integrations/vllm-weight-sync-socket-timeout.md
(中文: docs/integrations/vllm-weight-sync-socket-timeout.zh.md)
"""

# --8<-- [start:fix]
import os
import socket

import torch
from trl import GRPOConfig


def pick_group_port(host="0.0.0.0", first=51216, tries=100):
    """The first port from `first` on that this machine can listen on.

    The trainer listens there for the vLLM workers; two runs cannot share one.
    """
    for port in range(first, first + tries):
        with socket.socket() as s:
            try:
                s.bind((host, port))
            except OSError:  # taken, e.g. by another training run on this node
                continue
        return port
    raise RuntimeError(f"no free port in {first}..{first + tries - 1} on {host}")


# On the training node: its address on the network the vLLM server can reach.
# vLLM guesses it otherwise (the interface of the default route).
TRAINER_IP = "10.0.0.4"
os.environ["VLLM_HOST_IP"] = TRAINER_IP

grpo_config = GRPOConfig(
    use_vllm=True,
    vllm_mode="server",
    vllm_server_base_url="http://10.0.0.5:8000",  # the server's node
    vllm_group_port=pick_group_port(),  # a free one: one port per concurrent run
    bf16=torch.cuda.is_available(),
)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import datetime
import inspect
import threading
import time

from torch.distributed import TCPStore
from trl.generation.vllm_client import VLLMClient

STORE_TIMEOUT = 2  # seconds; vLLM's rendezvous waits 300 s (the "300000ms" in logs)


def listen(host, port):
    """How rank 0 (the trainer) opens the rendezvous in vLLM's StatelessProcessGroup."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((host, port))
    s.listen()
    return s


def store(host, port, master_socket=None):
    """The TCPStore vLLM builds for a group of 2: the trainer and one vLLM worker."""
    return TCPStore(
        host,
        port,
        world_size=2,
        is_master=master_socket is not None,
        master_listen_fd=master_socket.detach() if master_socket else None,
        timeout=datetime.timedelta(seconds=STORE_TIMEOUT),
        use_libuv=False,
    )


def error_of(action):
    try:
        action()
    except Exception as e:  # noqa: BLE001 - the error text is the observation
        return f"{type(e).__name__}: {e}".splitlines()[0]
    return None


def check(seed: int = 0) -> str:
    cuda = torch.cuda.is_available()
    defaults = GRPOConfig(use_vllm=True, vllm_mode="server", bf16=cuda)
    assert defaults.vllm_group_port == 51216, "claim: the default group port is 51216"
    source = inspect.getsource(VLLMClient.init_communicator)
    assert '"master_address": get_ip()' in source, "claim: trainer hosts, at get_ip()"
    assert '"master_port": self.group_port' in source, "claim: on vllm_group_port"
    assert '"rank_offset": 1' in source, "claim: trainer is rank 0, vLLM workers 1..N"

    here = "127.0.0.1"
    # 1. A worker (or, before TRL 1.11, the trainer) connects; nobody listens there.
    with socket.socket() as s:
        s.bind((here, 0))
        closed = s.getsockname()[1]
    started = time.monotonic()
    worker_error = error_of(lambda: store(here, closed))
    waited = time.monotonic() - started
    expected = f"The client socket has timed out after {STORE_TIMEOUT * 1000}ms"
    assert expected in worker_error, f"claim: the error users paste: {worker_error}"
    assert f"while trying to connect to ({here}, {closed})" in worker_error, "claim"
    assert waited >= STORE_TIMEOUT, "claim: only after the rendezvous timeout"

    # 2. The trainer listens; no worker reaches it (wrong address, closed firewall).
    alone = listen(here, 0)
    trainer_error = error_of(lambda: store(here, alone.getsockname()[1], alone))
    assert "waiting for clients. 1/2 clients joined" in trainer_error, trainer_error

    # 3. A second run on the same node, same vllm_group_port.
    first_run = listen(here, 0)
    port = first_run.getsockname()[1]
    second_error = error_of(lambda: listen(here, port))
    assert "Address already in use" in second_error, f"claim: {second_error}"

    # Fix: the second run takes the next free port, and its rendezvous completes.
    fixed_port = pick_group_port(here, first=port)
    assert fixed_port != port, "claim: pick_group_port skips the port in use"
    trainer_socket = listen(here, fixed_port)
    received = {}

    def trainer():
        master = store(here, fixed_port, trainer_socket)
        master.set("weights", b"step 1")
        received["trainer"] = master.get("ack")

    thread = threading.Thread(target=trainer)
    thread.start()
    worker = store(here, fixed_port)
    received["worker"] = worker.get("weights")
    worker.set("ack", b"ok")
    thread.join(10)
    first_run.close()
    assert received == {"worker": b"step 1", "trainer": b"ok"}, f"claim: {received}"
    return (
        f"nobody listening: '{worker_error[:90]}...'; trainer alone: "
        f"'{trainer_error[:70]}'; second run, port {port}: '{second_error}'; "
        f"fix: port {fixed_port}, rendezvous done {received}"
    )


def check_vllm(seed: int = 0) -> str:
    """With vLLM installed: vLLM's own rendezvous behaves as the CPU check says."""
    from vllm.distributed.utils import StatelessProcessGroup
    from vllm.utils.network_utils import get_ip

    os.environ["VLLM_HOST_IP"] = "127.0.0.1"
    assert get_ip() == "127.0.0.1", "claim: VLLM_HOST_IP sets the trainer's address"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    group = StatelessProcessGroup.create
    as_worker = dict(rank=1, world_size=2, store_timeout=STORE_TIMEOUT)
    error = error_of(lambda: group("127.0.0.1", port, **as_worker))
    expected = f"The client socket has timed out after {STORE_TIMEOUT * 1000}ms"
    assert expected in error, f"claim: vLLM's worker side times out so: {error}"
    held = listen("127.0.0.1", 0)
    busy = held.getsockname()[1]
    error = error_of(lambda: group("127.0.0.1", busy, rank=0, world_size=2))
    held.close()
    assert "Address already in use" in error, f"claim: a taken group port: {error}"
    return "vLLM StatelessProcessGroup: client timeout and busy port as on CPU"


SEEDS = (0,)  # one seed: sockets and a rendezvous, no training

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
