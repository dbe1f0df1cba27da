"""Nothing lost (issue 33): every output file is written whole or not at all, never over an input, one run
at a time, and the exit status says what happened (qmodel/outfile.py, qmodel/errors.py)."""

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from qmodel.cli import cli
from qmodel.errors import InputError
from qmodel.outfile import LOCK_SUFFIX, TEMP_SUFFIX, claim_output
from qmodel.tables.workbook import write_workbook

QMODEL = [sys.executable, "-c", "from qmodel.cli import main; main()"]
ROWS = "arrival_rate,service_time\n800,1ms\n400,1ms\n"


def run(*args):
    return CliRunner().invoke(cli, [str(arg) for arg in args])


def leftovers(folder: Path) -> list[str]:
    """Temporary or lock files a run left in ``folder``."""
    return sorted(path.name for path in folder.iterdir() if path.name.endswith((TEMP_SUFFIX, LOCK_SUFFIX)))


def one_line(result, status: int = 2) -> str:
    assert result.exit_code == status, result.output
    assert "Traceback" not in result.output and result.output.count("\n") == 1, result.output
    return result.output


# ----- never over an input ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["plan.csv", "plan.xlsx"])
@pytest.mark.parametrize("how", ["same name", "symbolic link", "hard link", "another spelling"])
def test_an_output_that_is_the_input_is_refused_naming_both_and_the_input_is_kept(tmp_path, name, how):
    source = tmp_path / name
    if name.endswith(".csv"):
        source.write_text(ROWS, encoding="utf-8")
    else:
        write_workbook(
            str(source),
            [
                ("plan", [["arrival_rate", 800.0], ["service_time", 1.0]]),
                ("notes", [["kept", "a second sheet"]]),
            ],
        )
    before = source.read_bytes()
    spelt = {"same name": source, "another spelling": tmp_path / "." / name}
    target = spelt.get(how, tmp_path / f"link-{name}")
    if how == "symbolic link":
        target.symlink_to(source)
    elif how == "hard link":
        os.link(source, target)
    message = one_line(run("batch", "mm1", source, "-o", target))
    assert f"-o = {target}" in message and f"the input {source}" in message and "OTHER-FILE" in message
    assert source.read_bytes() == before and leftovers(tmp_path) == []


def test_variants_written_over_the_scenario_file_or_the_variants_file_are_refused(tmp_path):
    scenario = tmp_path / "base.toml"
    shipped = Path(__file__).parents[1] / "casebooks" / "scenarios" / "gdps-env2.toml"
    scenario.write_bytes(shipped.read_bytes())
    variants = tmp_path / "v.csv"
    variants.write_text("distance\n20km\n", encoding="utf-8")
    (tmp_path / "v-link.csv").symlink_to(variants)
    before = scenario.read_bytes()
    for target in (scenario, variants, tmp_path / "v-link.csv"):
        message = one_line(run("scenario", scenario, "--variants", variants, "-o", target))
        assert f"-o = {target}" in message and "the input" in message
    assert scenario.read_bytes() == before and variants.read_text(encoding="utf-8") == "distance\n20km\n"


def test_a_claim_checks_every_input_and_allows_standard_output(tmp_path):
    first, second = tmp_path / "a.csv", tmp_path / "b.csv"
    first.write_text("x", encoding="utf-8")
    second.write_text("y", encoding="utf-8")
    with pytest.raises(InputError, match=r"the input .*b\.csv"):
        claim_output("-o", str(second), inputs=[first, second])
    claim_output("-o", "-", inputs=[first]).release()


# ----- whole or not at all ----------------------------------------------------------------------------


def test_a_write_that_fails_midway_leaves_the_previous_file_and_no_partial_one(tmp_path):
    target = tmp_path / "results.csv"
    target.write_text("the previous results\n", encoding="utf-8")
    claim = claim_output("-o", str(target))
    with pytest.raises(RuntimeError), claim.open() as handle:
        handle.write(b"half a row,")
        raise RuntimeError("the run stops here")
    assert target.read_text(encoding="utf-8") == "the previous results\n" and leftovers(tmp_path) == []


