"""Shared helpers of the Python tests: the fatnet CLI (`FATNET_BIN`) and the shared fabrics."""

import json
import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]


def fatnet_bin():
    """The `fatnet` binary `.ci/run` built (`FATNET_BIN`), or skip the test."""
    path = os.environ.get("FATNET_BIN")
    if not path:
        pytest.skip("FATNET_BIN is not set: cannot compare with the command line "
                    "(.ci/run sets it after `cargo build -p fatnet-cli`)")
    return path


def cli(*args, check=True):
    """Runs `fatnet ARGS`; the completed process."""
    done = subprocess.run([fatnet_bin(), *map(str, args)], capture_output=True, text=True)
    if check and done.returncode != 0:
        raise AssertionError(f"fatnet {' '.join(map(str, args))} failed: {done.stderr}")
    return done


def cli_json(*args):
    """`fatnet ARGS --json`, parsed."""
    return json.loads(cli(*args, "--json").stdout)


def cli_error(*args):
    """The one-line error `fatnet ARGS` prints (status 2), without `error: `."""
    done = cli(*args, check=False)
    assert done.returncode == 2, done
    line = done.stderr.strip()
    assert line.startswith("error: "), line
    return line[len("error: "):]


def shared_fabric(name):
    """The ib_flit_sim fabric `name` of `../shared/fabrics` (or `FATNET_FABRICS`), as the Rust
    tests of fatnet-fabric find it; skip when it is absent."""
    root = pathlib.Path(os.environ.get("FATNET_FABRICS", REPO / ".." / "shared" / "fabrics"))
    base = root / "ib_flit_sim" / name
    if not base.is_dir():
        pytest.skip(f"{base} not found")
    return base
