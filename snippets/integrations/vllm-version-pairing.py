"""GRPO + vLLM: the vLLM side must be the one this TRL release was made for.

Page: docs/integrations/vllm-version-pairing.md
(中文: docs/integrations/vllm-version-pairing.zh.md)
"""

# --8<-- [start:fix]
import importlib.metadata

from packaging.requirements import Requirement
from packaging.version import Version


def vllm_pairing():
    """TRL's version, the vLLM range it declares, and the installed vLLM (or None).

    Run it on the training machine and on the server machine: both must agree.
    """
    trl_version = importlib.metadata.version("trl")
    declared = None
    for line in importlib.metadata.requires("trl") or []:
        requirement = Requirement(line)
        if requirement.name == "vllm" and "vllm" in str(requirement.marker):
            declared = requirement.specifier
    try:
        vllm_version = importlib.metadata.version("vllm")
    except importlib.metadata.PackageNotFoundError:
        vllm_version = None
    # compare without a local tag such as "+cu129", as TRL's own check does
    in_range = bool(vllm_version) and Version(vllm_version).base_version in declared
    return trl_version, str(declared), vllm_version, in_range


print(vllm_pairing())  # e.g. ('1.16.0', '<=0.31.0,>=0.22.0', '0.31.0', True)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import http.server
import inspect
import re
import socketserver
import threading

import requests
import trl
from trl.generation.vllm_client import VLLMClient
from trl.import_utils import is_vllm_available

# The vLLM range each TRL release declares (its `trl[vllm]` extra), read in each wheel.
DECLARED = {
    "1.0.0": "<=0.17.1,>=0.10.2",
    "1.1.0": "<=0.17.1,>=0.11.0",
    "1.2.0": "<=0.18.0,>=0.11.0",
    "1.3.0": "<=0.18.0,>=0.12.0",
    "1.4.0": "<=0.18.0,>=0.12.0",
    "1.5.1": "<=0.18.0,>=0.12.0",
    "1.6.0": "<=0.19.0,>=0.12.0",
    "1.7.1": "<=0.23.0,>=0.14.0",
    "1.8.0": "<=0.23.0,>=0.16.0",
    "1.9.2": "<=0.25.1,>=0.17.0",
    "1.10.0": "<=0.26.0,>=0.17.0",
    "1.11.0": "<=0.27.1,>=0.19.0",
    "1.12.0": "<=0.27.1,>=0.19.0",
    "1.13.0": "<=0.28.0,>=0.19.1",
    "1.14.2": "<=0.30.0,>=0.20.0",
    "1.15.0": "<=0.31.0,>=0.21.0",
    "1.16.0": "<=0.31.0,>=0.22.0",
}


class NoTrlEndpoints(http.server.BaseHTTPRequestHandler):
    """A server without the endpoints TRL uses: every path answers 404, as vLLM
    started without VLLM_SERVER_DEV_MODE=1 does for /server_info, /get_world_size."""

    def do_GET(self):
        self.send_response(404)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"detail":"Not Found"}')

    do_POST = do_GET

    def log_message(self, *args):
        pass


def weight_sync_error(base_url):
    """What TRL's init_communicator says to that server (the client is made
    without __init__, which needs vLLM installed)."""
    client = object.__new__(VLLMClient)
    client.base_url, client.host = base_url, "127.0.0.1"
    client.session = requests.Session()
    client.group_port = 51216
    try:
        client.init_communicator(device=0)
    except Exception as e:  # noqa: BLE001 - the error text is the observation
        return f"{type(e).__name__}: {e}"
    return None


def check(seed: int = 0) -> str:
    trl_version, declared, vllm_version, in_range = vllm_pairing()
    assert trl_version == trl.__version__, "claim: the helper reads the installed TRL"
    if trl_version in DECLARED:
        assert declared == DECLARED[trl_version], f"claim: {trl_version}: {declared}"
    source = inspect.getsource(is_vllm_available)
    low, high = re.findall(r'Version\("([0-9.]+)"\)', source)[:2]
    assert declared == f"<={high},>={low}", "claim: TRL's import check warns outside"

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), NoTrlEndpoints)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    error = weight_sync_error(f"http://127.0.0.1:{server.server_address[1]}") or ""
    server.shutdown()
    server.server_close()
    if hasattr(VLLMClient, "get_server_info"):  # TRL >= 1.16 names the setting
        assert error.startswith("RuntimeError: The vLLM server at http://"), error
        assert "Restart it with `VLLM_SERVER_DEV_MODE=1`" in error, error
    else:  # TRL 1.0-1.15: the bare status
        assert error == 'Exception: Request failed: 404, {"detail":"Not Found"}', error

    command = "n/a before TRL 1.11"
    try:
        from trl.scripts.vllm_serve import ScriptArguments, build_command
    except ImportError:
        pass
    else:  # TRL >= 1.11: `trl vllm-serve` only starts `vllm serve` with TRL's flags
        argv = build_command(ScriptArguments(model="Qwen/Qwen2.5-0.5B-Instruct"))
        assert argv[1:4] == ["-m", "vllm.entrypoints.cli.main", "serve"], argv
        flags = dict(zip(argv, argv[1:]))
        weight_transfer = flags.get("--weight-transfer-config")
        assert weight_transfer == '{"backend": "nccl"}', "claim: weight transfer on"
        command = " ".join(argv[argv.index("serve") :])
    return (
        f"TRL {trl_version} declares vLLM {declared}; installed vLLM: "
        f"{vllm_version} (in range: {in_range}); server without TRL's endpoints: "
        f"{error[:110]}; trl vllm-serve runs: vllm {command[:60]}..."
    )


def check_vllm(seed: int = 0) -> str:
    """With vLLM installed: the warning fires exactly outside the declared range."""
    import warnings

    _, declared, vllm_version, in_range = vllm_pairing()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        is_vllm_available()
    messages = [str(w.message) for w in caught]
    warned = any("TRL currently supports vLLM versions" in m for m in messages)
    assert warned != in_range, f"claim: vLLM {vllm_version}, {declared}: {warned}"
    return f"vLLM {vllm_version}, declared {declared}: warned={warned}"


SEEDS = (0,)  # one seed: versions, metadata and one HTTP exchange, no training

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
