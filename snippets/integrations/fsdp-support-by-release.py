"""Which TRL release shards a trainer's reference model under FSDP1 and FSDP2:
before TRL 0.29 an FSDP2 run crashes in prepare_fsdp with "'MixedPrecisionPolicy'
object has no attribute '_module_classes_to_ignore'".

Page: docs/integrations/fsdp-support-by-release.md
中文: docs/integrations/fsdp-support-by-release.zh.md
"""

# --8<-- [start:fix]
import os

import trl
from packaging.version import Version

# The first TRL release whose trainer shards its reference model itself, under
# (FSDP1, FSDP2). GRPOTrainer and RLOOTrainer build one only when beta > 0;
# this guard asks for it either way.
FSDP_SUPPORT = {
    "DPOTrainer": ("0.16.0", "0.29.0"),
    "GRPOTrainer": ("0.18.0", "0.29.0"),
    "RLOOTrainer": ("0.22.0", "0.29.0"),
    "KTOTrainer": ("1.3.0", "1.3.0"),
}


def require_fsdp_support(trainer_name):
    """Call first in a script started by `accelerate launch`: it stops every rank
    before any weights load when this TRL cannot shard the trainer's reference
    model under the FSDP version that accelerate set."""
    if os.environ.get("ACCELERATE_USE_FSDP", "false").lower() != "true":
        return None  # not an FSDP launch
    fsdp_version = int(os.environ.get("FSDP_VERSION", "1"))  # accelerate's default
    first = FSDP_SUPPORT[trainer_name][fsdp_version - 1]
    if Version(trl.__version__) < Version(first):
        raise RuntimeError(
            f"{trainer_name} under FSDP{fsdp_version} needs trl>={first}, found "
            f"{trl.__version__}: pip install -U 'trl>={first}'"
        )
    return first


# --8<-- [end:fix]


# --8<-- [start:evidence]
import contextlib
import inspect
import tempfile
import warnings

import torch
import torch.distributed as dist
from accelerate import Accelerator
from accelerate.utils import FullyShardedDataParallelPlugin
from torch.distributed.fsdp import FSDPModule
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.tensor import DTensor
from transformers import AutoModelForCausalLM, set_seed
from trl.models.utils import prepare_fsdp

MODEL = os.environ.get("HANDBOOK_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
MP_ERROR = "'MixedPrecisionPolicy' object has no attribute '_module_classes_to_ignore'"
OFFLOAD_ERROR = "'OffloadPolicy' object has no attribute 'offload_params'"


@contextlib.contextmanager
def one_rank_group():
    """A real gloo process group of one rank on this CPU: FSDP needs one."""
    if dist.is_initialized():
        yield
        return
    with tempfile.TemporaryDirectory() as folder:
        store = dist.FileStore(os.path.join(folder, "store"), 1)
        dist.init_process_group("gloo", store=store, rank=0, world_size=1)
        try:
            yield
        finally:
            dist.barrier()  # every collective is done before teardown
            dist.destroy_process_group()


@contextlib.contextmanager
def fsdp_accelerator(fsdp_version, mixed_precision):
    """An Accelerator holding the plugin `accelerate launch` builds from a config
    with this fsdp_version and mixed_precision. accelerate turns FSDP on only for
    GPU-like back ends, so on a CPU the plugin is set on the state by hand: it is
    what prepare_fsdp reads (with the device), and it is put back afterwards."""
    plugin = FullyShardedDataParallelPlugin(
        fsdp_version=fsdp_version,
        auto_wrap_policy="TRANSFORMER_BASED_WRAP",
        state_dict_type="FULL_STATE_DICT",
    )
    if mixed_precision != "no":  # what AcceleratorState does for an FSDP launch
        plugin.set_mixed_precision(mixed_precision)
    accelerator = Accelerator()
    state = accelerator.state
    before = state.__dict__.get("fsdp_plugin", "absent")
    state.fsdp_plugin = plugin
    try:
        yield accelerator
    finally:
        if before == "absent":
            del state.fsdp_plugin
        else:
            state.fsdp_plugin = before


def prepare_fsdp_trl_0_28(model, accelerator):
    """The call prepare_fsdp made in TRL 0.16-0.28 (trl/models/utils.py): an FSDP1
    wrap whatever fsdp_version the plugin says."""
    fsdp_plugin = accelerator.state.fsdp_plugin
    fsdp_plugin.set_auto_wrap_policy(model)
    kwargs = {
        "sharding_strategy": fsdp_plugin.sharding_strategy
        or fsdp_plugin.reshard_after_forward,
        "cpu_offload": fsdp_plugin.cpu_offload,
        "auto_wrap_policy": fsdp_plugin.auto_wrap_policy,
        "mixed_precision": fsdp_plugin.mixed_precision_policy,
        "sync_module_states": fsdp_plugin.sync_module_states,
        "backward_prefetch": fsdp_plugin.backward_prefetch,
        "forward_prefetch": fsdp_plugin.forward_prefetch,
        "use_orig_params": fsdp_plugin.use_orig_params,
        "param_init_fn": fsdp_plugin.param_init_fn,
        "ignored_modules": fsdp_plugin.ignored_modules,
        "limit_all_gathers": fsdp_plugin.limit_all_gathers,
        "device_id": accelerator.device,
    }
    return FSDP(model, **kwargs).eval()


def shard_reference(prepare, fsdp_version, mixed_precision):
    """A fresh reference model through `prepare`: the wrapped model or the error."""
    reference = AutoModelForCausalLM.from_pretrained(MODEL)
    with fsdp_accelerator(fsdp_version, mixed_precision) as accelerator:
        with warnings.catch_warnings():  # FSDP1 on one rank: "switching to NO_SHARD"
            warnings.simplefilter("ignore")
            try:
                return prepare(reference, accelerator)
            except AttributeError as error:  # FSDP1 reading an FSDP2 policy
                return f"AttributeError: {error}"


def compare_logits(sharded, seed):
    """The sharded model's logits against the unsharded model's: the largest
    difference, their correlation, and the dtype the sharded model computed in."""
    plain = AutoModelForCausalLM.from_pretrained(MODEL).eval()
    vocab = plain.config.vocab_size
    generator = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, vocab, (2, 12), generator=generator)
    with torch.no_grad():
        got = sharded(input_ids=ids).logits
        want = plain(input_ids=ids).logits
    gap = (got.float() - want).abs().max().item()
    pair = torch.stack([got.float().flatten(), want.flatten()])
    return gap, torch.corrcoef(pair)[0, 1].item(), str(got.dtype)


def prepares_reference(trainer_class):
    """Whether the trainer's __init__ (or a TRL parent's) hands its reference
    model to prepare_fsdp."""
    trl_classes = [c for c in trainer_class.__mro__ if c.__module__.startswith("trl")]
    inits = [c.__init__ for c in trl_classes if "__init__" in vars(c)]
    sources = [inspect.getsource(init) for init in inits]
    return any("prepare_fsdp(self.ref_model" in source for source in sources)


