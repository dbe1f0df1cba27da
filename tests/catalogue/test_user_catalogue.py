"""A planner's own catalogue file: used like a shipped entry by every command, compiled once and cached."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from qmodel.catalogue.evaluate import calc
from qmodel.catalogue.user import cache_dir, use_catalogues
from qmodel.cli import cli
from qmodel.errors import CatalogueError, InputError

RANKS = Path(__file__).with_name("data") / "ranks.toml"
ENTRY = """
[[formula]]
id = "{id}"
title = "t"
source = "s"
{extra}
[formula.symbols.arrival_rate]
shared = "arrival_rate"

[formula.symbols.service_time]
shared = "service_time"

[[formula.outputs]]
name = "utilization"
expr = "arrival_rate*service_time"
unit = "ratio"
meaning = "m"

[[formula.properties]]
kind = "increasing"
output = "utilization"
symbol = "arrival_rate"
"""


def write(tmp_path: Path, text: str, name: str = "mine.toml") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def run(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(cli, list(args), env=env)


def test_a_user_entry_calls_a_shipped_function_entry() -> None:
    use_catalogues([str(RANKS)])
    result = calc("rank_host_io", read_share=0.7, raid_level=5)
    # RAID-5: WritePenalty 4; 0.7 reads + 0.3 × 4 writes = 1.9 drive operations per host I/O;
    # 8 drives × 180 ops/s × 50% busy = 720 drive operations per second per rank
    assert float(result.write_penalty) == 4
    assert float(result.host_io_per_rank) == pytest.approx(720 / 1.9)


def test_a_user_entry_answers_in_every_command_taking_a_formula_id(tmp_path) -> None:
    shown = run("calc", "rank_host_io", "read_share=70%", "--catalogue", str(RANKS), "--format", "json")
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.output)["outputs"]["host_io_per_rank"]["value"] == pytest.approx(720 / 1.9)
    solved = run(
        "solve",
        "rank_host_io",
        "host_io_per_rank=500",
        "--for",
        "read_share",
        "--catalogue",
        str(RANKS),
        "--format",
        "json",
    )
    assert solved.exit_code == 0, solved.output
    swept = run("sweep", "rank_host_io", "read_share=0..1", "--steps", "3", "--catalogue", str(RANKS))
    assert swept.exit_code == 0, swept.output
    rows = tmp_path / "ranks.csv"
    rows.write_text("read_share,raid_level\n70%,5\n50%,10\n", encoding="utf-8")
    batch = run("batch", "rank_host_io", str(rows), "--catalogue", str(RANKS))
    assert batch.exit_code == 0, batch.output
    assert "host_io_per_rank[1/s]" in batch.output
    show = run("formula", "show", "rank_host_io", "--catalogue", str(RANKS))
    assert show.exit_code == 0 and "WritePenalty" in show.output


def test_the_environment_variable_names_catalogue_files() -> None:
    result = run("calc", "rank_host_io", "read_share=70%", env={"QMODEL_CATALOGUE": str(RANKS)})
    assert result.exit_code == 0, result.output
    assert "host_io_per_rank" in result.output


def test_an_id_of_the_shipped_catalogue_is_refused_without_override(tmp_path) -> None:
    path = write(tmp_path, ENTRY.format(id="mm1", extra=""))
    with pytest.raises(
        CatalogueError,
        match=r"mine.toml: formula 'mm1': the shipped catalogue has this id; "
        r"write override = true",
    ):
        use_catalogues([path])


def test_an_entry_that_says_it_overrides_replaces_the_shipped_one(tmp_path) -> None:
    use_catalogues([write(tmp_path, ENTRY.format(id="mm1", extra="override = true\n"))])
    result = calc("mm1", arrival_rate=500, service_time=1.0)
    assert set(result.outputs) == {"utilization"}


def test_a_shipped_function_entry_is_never_overridden(tmp_path) -> None:
    path = write(tmp_path, ENTRY.format(id="raid_write_penalty", extra="override = true\n"))
    with pytest.raises(CatalogueError, match="the shipped entry is the function WritePenalty"):
        use_catalogues([path])


def test_an_override_of_nothing_is_refused(tmp_path) -> None:
    with pytest.raises(CatalogueError, match="the shipped catalogue has no entry 'mine'"):
        use_catalogues([write(tmp_path, ENTRY.format(id="mine", extra="override = true\n"))])


def test_the_same_id_in_two_user_files_names_both(tmp_path) -> None:
    first = write(tmp_path, ENTRY.format(id="mine", extra=""), "a.toml")
    second = write(tmp_path, ENTRY.format(id="mine", extra=""), "b.toml")
    with pytest.raises(CatalogueError, match=r"b.toml: formula 'mine': duplicate id \(also in .*a.toml\)"):
        use_catalogues([first, second])


def test_a_user_function_entry_is_called_by_another_user_entry(tmp_path) -> None:
    doubled = """
