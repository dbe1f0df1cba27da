"""Every command's --help fits 80 columns: its examples are broken with a backslash, never wider."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from qmodel.cli import cli


@pytest.mark.parametrize("command", sorted(cli.list_commands(None)))
def test_every_help_line_fits_80_columns(command: str) -> None:
    result = CliRunner().invoke(cli, [command, "--help"], env={"COLUMNS": "80"}, terminal_width=80)
    assert result.exit_code == 0, result.output
    wide = [line for line in result.output.splitlines() if len(line) > 80]
    assert wide == []
