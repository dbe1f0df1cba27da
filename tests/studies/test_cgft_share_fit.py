"""cgft_share_fit: the mean CGFT that puts a printed share of the time under a limit.

Source: global-mirror-ds8000-2009.txt §7.7 (Figure 34: 'less than 7 seconds 50% of the time') and §7.3
(consistency groups about every 3-5 seconds with sufficient bandwidth: the cycle cost).
"""

import math

import pytest

from qmodel.catalogue.evaluate import calc
from qmodel.errors import InputError


def test_half_the_time_under_7_s_over_a_4_s_cycle_is_a_mean_of_8_33_s() -> None:
    # §7.7: 50% under 7 s; a 4 s cycle cost (§7.3's 3-5 s): the excess has median 3 s, mean 3 / ln 2.
    result = calc("cgft_share_fit", limit=7.0, share=0.5, cycle_cost=4.0)
    assert float(result.mean_excess) == pytest.approx(3 / math.log(2))
    assert float(result.mean_cgft) == pytest.approx(4 + 3 / math.log(2))


@pytest.mark.parametrize(("limit", "share", "cycle_cost"),
                         [(7.0, 0.5, 4.0), (15.0, 0.14, 3.0), (6.0, 0.9, 5.5)])
def test_the_fitted_mean_puts_the_share_under_the_limit_again(limit: float, share: float,
                                                              cycle_cost: float) -> None:
    fitted = calc("cgft_share_fit", limit=limit, share=share, cycle_cost=cycle_cost)
    again = calc("share_within_goal", goal=limit * 1000, mean_response=float(fitted.mean_cgft) * 1000,
                 fixed_part=cycle_cost * 1000, shape=1)
    assert float(again.share) == pytest.approx(share)


def test_a_limit_at_or_below_the_cycle_cost_is_refused() -> None:
    with pytest.raises(InputError, match="cycle cost"):
        calc("cgft_share_fit", limit=4.0, share=0.5, cycle_cost=4.0)
