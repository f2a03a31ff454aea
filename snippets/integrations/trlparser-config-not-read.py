"""`--config recipe.yaml` that never reaches TrlParser: `--config=recipe.yaml`, a bare
path, or a launch command cut short by a comment line all end in "the following
arguments are required: --dataset_name/--dataset-name" (or an unused-argument error).

Page: docs/integrations/trlparser-config-not-read.md
中文: docs/integrations/trlparser-config-not-read.zh.md
"""

# --8<-- [start:fix]
import sys

from trl import GRPOConfig, ModelConfig, ScriptArguments, TrlParser


def parse_recipe(argv=None, dataclasses=(ScriptArguments, GRPOConfig, ModelConfig)):
    """TrlParser reads the YAML only when `--config` and the path are two words."""
    argv = list(sys.argv[1:] if argv is None else argv)
    argv = [
        w for a in argv for w in (a.split("=", 1) if a.startswith("--config=") else [a])
    ]
    if "--config" not in argv:
        raise SystemExit(f"pass the recipe as --config <file.yaml>; got {argv}")
    parsed = TrlParser(dataclasses).parse_args_and_config(argv)
    if getattr(parsed[0], "dataset_name", None) is None:
        raise SystemExit("the recipe sets no dataset_name")
    return parsed


# --8<-- [end:fix]


# --8<-- [start:evidence]
import ast
import contextlib
import io
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import torch


@dataclass
class RecipeArguments:
    """dataset_name with no default: TRL's ScriptArguments up to 0.17.0, and the
    script arguments of recipes built on it (open-r1's GRPOScriptArguments, early
    2025)."""

    dataset_name: str = field(metadata={"help": "Dataset name."})
    dataset_train_split: str = "train"


RECIPE = f"""\
dataset_name: trl-lib/DeepMath-103K
learning_rate: 1.0e-6
num_generations: 8
bf16: {str(torch.cuda.is_available()).lower()}
output_dir: grpo-recipe
"""


def parse(argv, dataclasses):
    """TrlParser's answer: the parsed values, or the error it ends with."""
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            return TrlParser(dataclasses).parse_args_and_config(argv)
    except SystemExit as e:  # argparse prints the error and exits with code 2
        return f"exit {e.code}: {err.getvalue().strip().splitlines()[-1]}"
    except ValueError as e:
        return f"ValueError: {e}"


def launched_argv(tmp, recipe):
    """What a script receives from a launch command with a commented-out line
    in the middle of its backslash continuations."""
    script = tmp / "launch.sh"
    script.write_text(
        f"{sys.executable} -c 'import sys; print(sys.argv[1:])' \\\n"
        "    --num_generations 8 \\\n"
        "    # --report_to wandb \\\n"
        f"    --config {recipe}\n"
    )
    out = subprocess.run(["bash", str(script)], capture_output=True, text=True)
    return ast.literal_eval(out.stdout), out.stderr


def check(seed: int = 0) -> str:
    required = "the following arguments are required: --dataset_name/--dataset-name"
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        recipe = tmp / "config_demo.yaml"
        recipe.write_text(RECIPE)
        old = (RecipeArguments, GRPOConfig)

        # 1. The YAML is read only after a separate `--config` word.
        ok = parse(["--config", str(recipe)], old)
        assert not isinstance(ok, str) and ok[0].dataset_name.endswith("103K"), ok
        for argv in (
            [f"--config={recipe}"],
            [str(recipe)],
            ["--learning_rate", "1e-6", f"--config={recipe}"],
        ):
            got = parse(argv, old)
            assert got.startswith("exit 2") and got.endswith(required), (
                f"claim: {argv} is not read, dataset_name is missing: {got}"
            )

        # 2. With TRL's own ScriptArguments (dataset_name optional since 0.18) the
        # same argument is rejected as unused instead.
        new = (ScriptArguments, GRPOConfig)
        # bf16 on the command line too: unread, the YAML cannot turn it off on a CPU
        bf16 = ["--bf16", str(torch.cuda.is_available())]
        got = parse([f"--config={recipe}", *bf16], new)
        assert got == (
            "ValueError: Some specified arguments are not used by the "
            f"HfArgumentParser: ['--config={recipe}']"
        ), f"claim: on TRL 1.x the glued form is refused as unused: {got}"

        # 3. A comment line inside a backslash-continued command ends the command:
        # the lines after it never reach the script, and bash runs them on their own.
        argv, stderr = launched_argv(tmp, recipe)
        assert argv == ["--num_generations", "8"], f"claim: --config is lost: {argv}"
        assert "--config: command not found" in stderr, stderr
        got = parse(argv, old)
        assert got.endswith(required), f"claim: the same required error: {got}"

        # Fix: parse_recipe splits `--config=path`, refuses a missing --config, and
        # checks that the recipe's dataset_name arrived.
        script_args, training_args = parse_recipe([f"--config={recipe}"], old)
        assert script_args.dataset_name == "trl-lib/DeepMath-103K", script_args
        assert training_args.learning_rate == 1e-6, training_args.learning_rate
        assert training_args.num_generations == 8, training_args.num_generations
        try:
            parse_recipe(argv, old)
            refused = ""
        except SystemExit as e:
            refused = str(e)
        assert refused.startswith("pass the recipe as --config"), refused
    return (
        f"--config=<path>, a bare path and a cut launch line: '{required}'; "
        "--config <path>: dataset_name and learning_rate=1e-06 read from the YAML"
    )


SEEDS = (0,)  # one seed: argument parsing, no training

if __name__ == "__main__":
    for seed in SEEDS:
        print(check(seed))
# --8<-- [end:evidence]
