"""What-if variants from a CSV, and per-transaction profiles from RMF counts."""

import io

import pytest

from qmodel.errors import InputError
from qmodel.scenario.files import resolve_scenario
from qmodel.scenario.profile import profile
from qmodel.scenario.variants import run_variants
from qmodel.tomlread import read_toml

RAW = read_toml(resolve_scenario("gdps-env2"))


def variants(text: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = run_variants(RAW, text, out, err, "gdps-env2.toml")
    return status, out.getvalue(), err.getvalue()


def test_every_good_row_is_computed_and_each_bad_row_named_with_its_row_number() -> None:
    status, out, err = variants("label,distance,path.*.subchannels\na,20km,7\nb,40km,zero\nc,70km,2\n")
    lines = out.strip().split("\n")
    assert status == 1
    assert len(lines) == 4 and lines[1].startswith("a,20km,7,") and lines[3].startswith("c,70km,2,")
    assert "row 2:" in err and "subchannels" in err and "row 1:" not in err and "row 3:" not in err


def test_a_european_export_comes_back_in_its_own_dialect() -> None:
    status, out, _ = variants("\ufeffdistance;member.*.think_time[s]\r\n40km;8,5\r\n")
    assert status == 0
    assert out.startswith("\ufeff") and out.endswith("\r\n")
    first = out.split("\r\n")[1].split(";")
    assert first[:2] == ["40km", "8,5"] and "," in first[2] and "." not in first[2]


def test_rows_that_differ_only_in_distance_give_what_the_scenario_gives() -> None:
    from qmodel.scenario import load_scenario, solve_scenario

    _, out, _ = variants("distance\n20km\n70km\n")
    g1p1_ms = [float(line.split(",")[1]) for line in out.strip().split("\n")[1:]]
    direct = solve_scenario(load_scenario(resolve_scenario("gdps-env2")), [20e3, 70e3])
    assert g1p1_ms == pytest.approx(direct.response_time[0] * 1e3, rel=1e-5)


def test_an_override_of_something_the_scenario_lacks_is_refused() -> None:
    with pytest.raises(InputError, match="G1P9"):  # a header naming no member: one error for the file
        variants("member.G1P9.terminals\n50\n")


def test_a_file_with_no_override_column_is_refused_as_a_whole() -> None:
    with pytest.raises(InputError, match="override column"):
        variants("label\nx\n")


def test_a_profile_divides_counts_by_the_transactions_of_the_same_interval() -> None:
    # Environment 3, G1P2 at 0 km: LOCK1 190k sync, GBP8 prim 21k sync + 199k async, 3394 transactions
    result = profile({"LOCK1.sync": 190e3, "GBP8P.sync": 21e3, "GBP8P.async": 199e3}, 3394)
    assert result.per_transaction["LOCK1"] == pytest.approx(55.98, abs=0.005)
    assert result.per_transaction["GBP8P"] == pytest.approx(64.82, abs=0.005)
    assert result.async_share["GBP8P"] == pytest.approx(199 / 220)


def test_a_profile_whose_parts_do_not_add_up_to_its_total_is_refused() -> None:
    with pytest.raises(InputError, match="does not add up"):
        profile({"LOCK1.sync": 190e3, "LOCK1.async": 10e3, "LOCK1.total": 150e3}, 3394)
