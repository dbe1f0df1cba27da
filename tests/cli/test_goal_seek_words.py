"""The goal seek's words give one figure for one quantity (trial 8, P10: "(80%: it fails at 0 km in 90%
of the outcomes or more)" and, two sentences later, "the goal fails at 0 km in over 99% of the
outcomes")."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from qmodel.cli.scenario import _band_words, _low_end_words
from qmodel.scenario.band import GoalBand
from qmodel.scenario.goal import GoalSeek

NBSP = "\N{NO-BREAK SPACE}"


def test_a_band_at_0_km_at_both_ends_says_the_share_failing_there_once() -> None:
    sought = SimpleNamespace(low=0.0, high=50.0, near_zero=(0.995, 0.995))
    said = _band_words(sought.low, sought.high, 100e3, 0.8, sought.near_zero[0])
    assert said == f"it fails at 0{NBSP}km in over{NBSP}99% of the outcomes"
    assert _low_end_words(sought, 35e-6) == ""  # said in the band's words: not again


def test_without_the_share_the_band_at_0_km_says_what_its_level_gives() -> None:
    assert _band_words(0.0, 50.0, 100e3, 0.8) == f"it fails at 0{NBSP}km in 90% of the outcomes or more"


def test_the_first_metres_share_is_still_said_beside_a_band_at_0_km() -> None:
    sought = SimpleNamespace(low=0.0, high=50.0, near_zero=(0.55, 0.95))
    assert _low_end_words(sought, 35e-6) == (
        " It fails in 40% more within the first metre, where each round trip between the sites first adds"
        f" crossing_latency (35{NBSP}µs)."
    )


def test_a_band_from_0_km_to_a_distance_says_the_share_failing_at_0_km() -> None:
    sought = SimpleNamespace(low=0.0, high=1600.0, near_zero=(0.05, 0.72))
    assert (
        _band_words(sought.low, sought.high, 100e3, 0.8, sought.near_zero[0]) == f"0.0\N{EN DASH}1.6{NBSP}km"
    )
    assert _low_end_words(sought, 35e-6) == (
        " The band's low end is 0 km: the goal fails at 0 km in 5% of the outcomes, and in 67% more within"
        f" the first metre, where each round trip between the sites first adds crossing_latency (35{NBSP}µs)."
    )


def test_a_band_end_beyond_the_search_is_an_empty_cell_flagged_beside_it() -> None:
    """Trial 8, P10: max_distance_high[km] was an empty cell with nothing saying why (the table says "over
    100"). The CSV keeps it empty (no distance) and flags it true in max_distance_high_beyond_search, the
    search's end in searched_to[km]; an end within the search is flagged false."""
    answer = GoalSeek(55.7e3, 100e3, "CS1", "cf_async", 0.9, ())
    band = GoalBand(answer, 0.8, 7.2e3, 150e3, np.array([]), np.array([]))
    record = band.to_json()
    assert record["max_distance_high[km]"] is None and record["max_distance_high_beyond_search"] is True
    assert record["max_distance_low[km]"] == 7.2 and record["max_distance_low_beyond_search"] is False
    unbanded = GoalBand(answer, 0.8, None, None, np.array([]), np.array([])).to_json()
    assert unbanded["max_distance_high_beyond_search"] is None
