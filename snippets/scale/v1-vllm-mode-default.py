"""TRL 1.0 changed the default vllm_mode of GRPO and RLOO from "server" to
"colocate": say which one you mean.

Page: docs/scale/v1-vllm-mode-default.md
中文: docs/scale/v1-vllm-mode-default.zh.md
"""

# --8<-- [start:symptom]
import warnings

import torch
from trl import GRPOConfig

# A v0 script: a `trl vllm-serve` runs on another GPU, and
# the config only says where it is.
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    v0_args = GRPOConfig(
        use_vllm=True, vllm_server_host="10.0.0.2", bf16=torch.cuda.is_available()
    )
print(v0_args.vllm_mode)  # TRL >= 1.0: "colocate", the server address is never used
# []: nothing says so
print([str(w.message) for w in caught if "vllm" in str(w.message).lower()])
# --8<-- [end:symptom]


# --8<-- [start:fix]
# Name the mode every time use_vllm=True: the same lines mean the
# same thing on TRL 0.x and 1.x.
grpo_config = GRPOConfig(
    use_vllm=True,
    # a `trl vllm-serve` elsewhere; "colocate" runs vLLM inside each training process
    vllm_mode="server",
    vllm_server_host="10.0.0.2",
    bf16=torch.cuda.is_available(),
)
# RLOOConfig(use_vllm=True, vllm_mode="server", vllm_server_host="10.0.0.2",
# ...) takes the same arguments.
# --8<-- [end:fix]


# --8<-- [start:evidence]
import dataclasses

import trl
from trl import RLOOConfig


def check(seed: int = 0) -> str:
    bf16 = torch.cuda.is_available()
    defaults = {}
    for config in (GRPOConfig, RLOOConfig):
        fields = {f.name: f for f in dataclasses.fields(config)}
        defaults[config.__name__] = fields["vllm_mode"].default
        assert fields["vllm_mode"].default == "colocate", (
            f"claim: {config.__name__}.vllm_mode defaults to "
            f"'colocate' on TRL {trl.__version__}"
        )
        assert fields["use_vllm"].default is False, (
            f"claim: {config.__name__} uses vLLM only when asked"
        )
        # symptom: a v0 server-mode config (server address, no mode)
        # silently becomes colocate mode
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            old = config(
                use_vllm=True,
                vllm_server_host="10.0.0.2",
                vllm_server_port=8000,
                bf16=bf16,
            )
        assert old.vllm_mode == "colocate", (
            f"claim: {config.__name__} ignores the server address in v1"
        )
        vllm_warnings = [
            str(w.message) for w in caught if "vllm" in str(w.message).lower()
        ]
        assert not vllm_warnings, (
            "claim: no warning says the server settings "
            f"are unused, got {vllm_warnings}"
        )
        # fix: an explicit mode is kept as written, in both configs
        server = {
            name: getattr(grpo_config, name)
            for name in ("use_vllm", "vllm_mode", "vllm_server_host")
        }
        assert config(**server, bf16=bf16).vllm_mode == "server", (
            f"claim: {config.__name__} keeps vllm_mode='server'"
        )
        colocate = config(use_vllm=True, vllm_mode="colocate", bf16=bf16)
        assert colocate.vllm_mode == "colocate", (
            f"claim: {config.__name__} keeps colocate"
        )
    assert grpo_config.vllm_mode == "server", (
        "claim: the Fix's config is in server mode"
    )
    return (
        f"TRL {trl.__version__}: vllm_mode defaults {defaults}; server address without "
        "a mode -> colocate, no warning"
    )


# a fact about config defaults: the seed changes nothing, one run is enough
SEEDS = (0,)

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
