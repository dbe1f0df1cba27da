"""Scenario files: every value read with its unit, every mistake one line naming the key."""

import pytest

from qmodel.errors import InputError
from qmodel.scenario.files import resolve_scenario, shipped_scenarios
from qmodel.scenario.spec import load_scenario, parse_distances

GDPS = resolve_scenario("gdps-env2")


def broken(tmp_path, old: str, new: str):
    text = GDPS.read_text(encoding="utf-8")
    assert old in text, old
    path = tmp_path / "broken.toml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


def test_the_three_gdps_environments_ship_as_scenarios() -> None:
    assert {"gdps-env1", "gdps-env2", "gdps-env3"} <= set(shipped_scenarios())


def test_values_are_read_in_si_units() -> None:
    scenario = load_scenario(GDPS)
    assert scenario.goal_time == pytest.approx(0.125)
    assert scenario.goal_share == pytest.approx(0.9)
    assert scenario.distances.tolist() == pytest.approx([0, 20e3, 40e3, 70e3, 100e3])
    assert scenario.links["g1p1_cf1"]["sync"]["lock"] == pytest.approx(6.8e-6)


@pytest.mark.parametrize(("old", "new", "key"), [
    ('think_time = "8.7909s"', "think_time = 8.7909", "think_time"),                 # units missing
    ('think_time = "8.7909s"', 'think_time = "8.7909"', "think_time"),               # quoted, units missing
    ('distance = ["0km", "20km", "40km", "70km", "100km"]', 'distance = "-20km"', "distance"),
    ('member = "G1P2"\ncf = "CF1"', 'member = "G1P3"\ncf = "CF1"', "member"),         # missing member
    ("requests = { LOCK1 = 54.40,", "requests = { LOCK9 = 54.40,", "LOCK9"),          # unknown structure
    ('share = "90%"', 'share = "130%"', "goal.share"),
    ("logical_cps = 8", "logical_cps = 0", "logical_cps"),
    ('lockable_items = ', 'lockable_item = ', "lockable_item"),                       # a misspelt key
    ('sync = { lock = "6.8us", cache = "9.4us" }', 'sync = { lock = "-6.8us", cache = "9.4us" }',
     "sync.lock"),
])
def test_a_bad_scenario_file_is_one_error_naming_the_key(tmp_path, old, new, key) -> None:
    with pytest.raises(InputError) as error:
        load_scenario(broken(tmp_path, old, new))
    assert key in str(error.value)
    assert "\n" not in str(error.value)


def test_a_missing_scenario_file_is_an_input_error(tmp_path) -> None:
    with pytest.raises(InputError, match="no such file"):
        load_scenario(tmp_path / "absent.toml")


def test_distances_typed_at_the_terminal_take_lists_ranges_and_units() -> None:
    assert parse_distances("70km").tolist() == [70e3]
    assert parse_distances("20,40,70km").tolist() == [20e3, 40e3, 70e3]
    assert parse_distances("0..100km", points=11).tolist() == pytest.approx([i * 10e3 for i in range(11)])


@pytest.mark.parametrize("text", ["-5km", "100..0km", "", "70 parsecs"])
def test_bad_distances_are_refused(text) -> None:
    with pytest.raises(InputError):
        parse_distances(text)


def test_a_table_written_where_tables_are_needed_says_double_brackets() -> None:
    from qmodel.scenario.spec import scenario_from_dict
    from qmodel.tomlread import read_toml

    data = read_toml(GDPS)
    data["cf"] = data["cf"][0]                      # [cf] written for [[cf]]
    with pytest.raises(InputError, match=r"cf = .*\[\[cf\]\] tables \(double brackets\)"):
        scenario_from_dict(data, "broken.toml")
