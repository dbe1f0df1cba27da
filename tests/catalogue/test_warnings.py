"""Sizing from an undersized start: a `warn` constraint gives the answer with a warning instead of
refusing it, in Python, in every output format of calc, and on a batch's stderr (issue 12)."""

import json

import numpy as np
import pytest
from click.testing import CliRunner

from qmodel.catalogue.evaluate import calc, evaluate
from qmodel.cli import cli
from qmodel.errors import InputError

UNDERSIZED = ["write_rate=120MB/s", "link_bandwidth=100MB/s", "links=1"]
# 163K I/Os, 56.5% reads at 95% hits, 10% destages on RAID-10: 37,205 back-end ops/s; on 61 drives of
# 240 ops/s each, 254% busy (37,204.75 / 14,640)
OVERLOADED = ["io_rate=163K", "read_fraction=56.5%", "read_hit_ratio=95%", "destage_rate=10%", "drives=61"]


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_an_undersized_link_configuration_gets_its_sizing_answer_with_a_warning() -> None:
    result = calc("link_sizing", write_rate=120, link_bandwidth=100, links=1)
    assert float(result.required_links) == 2  # 120 MB/s at 70% needs 171 MB/s: two 100 MB/s links
    assert float(result.utilization) == pytest.approx(1.2)
    (warning,) = result.warnings
    assert warning.startswith("write_rate - bandwidth = 20 MB/s, not < 0 MB/s: the backlog grows")


def test_half_the_bandwidth_lost_still_sizes_the_links() -> None:
    result = calc("link_sizing", write_rate=120, link_bandwidth=100, links=2, available_fraction=0.5)
    assert float(result.required_links) == 4  # 171 MB/s from links giving 50 MB/s each
    assert result.warnings


def test_a_configuration_that_keeps_up_has_no_warning() -> None:
    assert calc("link_sizing", write_rate=100, link_bandwidth=100, links=4).warnings == []


def test_calc_prints_the_table_then_the_warning_as_a_line_of_its_own_and_exits_1() -> None:
    """The answer stands (required_links), the state it describes does not last: a line on stderr,
    left-aligned, and exit status 1 (issue 34: it was a centred caption, exit 0)."""
    result = run("calc", "link_sizing", *UNDERSIZED)
    assert result.exit_code == 1
    assert result.stderr.startswith("warning: write_rate - bandwidth = 20 MB/s")
    assert "required_links" in result.stdout and "warning" not in result.stdout


def test_calc_json_carries_the_warnings() -> None:
    payload = json.loads(run("calc", "link_sizing", *UNDERSIZED, "--format", "json").stdout)
    assert payload["outputs"]["required_links"]["value"] == 2
    assert payload["warnings"][0].startswith("write_rate - bandwidth = 20 MB/s")


def test_calc_csv_keeps_the_numbers_and_warns_on_stderr() -> None:
    result = run("calc", "link_sizing", *UNDERSIZED, "--format", "csv")
    assert "warning" not in result.stdout
    assert result.stderr.startswith("warning: write_rate - bandwidth")


def test_overloaded_drives_are_warned_about() -> None:
    result = run("calc", "backend_load", *OVERLOADED, "--format", "json")
    assert result.exit_code == 1
    payload = json.loads(result.stdout)
    assert payload["outputs"]["drive_utilization"]["value"] == pytest.approx(37204.75 / (61 * 240))
    assert payload["warnings"][0].startswith(
        "drive_utilization = 254.131%, not < 100%: the drives are overloaded"
    )


def test_a_batch_computes_warned_rows_names_them_on_stderr_and_exits_1_as_calc_does(tmp_path) -> None:
    rows = tmp_path / "links.csv"
    rows.write_text(
        "write_rate,link_bandwidth,links,available_fraction\n120,100,1,1\n100,100,4,1\n120,100,2,50%\n",
        encoding="utf-8",
    )
    result = run("batch", "link_sizing", str(rows))
    assert result.exit_code == 1  # computed and written, but the state a warned row describes does not last
    assert result.stdout.splitlines()[1].split(",")[-2] == "2"  # required_links of the first data row
    warned = [line for line in result.stderr.splitlines() if "warning" in line]
    assert [line.split(":")[1].strip() for line in warned] == ["row 2", "row 4"]  # the header is row 1
    assert result.stderr.splitlines()[-1] == "link_sizing: 3 rows computed, 0 failed, 2 warned"


def test_a_batch_without_a_warning_or_a_failure_exits_0(tmp_path) -> None:
    rows = tmp_path / "links.csv"
    rows.write_text("write_rate,link_bandwidth,links,available_fraction\n100,100,4,1\n", encoding="utf-8")
    result = run("batch", "link_sizing", str(rows))
    assert result.exit_code == 0 and "warned" not in result.stderr


def test_warnings_are_per_row_and_only_for_computed_rows() -> None:
    rates = np.array([120.0, 50.0, -1.0])
    evaluation = evaluate("link_sizing", {"write_rate": rates, "link_bandwidth": 100.0, "links": 1})
    assert set(evaluation.warnings) == {0}
    assert set(evaluation.errors) == {2}


def test_a_refusing_constraint_still_refuses() -> None:
    with pytest.raises(InputError, match="unstable"):
        calc("mm1", arrival_rate=1000, service_time=1.0)
