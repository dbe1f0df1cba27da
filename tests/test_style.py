"""The source tree is ruff-clean (ruff comes with the `test` extra)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_source_tree_is_ruff_clean() -> None:
    beside_python = Path(sys.executable).with_name("ruff")
    ruff = str(beside_python) if beside_python.exists() else shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed: pip install '.[test]'")
    result = subprocess.run([ruff, "check", "qmodel", "tests", "bench"], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout
