"""A fit file ``qmodel scenario calibrate`` writes is always one the next ``qmodel scenario FILE`` reads:
every fitted value lies in what the schema allows for its key, and an error in a value read from the fit
file names the fit file and how to redo or remove it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qmodel.errors import InputError
from qmodel.scenario.files import fit_path, resolve_scenario
from qmodel.scenario.fit import FREE_KEYS, Fit, fit_toml, free_parameters
from qmodel.scenario.spec import load_scenario

SHIPPED = "gdps-env1"  # a file with every kind of free key: members, conversion, distribution, disk
SCENARIO = load_scenario(SHIPPED)
EVERY_KEY = free_parameters(SCENARIO, [k.replace("member.", "member.*.") for k in FREE_KEYS])


def fit_at(values: dict[str, float]) -> Fit:
    """A fit with ``values`` (SI) of every free key and no rows: what fit_toml writes of any fit."""
    x = np.array([p.to_scale(p.admissible(values[p.key])) for p in EVERY_KEY])
    empty = np.empty(0)
    covariance = np.eye(len(x)) * 1e-6
    return Fit(EVERY_KEY, x, covariance, (), empty, empty, np.empty((0, len(x))), SCENARIO)


def written_and_read(folder: Path, fit: Fit):
    path = folder / "mine.toml"
    path.write_text(resolve_scenario(SHIPPED).read_text(encoding="utf-8"), encoding="utf-8")
    fit_path(path).write_text(fit_toml(fit, path.name, "measured.csv"), encoding="utf-8")
    return load_scenario(path)


@pytest.mark.parametrize("end", ["low", "high"])
def test_every_free_key_at_either_bound_writes_a_file_the_next_reading_takes(
    tmp_path: Path, end: str
) -> None:
    written_and_read(tmp_path, fit_at({p.key: getattr(p, end) for p in EVERY_KEY}))


@settings(max_examples=25, deadline=None)
@given(st.floats(min_value=-30, max_value=0.0))
def test_a_value_within_rounding_of_a_bound_is_written_as_one_the_file_takes(tmp_path_factory, power) -> None:
    """3.55e-15 s of `other` (a fit ending at its bound 0, within the solver's rounding) is no time a file
    takes (from 1e-12 s): it is written as 0; every key alike, at its low and high end."""
    folder = tmp_path_factory.mktemp("fit")
    near = {}
    for p in EVERY_KEY:
        span = p.high - p.low
        near[p.key] = p.low + span * 10**power if power < 0 else p.high - span * 1e-15
    read = written_and_read(folder, fit_at(near))
    assert read.members[0].other == 0 or read.members[0].other >= 1e-12


def test_the_fits_own_value_is_snapped_not_only_its_text() -> None:
    other = next(p for p in EVERY_KEY if p.key.endswith(".other"))
    assert other.from_scale(3.55369e-15) == 0.0
    assert other.from_scale(0.9e-12) == other.floor == 1e-12
    assert other.from_scale(4e-3) == 4e-3


def test_a_bad_value_in_the_fit_file_names_the_fit_file_and_how_to_redo_or_remove_it(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(resolve_scenario(SHIPPED).read_text(encoding="utf-8"), encoding="utf-8")
    name = SCENARIO.members[0].name
    fit_path(path).write_text(f'[[member]]\nname = {json.dumps(name)}\nother = "-3ms"\n', encoding="utf-8")
    with pytest.raises(InputError) as error:
        load_scenario(path)
    message = str(error.value)
    assert message.startswith("mine.fit.toml: ") and "other" in message
    assert "qmodel scenario calibrate mine.toml" in message and "delete mine.fit.toml" in message
