"""A default that is an estimate, clipped to the room the file's own times leave it (trial 6, M3).

A file read at a distance that takes crossing_latency's default: the band samples the default's normal
(the GDPS study's 95% interval), but where its upper node would make a cross-site time the file measured
less than the round trips alone, the interval is clipped at the largest value those times leave room for
and sampled over what is left (the truncated normal's mean and variance), never dropped whole; the
words say it was clipped, at what bound and by which time, and never call the default the file's.
"""

import json
import re

import numpy as np
import pytest
from click.testing import CliRunner
from scipy.stats import truncnorm

from qmodel.cli import cli
from qmodel.scenario.band import ROOM_TOLERANCE, estimated_defaults, load_banded, within_room
from qmodel.scenario.files import resolve_scenario
from qmodel.scenario.propagation import at_zero_km
from qmodel.scenario.spec import ScenarioError, read_scenario_toml, scenario_from_dict

ENV2 = resolve_scenario("gdps-env2")
BAND_TABLE = re.compile(r"^\[band\]\n(?:(?!\[).*\n)*", re.MULTILINE)
MEASURED = 300e-6  # s: the cross-site link's sync and async service, read at 12 km
AT = 12e3  # m


def read_at_12km(tmp_path, service: str = "300us", pprc: str = "0.3ms"):
    """Environment 2 without its [band] or crossing_latency, its cross-site link times (``service``) and
    PPRC overhead read at 12 km."""
    text = BAND_TABLE.sub("", ENV2.read_text(encoding="utf-8"))
    text = re.sub(r"(?m)^crossing_latency = .*\n", "", text).replace(
        'measured_at = "0km"', 'measured_at = "12km"', 1
    )
    text = re.sub(r'(?m)^(a?sync) = \{ cache = "\d+us" \}', rf'\1 = {{ cache = "{service}" }}', text)
    text = text.replace('pprc_overhead = "0.3ms"', f'pprc_overhead = "{pprc}"', 1)
    path = tmp_path / "read-at-12km.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_room_is_the_measured_time_less_the_fibre_and_the_one_rule_agrees(tmp_path) -> None:
    path = read_at_12km(tmp_path)
    raw = read_scenario_toml(path)
    (estimate,) = estimated_defaults(scenario_from_dict(raw, path.name))
    clipped = within_room(raw, path.name, estimate)
    fibre = 2 * AT / scenario_from_dict(raw, path.name).fibre_speed  # s: the round trip of 12 km of fibre
    assert clipped.room == pytest.approx((MEASURED - fibre) * 1e6, abs=ROOM_TOLERANCE)
    # at_zero_km, the rule that refuses a time below the round trips, holds the room and refuses past it
    for value, holds in ((clipped.room, True), (clipped.room + 2 * ROOM_TOLERANCE, False)):
        data = dict(raw, crossing_latency=f"{value}us")
        if holds:
            at_zero_km(scenario_from_dict(data, path.name))
        else:
            with pytest.raises(ScenarioError, match="less than the round trips alone"):
                at_zero_km(scenario_from_dict(data, path.name))


def test_the_clipped_interval_is_sampled_at_its_truncated_normals_mean_and_spread(tmp_path) -> None:
    path = read_at_12km(tmp_path)
    banded = load_banded(path)
    (estimate,) = estimated_defaults(banded.scenario)
    clipped = within_room(read_scenario_toml(path), path.name, estimate)
    nodes = sorted({point.crossing_latency for point in banded.points})
    assert len(nodes) == 2 and max(nodes) < clipped.room * 1e-6  # both nodes within the room
    mu, sigma = estimate.middle, estimate.sd
    cut = truncnorm(-mu / sigma, (clipped.room - mu) / sigma, loc=mu, scale=sigma)
    assert np.mean(nodes) * 1e6 == pytest.approx(cut.mean(), rel=1e-5)
    assert np.std(nodes) * 1e6 == pytest.approx(cut.std(), rel=1e-5)
    weights = np.array(banded.weights)
    for node in nodes:  # the default's nodes share the weight equally
        assert weights[[point.crossing_latency == node for point in banded.points]].sum() == pytest.approx(
            0.5
        )


def test_the_words_say_it_was_clipped_at_what_bound_by_which_time_and_whose_the_value_is(tmp_path) -> None:
    path = read_at_12km(tmp_path)
    method = load_banded(path).method
    assert (
        "crossing_latency 138 ± 42.3us (normal: the default's 95% interval, 55 to 221us), clipped at "
        in method
    )
    assert re.search(
        r"clipped at 159\.9us, the largest the file's own times leave room for \(above it, "
        r"link\.\w+\.sync\.cache = 300 µs measured at 12 km",
        method,
    )
    assert "not varied" not in method and "the file's)" not in method
    seek = CliRunner().invoke(cli, ["scenario", str(path), "--max-distance", "--format", "json"])
    assert seek.exit_code == 0, seek.output
    answer = json.loads(seek.output)
    assert "clipped at 159.9us" in answer["band"]["method"]
    assert answer["max_distance_low[km]"] <= answer["max_distance[km]"] <= answer["max_distance_high[km]"]


def test_times_that_hold_the_whole_interval_leave_the_estimate_unclipped(tmp_path) -> None:
    path = read_at_12km(tmp_path, "400us", "0.5ms")  # room 260 us, past the upper node 180.3 us
    raw = read_scenario_toml(path)
    (estimate,) = estimated_defaults(scenario_from_dict(raw, path.name))
    assert within_room(raw, path.name, estimate) == estimate
    assert "clipped" not in load_banded(path).method
