"""Castout ownership (Environment 1): the owner's reads queue behind its castout writes, and which member
owns castout is a fact of the run the casebook gives (the study prints the owner in bold)."""

from dataclasses import replace

import numpy as np
import pytest

import qmodel.validation.quantities  # noqa: F401  (registers the scenario function the casebook calls)
from qmodel.catalogue.registry import call
from qmodel.errors import InputError
from qmodel.scenario import load_scenario, solve_scenario
from qmodel.scenario.files import resolve_scenario
from qmodel.scenario.overrides import with_castout_owner

ENV1 = load_scenario(resolve_scenario("gdps-env1"))
ENV2 = load_scenario(resolve_scenario("gdps-env2"))
KM = np.array([0.0, 20e3, 70e3])


def test_the_owner_pays_the_read_iosq_and_the_other_member_does_not() -> None:
    # sync reads × castout_iosq × the castout write's response: moved from G1P1 to G1P2 whole
    as_filed = solve_scenario(ENV1, KM).breakdown["sync_io"]
    swapped = solve_scenario(with_castout_owner(ENV1, "G1P2"), KM).breakdown["sync_io"]
    reads = np.array([m.sync_reads for m in ENV1.members])[:, None]
    per_read = as_filed / reads
    assert (per_read[0] > per_read[1]).all()  # G1P1 owns in the file
    assert np.allclose(swapped / reads, per_read[::-1], rtol=1e-12)


def test_naming_the_files_own_owner_changes_nothing() -> None:
    same = solve_scenario(with_castout_owner(ENV1, ENV1.castout_owner), KM)
    assert np.array_equal(same.response_time, solve_scenario(ENV1, KM).response_time)


@pytest.mark.parametrize(
    ("scenario", "owner", "allowed"),
    [
        (ENV1, "G1P3", "one of G1P1, G1P2"),
        (ENV2, "G1P1", "the scenario names no castout owner"),
    ],
)
def test_an_owner_the_scenario_cannot_take_is_refused(scenario, owner, allowed) -> None:
    with pytest.raises(InputError, match=allowed):
        with_castout_owner(scenario, owner)


def test_a_casebook_row_naming_the_owner_gets_what_the_scenario_key_gives() -> None:
    row = {"scenario": "gdps-env1", "member": "G1P2", "distance": "20km"}
    filed = call("scenario", row)
    owner = call("scenario", {**row, "castout_owner": "G1P2"})
    keyed = solve_scenario(replace(ENV1, castout_owner="G1P2"), np.array([20e3]))
    assert owner["response_time"] == keyed.response_time[1, 0] > filed["response_time"]