[[formula]]
id = "doubled_wait"
title = "t"
source = "s"
function = "DoubledWait"

[formula.symbols.service_time]
shared = "service_time"

[[formula.outputs]]
name = "wait"
expr = "2*service_time"
unit = "ms"
meaning = "m"

[[formula.properties]]
kind = "increasing"
output = "wait"
symbol = "service_time"

[[formula]]
id = "uses_it"
title = "t"
source = "s"

[formula.symbols.service_time]
shared = "service_time"

[[formula.outputs]]
name = "total"
expr = "DoubledWait(service_time) + service_time"
unit = "ms"
meaning = "m"

[[formula.properties]]
kind = "increasing"
output = "total"
symbol = "service_time"
"""
    use_catalogues([write(tmp_path, doubled)])
    assert float(calc("uses_it", service_time=2.0).total) == pytest.approx(6.0)


def test_a_missing_catalogue_file_is_a_one_line_error() -> None:
    result = run("calc", "mm1", "arrival_rate=1", "service_time=1ms", "--catalogue", "no-such.toml")
    assert result.exit_code == 2
    assert result.output.strip() == (
        "error: catalogue = no-such.toml (no such file); allowed: an existing file"
    )


def test_a_unit_mismatch_stops_the_command_before_it_runs(tmp_path) -> None:
    text = ENTRY.format(id="mine", extra="").replace('unit = "ratio"', 'unit = "ms"')
    result = run("calc", "mine", "arrival_rate=1", "service_time=1ms", "--catalogue", write(tmp_path, text))
    assert result.exit_code == 2
    assert "formula 'mine', output 'utilization': declared in ms" in result.output


def test_a_damaged_cache_file_is_compiled_again() -> None:
    use_catalogues([str(RANKS)])
    (cached,) = cache_dir().glob("catalogue-*.py")
    cached.write_text("this is not python", encoding="utf-8")
    use_catalogues([str(RANKS)])
    assert "def rank_host_io" in cached.read_text(encoding="utf-8")


def test_an_unknown_id_lists_the_user_entries_too() -> None:
    use_catalogues([str(RANKS)])
    with pytest.raises(InputError, match="rank_host_io"):
        calc("rank_hostio", read_share=0.5)


def test_a_compiled_user_catalogue_adds_no_sympy_to_a_quick_answer(tmp_path) -> None:
    script = (
        "import sys\n"
        "from qmodel.cli import main\n"
        f"sys.argv = ['qmodel', 'calc', 'rank_host_io', 'read_share=70%', '--catalogue', {str(RANKS)!r}]\n"
        "try:\n    main()\nexcept SystemExit as done:\n    assert done.code == 0, done.code\n"
        "heavy = sorted(m for m in sys.modules\n"
        "               if m.split('.')[0] in ('sympy', 'scipy', 'numba', 'hypothesis'))\n"
        "print('HEAVY', heavy)\n"
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    command = [sys.executable, "-c", script]
    # run outside the source tree, so that the installed qmodel answers (as a planner's shell would)
    first = subprocess.run(command, capture_output=True, text=True, check=True, env=env, cwd=tmp_path)
    assert "HEAVY ['sympy" in first.stdout  # the first use compiles the file
    again = subprocess.run(command, capture_output=True, text=True, check=True, env=env, cwd=tmp_path)
    assert "HEAVY []" in again.stdout, again.stdout


def test_an_edited_file_is_compiled_again_in_the_same_cache_file(tmp_path) -> None:
    path = write(tmp_path, ENTRY.format(id="mine", extra=""))
    use_catalogues([path])
    assert float(calc("mine", arrival_rate=500, service_time=1.0).utilization) == pytest.approx(0.5)
    write(
        tmp_path,
        ENTRY.format(id="mine", extra="").replace("arrival_rate*service_time", "2*arrival_rate*service_time"),
    )
    use_catalogues([path])
    assert float(calc("mine", arrival_rate=500, service_time=1.0).utilization) == pytest.approx(1.0)
    assert len(list(cache_dir().glob("catalogue-*.py"))) == 1


def test_a_toml_file_nested_beyond_reading_is_a_catalogue_error(tmp_path) -> None:
    path = write(tmp_path, "a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(CatalogueError, match="nested too deeply"):
        use_catalogues([path])


def test_a_file_larger_than_any_catalogue_is_refused_before_it_is_read(tmp_path, monkeypatch) -> None:
    import qmodel.catalogue.user as user

    monkeypatch.setattr(user, "MAX_FILE_BYTES", 100)
    with pytest.raises(InputError, match=r"longer than 100 bytes\); allowed: a readable TOML file up to 100"):
        use_catalogues([str(RANKS)])


def test_every_unit_the_loader_accepts_has_realistic_values_to_check_with() -> None:
    from qmodel.catalogue.strategies import realistic_range
    from qmodel.units import UNITS

    for unit in UNITS:
        low, high = realistic_range(unit)
        assert 0 < low < high, unit
