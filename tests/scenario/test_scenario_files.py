"""Scenario files by name: Python takes the shipped names the CLI takes (issue 23)."""

import pytest

from qmodel.errors import InputError
from qmodel.scenario.files import resolve_scenario, shipped_scenarios
from qmodel.scenario.spec import load_scenario


@pytest.mark.parametrize("name", sorted(shipped_scenarios()))
def test_load_scenario_takes_a_shipped_name_as_the_cli_does(name):
    assert repr(load_scenario(name)) == repr(load_scenario(shipped_scenarios()[name]))


def test_load_scenario_still_takes_a_path(tmp_path):
    copy = tmp_path / "mine.toml"
    copy.write_text(shipped_scenarios()["gdps-env1"].read_text(encoding="utf-8"), encoding="utf-8")
    assert repr(load_scenario(copy)) == repr(load_scenario("gdps-env1"))
    assert resolve_scenario(str(copy)) == copy


def test_an_unknown_name_lists_the_shipped_ones():
    with pytest.raises(InputError, match="gdps-env1, gdps-env2, gdps-env3"):
        load_scenario("gdps-env9")
