"""The CGFT inverses as solves of their forward entries (once the entries cgft_bandwidth, cgft_share_fit).

Source: global-mirror-ds8000-2009.txt §4.3 (CGFT approximately 6 seconds at about 250 MB/s written), §7.7
(Figure 34: 'less than 7 seconds 50% of the time') and §7.3 (consistency groups about every 3-5 seconds
with sufficient bandwidth: the cycle cost).
"""

import math

import pytest

from qmodel.catalogue.evaluate import calc
from qmodel.catalogue.inverse import solve
from qmodel.errors import InputError


def test_cgft_solved_for_the_bandwidth_inverts_the_cgft_entry() -> None:
    # 6 s at 250 MB/s with a 4 s cycle cost is a link at 1/3, 750 MB/s.
    bandwidth = float(solve("cgft", "cgft", 6, "bandwidth", {"cycle_cost": 4, "write_rate": 250}).value)
    assert bandwidth == pytest.approx(750)
    assert float(calc("cgft", cycle_cost=4, write_rate=250, bandwidth=bandwidth).cgft) == pytest.approx(6)


def test_a_cgft_at_or_below_the_cycle_cost_has_no_bandwidth() -> None:
    with pytest.raises(InputError, match="not reachable; the nearest it comes is 4 s"):
        solve("cgft", "cgft", 3, "bandwidth", {"cycle_cost": 4, "write_rate": 250})


def test_half_the_time_under_7_s_over_a_4_s_cycle_is_a_mean_of_8_33_s() -> None:
    # §7.7: 50% under 7 s; a 4 s cycle cost (§7.3's 3-5 s): the excess has median 3 s, mean 3 / ln 2.
    solution = solve(
        "share_within_goal", "share", 0.5, "mean_response", {"goal": 7000, "fixed_part": 4000, "shape": 1}
    )
    assert float(solution.value) == pytest.approx(1000 * (4 + 3 / math.log(2)))


@pytest.mark.parametrize(
    ("limit", "share", "cycle_cost"), [(7.0, 0.5, 4.0), (15.0, 0.14, 3.0), (6.0, 0.9, 5.5)]
)
def test_the_fitted_mean_puts_the_share_under_the_limit_again(
    limit: float, share: float, cycle_cost: float
) -> None:
    fitted = solve(
        "share_within_goal",
        "share",
        share,
        "mean_response",
        {"goal": limit * 1000, "fixed_part": cycle_cost * 1000, "shape": 1},
    )
    again = calc(
        "share_within_goal",
        goal=limit * 1000,
        mean_response=float(fitted.value),
        fixed_part=cycle_cost * 1000,
        shape=1,
    )
    assert float(again.share) == pytest.approx(share)


def test_a_limit_at_or_below_the_cycle_cost_has_no_mean() -> None:
    with pytest.raises(InputError, match="not reachable"):
        solve(
            "share_within_goal", "share", 0.5, "mean_response", {"goal": 4000, "fixed_part": 4000, "shape": 1}
        )
