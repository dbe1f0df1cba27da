"""`qmodel formula show` fits 80 columns for every entry, at a terminal and piped (issue 23)."""

import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from qmodel.catalogue.loader import load_catalogue
from qmodel.cli import cli


@pytest.mark.parametrize("formula_id", sorted(load_catalogue()))
def test_every_entry_fits_80_columns(formula_id) -> None:
    result = CliRunner(env={"COLUMNS": "80"}).invoke(cli, ["formula", "show", formula_id])
    assert result.exit_code == 0, result.output
    wide = [line for line in result.output.splitlines() if len(line) > 80]
    assert wide == []


@pytest.mark.parametrize("formula_id", ["read_hit_mix", "cf_request_at_distance", "erlang_c"])
def test_the_widest_entries_fit_80_columns_when_piped(formula_id, tmp_path) -> None:
    env = {name: value for name, value in os.environ.items() if name != "COLUMNS"}
    result = subprocess.run(
        [sys.executable, "-c", "from qmodel.cli import main; main()", "formula", "show", formula_id],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert max(len(line) for line in result.stdout.splitlines()) <= 80


def test_an_equation_too_wide_to_draw_is_written_out_whole() -> None:
    """Folded at its spaces: every name of the catalogue's expression is still there, none split."""
    result = CliRunner(env={"COLUMNS": "80"}).invoke(cli, ["formula", "show", "erlang_c"])
    text = " ".join(result.output.split("\n\n")[1].split())
    assert text.startswith("wait_probability = ") and "factorial(servers)" in text