def check(seed: int = 0) -> str:
    set_seed(seed)
    installed = Version(trl.__version__)
    # the Fix's table, release by release, against this TRL's source
    fsdp2_branch = "fsdp_plugin.fsdp_version == 2" in inspect.getsource(prepare_fsdp)
    assert fsdp2_branch == (installed >= Version("0.29.0")), (
        "claim: prepare_fsdp has an FSDP2 branch from TRL 0.29.0"
    )
    for name, (first_v1, first_v2) in FSDP_SUPPORT.items():
        shards = prepares_reference(getattr(trl, name))
        assert shards == (installed >= Version(first_v1)), (
            f"claim: {name} shards its reference from {first_v1} (trl {installed})"
        )
        assert (shards and fsdp2_branch) == (installed >= Version(first_v2)), (
            f"claim: {name} shards it under FSDP2 from {first_v2} (trl {installed})"
        )
    grpo = inspect.getsource(inspect.getmodule(trl.GRPOTrainer))
    assert "summon_full_params(self.model_wrapped, recurse=False)" in grpo, (
        "claim: GRPOTrainer gathers FSDP1 weights around generation (from 0.18.0)"
    )
    if hasattr(trl, "DistillationTrainer"):  # 1.10 and later
        init = inspect.getsource(trl.DistillationTrainer.__init__)
        assert "prepare_fsdp" not in init, "claim: no release shards the teacher"

    # the Fix's guard, as `accelerate launch` with fsdp_version: 2 starts a script
    launched = {"ACCELERATE_USE_FSDP": "true", "FSDP_VERSION": "2"}
    saved = {key: os.environ.get(key) for key in launched}
    os.environ.update(launched)
    try:
        guard = require_fsdp_support("DPOTrainer")
    except RuntimeError as error:
        guard = str(error)
    finally:
        for key, value in saved.items():  # as it was before
            if value is None:
                del os.environ[key]
            else:
                os.environ[key] = value
    if installed >= Version("0.29.0"):
        assert guard == "0.29.0", f"claim: the guard lets TRL {installed} run: {guard}"
    else:
        assert "needs trl>=0.29.0" in guard, f"claim: the guard stops it: {guard}"

    with one_rank_group():
        # symptom: an FSDP2 launch with mixed_precision: bf16 (TRL's fsdp2.yaml)
        old_bf16 = shard_reference(prepare_fsdp_trl_0_28, 2, "bf16")
        old_no_mp = shard_reference(prepare_fsdp_trl_0_28, 2, "no")
        # the installed TRL on the same two launches, and under FSDP1
        new_bf16 = shard_reference(prepare_fsdp, 2, "bf16")
        new_no_mp = shard_reference(prepare_fsdp, 2, "no")
        new_v1 = shard_reference(prepare_fsdp, 1, "no")
        assert old_bf16 == f"AttributeError: {MP_ERROR}", f"claim: {old_bf16}"
        assert old_no_mp == f"AttributeError: {OFFLOAD_ERROR}", f"claim: {old_no_mp}"
        assert isinstance(new_v1, FSDP), f"claim: FSDP1 wraps the reference: {new_v1}"
        v1_gap, _, _ = compare_logits(new_v1, seed)
        assert v1_gap < 1e-3, f"claim: the FSDP1 reference computes the same: {v1_gap}"
        if installed < Version("0.29.0"):  # this release has the bug itself
            assert (new_bf16, new_no_mp) == (old_bf16, old_no_mp), (
                f"claim: TRL {installed} raises the same: {new_bf16} / {new_no_mp}"
            )
            return f"TRL {installed}: prepare_fsdp under FSDP2 raises {MP_ERROR}"
        for sharded in (new_bf16, new_no_mp):
            assert isinstance(sharded, FSDPModule), f"claim: FSDP2 shards: {sharded}"
            assert not sharded.training, "claim: the reference model is in eval mode"
            params = list(sharded.parameters())
            assert all(isinstance(p, DTensor) for p in params), "claim: DTensors"
        units = sum(isinstance(m, FSDPModule) for m in new_bf16.modules())
        assert units == 1, f"claim: FSDP2 shards the reference as one unit: {units}"
        v2_gap, _, _ = compare_logits(new_no_mp, seed)
        assert v2_gap < 1e-3, f"claim: the FSDP2 reference computes the same: {v2_gap}"
        _, bf16_corr, dtype = compare_logits(new_bf16, seed)
        assert dtype == "torch.bfloat16", f"claim: it computes in bf16: {dtype}"
        assert bf16_corr > 0.95, f"claim: bf16 logits track fp32: {bf16_corr:.4f}"
    return (
        f"TRL {installed}: TRL 0.28's FSDP1 call raises {MP_ERROR} (bf16) and "
        f"{OFFLOAD_ERROR} (no mixed precision); prepare_fsdp shards with "
        f"fully_shard ({units} unit): logits within {v2_gap:.1e} of the unsharded "
        f"model, bf16 run corr {bf16_corr:.4f}; FSDP1 within {v1_gap:.1e}"
    )


SEEDS = (0, 1, 2)  # the test suite runs check() once per seed

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
