"""The source tree is ruff-clean and ruff-formatted (ruff comes with the `test` extra)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FORMATTED = ("qmodel", "tests", "bench", "docs/_hooks")  # docs/contributing/code-style.md: the formatter


def _ruff() -> str:
    beside_python = Path(sys.executable).with_name("ruff")
    ruff = str(beside_python) if beside_python.exists() else shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed: pip install '.[test]'")
    return ruff


def test_source_tree_is_formatted_by_ruff_format() -> None:
    result = subprocess.run(
        [_ruff(), "format", "--check", *FORMATTED], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout


def test_source_tree_is_ruff_clean() -> None:
    result = subprocess.run([_ruff(), "check", *FORMATTED], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout
