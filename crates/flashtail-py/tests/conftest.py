"""Shared pytest fixtures: the repository's paths and the command-line binary, which the
equality tests compare the Python package against (built by `cargo test --release` /
`cargo build --release -p flashtail-cli` before pytest runs)."""

import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def repo() -> pathlib.Path:
    return REPO


@pytest.fixture(scope="session")
def cli() -> str:
    path = os.environ.get("FLASHTAIL_BIN", str(REPO / "target" / "release" / "flashtail"))
    if not os.path.exists(path):
        pytest.fail(f"the flashtail binary is not at {path}: build it first (cargo build --release -p flashtail-cli)")
    return path


@pytest.fixture(scope="session")
def cli_error(cli):
    """The command line's error message for a failing invocation (its last stderr line)."""

    def error(*args: str) -> str:
        p = subprocess.run([cli, *args], capture_output=True, text=True)
        assert p.returncode != 0
        return p.stderr.strip().splitlines()[-1].removeprefix("error: ")

    return error
