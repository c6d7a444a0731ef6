"""Shared pytest fixtures: the repository's paths and the command-line binary, which the
equality tests compare the Python package against (built by `cargo test --release` /
`cargo build --release -p flashtail-cli` before pytest runs)."""

import os
import pathlib

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
