"""Are the scenario bands honest? The share of prediction rows whose measured value lies in the band.

A band (:mod:`qmodel.scenario.band`) claims the answer lies between its ends as
far as the fitted parameters are uncertain. On the end-to-end casebook's
prediction rows of the environments whose lock parameters were carried over,
not fitted (Environments 1 and 2 of the GDPS/PPRC study), the printed value
should lie in the band for at least :data:`COVERAGE_TARGET` of the rows (issue
25). A row is a prediction where it is a scenario quantity computed from the
case's own inputs, the study prints a value, and no parameter was fitted on it
(its case is not ``calibrated``). The model's value at each band point is the
case's own quantity (:func:`qmodel.scenario.cases.scenario_quantity` at the point), in the
case's unit.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from qmodel.registry import model_function, si_inputs
from qmodel.scenario.cases import scenario_quantity, shipped_banded
from qmodel.units import UNITS
from qmodel.validation.casebook import Case, load_casebook, shipped_casebooks

COVERAGE_TARGET = 0.80
E2E_CASEBOOK = "gdps-pprc-100km-2006-e2e"
PREDICTED_ENVIRONMENTS = ("gdps-env1", "gdps-env2")  # their lock parameters come from Environment 3


class Covered(NamedTuple):
    """One prediction row: the printed value (low, high: equal unless a range), the model's answer and
    its band, all in the case's unit."""

    case: Case
    value: float
    low: float
    high: float

    @property
    def inside(self) -> bool:
        """The printed value (or some of a printed range) lies within the band, ends included."""
        printed_low, printed_high = self.case.paper
        return self.low <= printed_high and printed_low <= self.high


def prediction_rows(casebook: str = E2E_CASEBOOK, scenarios: tuple[str, ...] = PREDICTED_ENVIRONMENTS
                    ) -> list[Case]:
    """The casebook's prediction rows of ``scenarios``: scenario quantities of those shipped scenarios
    with a printed value, computed from their own inputs (none taken from another case), fitted on
    none (not ``calibrated``)."""
    return [case for case in load_casebook(shipped_casebooks()[casebook])
            if case.quantity.startswith("scenario.") and case.inputs.get("scenario") in scenarios
            and not case.calibrated and not math.isnan(case.paper[0])
            and not case.uses_values and not any(isinstance(v, dict) for v in case.inputs.values())]


def band_coverage(casebook: str = E2E_CASEBOOK, scenarios: tuple[str, ...] = PREDICTED_ENVIRONMENTS
                  ) -> list[Covered]:
    """Each prediction row (:func:`prediction_rows`) with the model's answer and its band: the least and
    greatest of the case's quantity over the answer and each point of its scenario's band (a point
    with no answer there adds nothing; with no band, both ends are the answer)."""
    rows = []
    for case in prediction_rows(casebook, scenarios):
        output = case.quantity.partition(".")[2]
        where = f"{case.casebook}: case {case.id!r}"
        points = len(shipped_banded(case.inputs["scenario"]).points)
        inputs = si_inputs(model_function("scenario"), case.inputs, where)
        values = [scenario_quantity(**inputs, point=point)[output] / UNITS[case.unit].to_si
                  for point in range(points + 1)]
        answered = [v for v in values if not math.isnan(v)] or [math.nan]
        rows.append(Covered(case, values[0], min(answered), max(answered)))
    return rows


def coverage(rows: list[Covered]) -> float:
    """The share of ``rows`` whose printed value lies in the band (NaN for no rows)."""
    return sum(row.inside for row in rows) / len(rows) if rows else math.nan


def main() -> None:
    """Each prediction row with its band, and the coverage (python -m qmodel.validation.band_coverage)."""
    rows = band_coverage()
    for row in rows:
        low, high = row.case.paper
        printed = f"{low:g}" if low == high else f"{low:g}-{high:g}"
        print(f"{row.case.id:<40} {printed:>9} {row.case.unit:<2} model {row.value:9.4g}"
              f" band {row.low:9.4g} to {row.high:9.4g}  {'in' if row.inside else 'OUT'}")
    inside = sum(row.inside for row in rows)
    print(f"band coverage: {coverage(rows):.1%} ({inside} of {len(rows)} prediction rows;"
          f" target {COVERAGE_TARGET:.0%})")


if __name__ == "__main__":
    main()
