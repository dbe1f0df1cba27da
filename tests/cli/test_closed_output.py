"""Output cut short by its reader (``qmodel ... | head -1``): a quiet end with status 141, as a shell tool
killed by SIGPIPE gives, never 1 (a found failure) or a traceback."""

import subprocess
import sys

import pytest

ENTRY = "from qmodel.cli import main; main()"


@pytest.mark.parametrize(
    "args",
    [
        ["scenario", "gdps-env3", "--distance", "0..100km", "--points", "1001", "--format", "csv"],
        ["scenario", "gdps-env3", "--distance", "0..100km", "--points", "301"],  # rich's table
    ],
)
def test_a_reader_that_stops_after_one_line_ends_the_command_quietly_with_141(args: list[str], tmp_path):
    # run outside the source tree: ``python -c`` puts its working directory first on sys.path, and a
    # non-editable install's qmodel (with its formulas and casebooks) must be the one imported
    process = subprocess.Popen(
        [sys.executable, "-c", ENTRY, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={"COLUMNS": "80", "PATH": ""},
        cwd=tmp_path,
    )
    process.stdout.readline()
    process.stdout.close()  # as head -1 does
    stderr = process.stderr.read()
    assert process.wait(timeout=120) == 141
    assert stderr == b""
