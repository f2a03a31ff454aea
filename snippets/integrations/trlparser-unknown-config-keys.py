"""A key in a `--config` YAML that no dataclass declares (a renamed argument such as
`max_seq_length`, a typo such as `dataset_configs`): TRL 0.19+ refuses the file,
TRL up to 0.18 dropped the key without a word.

Page: docs/integrations/trlparser-unknown-config-keys.md
中文: docs/integrations/trlparser-unknown-config-keys.zh.md
"""

# --8<-- [start:fix]
import difflib

import yaml
from trl import DatasetMixtureConfig, ModelConfig, ScriptArguments, SFTConfig

# the dataclasses `trl sft` parses (trl/scripts/sft.py); use your script's own
SFT_ARGS = (ScriptArguments, SFTConfig, ModelConfig, DatasetMixtureConfig)


def unknown_recipe_keys(path, dataclasses=SFT_ARGS):
    """Keys of a --config YAML that no dataclass declares, each with the closest
    name that exists. Run it before training, on any TRL version."""
    known = {name for dc in dataclasses for name in dc.__dataclass_fields__}
    with open(path) as f:
        config = yaml.safe_load(f)
    return {
        key: difflib.get_close_matches(key, known, n=1)
        for key in config
        if key not in known and key != "env"  # `env:` sets environment variables
    }


# {'max_seq_length': ['max_length'], 'dataset_configs': ['dataset_config']}:
# rename them in the YAML (max_length: 2048, dataset_config: all)
# --8<-- [end:fix]


# --8<-- [start:evidence]
import contextlib
import io
import tempfile
from pathlib import Path

import torch
from trl import TrlParser
from trl.cli.main import main as trl_cli
from trl.scripts.sft import make_parser as trl_sft_parser

# an SFT recipe written for TRL 0.19 or older, with one key misspelt
OLD_RECIPE = f"""\
model_name_or_path: Qwen/Qwen2.5-0.5B-Instruct
dataset_name: trl-lib/Capybara
dataset_configs: all
max_seq_length: 2048
learning_rate: 2.0e-5
bf16: {str(torch.cuda.is_available()).lower()}
output_dir: sft-recipe
"""
FIXED_RECIPE = OLD_RECIPE.replace("dataset_configs:", "dataset_config:").replace(
    "max_seq_length:", "max_length:"
)


def parse(path, **kwargs):
    """A script of your own: TrlParser with parse_args_and_config's defaults."""
    parser = TrlParser((ScriptArguments, SFTConfig, ModelConfig))
    return parser.parse_args_and_config(["--config", str(path)], **kwargs)


def trl_cli_error(path):
    """`trl sft --config <path>`: the last line argparse prints before it exits."""
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            trl_cli(["sft", "--config", str(path)])
    except SystemExit:
        return err.getvalue().strip().splitlines()[-1]
    raise AssertionError("the stale recipe was launched")


def check(seed: int = 0) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        old, fixed = Path(tmp) / "old.yaml", Path(tmp) / "fixed.yaml"
        old.write_text(OLD_RECIPE)
        fixed.write_text(FIXED_RECIPE)

        # 1. Your own script (TrlParser's default) refuses a key no dataclass declares.
        try:
            parse(old)
            error = ""
        except ValueError as e:
            error = str(e)
        assert error.startswith(
            "Unknown arguments from config file: ['--dataset_configs', 'all', "
            "'--max_seq_length', '2048']"
        ), f"claim: both stale keys are named: {error!r}"

        # 2. TRL's own sft script parses with fail_with_unknown_args=False (its
        # __main__): the keys are dropped and it would train with the defaults, as
        # every script did up to TRL 0.18.
        script_args, sft_args, *_ = trl_sft_parser().parse_args_and_config(
            ["--config", str(old)], fail_with_unknown_args=False
        )
        assert sft_args.max_length == 1024, f"claim: default, not 2048: {sft_args}"
        assert script_args.dataset_config is None, script_args.dataset_config
        assert sft_args.learning_rate == 2e-5, "the known keys are still read"

        # 3. The `trl sft` command hands the leftovers to accelerate launch.
        line = trl_cli_error(old)
        assert line == (
            "Accelerate launch command: error: "
            "unrecognized arguments: --dataset_configs"
        ), f"claim: accelerate names the first stale key: {line!r}"

        # Fix: the helper names each stale key and the argument it should be.
        assert unknown_recipe_keys(old) == {
            "dataset_configs": ["dataset_config"],
            "max_seq_length": ["max_length"],
        }, f"claim: renames found: {unknown_recipe_keys(old)}"
        assert unknown_recipe_keys(fixed) == {}, unknown_recipe_keys(fixed)
        script_args, sft_args, _ = parse(fixed)
        assert sft_args.max_length == 2048 and script_args.dataset_config == "all", (
            f"claim: the renamed keys are read: {sft_args.max_length}"
        )
    return (
        "stale keys: 'Unknown arguments from config file' (own script), dropped "
        "(trl's sft.py: max_length=1024), 'unrecognized arguments' (trl sft); "
        f"renamed: max_length={sft_args.max_length}, "
        f"dataset_config={script_args.dataset_config!r}"
    )


SEEDS = (0,)  # one seed: argument parsing, no training

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