def test_a_completed_write_replaces_the_file_keeps_its_permissions_and_follows_a_link(tmp_path):
    real, link = tmp_path / "real.csv", tmp_path / "link.csv"
    real.write_text("old\n", encoding="utf-8")
    real.chmod(0o640)
    link.symlink_to(real)
    claim_output("-o", str(link)).write(b"new\n")
    assert link.is_symlink() and real.read_text(encoding="utf-8") == "new\n"
    assert stat.S_IMODE(real.stat().st_mode) == 0o640 and leftovers(tmp_path) == []


def test_a_device_is_written_straight_through_not_replaced():
    claim_output("-o", os.devnull).write(b"nothing kept\n")
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_a_second_run_writing_the_same_target_is_refused_until_the_first_is_done(tmp_path):
    target = tmp_path / "out.xlsx"
    first = claim_output("-o", str(target))
    with pytest.raises(InputError, match="another qmodel run is writing it"):
        claim_output("-o", str(tmp_path / "." / "out.xlsx"))
    first.write(b"done")
    claim_output("-o", str(target)).release()
    assert leftovers(tmp_path) == []


def test_an_unwritable_folder_is_one_line_naming_the_option(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root writes anywhere")
    folder = tmp_path / "read-only"
    folder.mkdir()
    source = tmp_path / "in.csv"
    source.write_text(ROWS, encoding="utf-8")
    folder.chmod(0o500)
    try:
        assert "-o = " in one_line(run("batch", "mm1", source, "-o", folder / "out.csv"))
    finally:
        folder.chmod(0o700)


# ----- the exit status says what happened --------------------------------------------------------------


def started(process: subprocess.Popen, folder: Path) -> None:
    """Wait until the run has claimed its output (its lock file is there): it is past its start-up and
    its signal handlers are in place."""
    for _ in range(1200):
        if any(path.name.endswith(LOCK_SUFFIX) for path in folder.iterdir()) or process.poll() is not None:
            return
        time.sleep(0.05)


def big_input(folder: Path, rows: int = 400_000) -> Path:
    source = folder / "big.csv"
    source.write_text("arrival_rate,service_time\n" + "800,1\n" * rows, encoding="utf-8")
    return source


@pytest.mark.parametrize(("signal_number", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
@pytest.mark.parametrize("suffix", [".csv", ".xlsx"])
def test_an_interrupted_batch_keeps_the_previous_output_and_says_it_was_interrupted(
    tmp_path, signal_number, status, suffix
):
    source, target = big_input(tmp_path), tmp_path / f"out{suffix}"
    target.write_bytes(b"the previous results")
    process = subprocess.Popen(
        [*QMODEL, "batch", "mm1", str(source), "-o", str(target)], stderr=subprocess.PIPE, cwd=tmp_path
    )
    started(process, tmp_path)
    process.send_signal(signal_number)
    stderr = process.communicate(timeout=120)[1].decode()
    if process.returncode == 0:
        pytest.skip("the run ended before the signal came")
    assert process.returncode == status and "interrupted" in stderr and "Traceback" not in stderr
    assert target.read_bytes() == b"the previous results" and leftovers(tmp_path) == []


def test_a_killed_batch_leaves_the_previous_output_whole(tmp_path):
    source, target = big_input(tmp_path), tmp_path / "out.csv"
    target.write_bytes(b"the previous results")
    process = subprocess.Popen(
        [*QMODEL, "batch", "mm1", str(source), "-o", str(target)], stderr=subprocess.DEVNULL, cwd=tmp_path
    )
    started(process, tmp_path)
    process.kill()
    if process.wait(timeout=60) == 0:
        pytest.skip("the run ended before it was killed")
    assert target.read_bytes() == b"the previous results"  # never a file cut mid-line under its name


@pytest.mark.parametrize(
    "command",
    [
        ["batch", "mm1", "{big}"],
        ["scenario", "gdps-env2", "--variants", "{variants}"],
        ["mva", "--demand", "5ms,8ms", "--population", "1..200000", "--format", "csv"],
    ],
)
def test_a_reader_that_leaves_early_is_never_success(tmp_path, command):
    big = big_input(tmp_path, 100_000)
    variants = tmp_path / "v.csv"
    variants.write_text("distance\n" + "".join(f"{d / 10}km\n" for d in range(1, 2000)), encoding="utf-8")
    args = [part.format(big=big, variants=variants) for part in command]
    process = subprocess.Popen(
        [*QMODEL, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "COLUMNS": "80"},
        cwd=tmp_path,
    )
    process.stdout.read(10)
    process.stdout.close()
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=300) == 141, stderr
    assert "Traceback" not in stderr
