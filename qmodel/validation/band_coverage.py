"""Are the scenario bands honest? The share of prediction rows whose measured value lies in the band.

A band (:mod:`qmodel.scenario.band`) claims the answer lies between its ends as
far as the fitted parameters are uncertain. On the end-to-end casebook's
prediction rows of the environments whose lock parameters were carried over,
not fitted (Environments 1 and 2 of the GDPS/PPRC study), the printed value
should lie in the band for at least :data:`COVERAGE_TARGET` of the rows (issue
25). A row is a prediction where it is a scenario quantity computed from the
case's own inputs, the study prints a value, and no parameter was fitted on it
(its case is not ``calibrated``). The band of a row is the one every answer
carries (:func:`qmodel.scenario.band.solve_banded`, its
:meth:`~qmodel.scenario.result.ScenarioResult.band_values`): the scenario and
each point of its band solved with the case's inputs, in the case's unit.
"""

from __future__ import annotations

import math
import sys
from collections import Counter
from typing import NamedTuple

import numpy as np

from qmodel.catalogue.registry import model_function, si_inputs
from qmodel.scenario.band import Banded, solve_banded
from qmodel.scenario.calibrate import DOCS, write_block
from qmodel.scenario.cases import shipped_banded
from qmodel.scenario.overrides import with_overrides
from qmodel.units import UNITS
from qmodel.validation.casebook import Case, load_casebook, shipped_casebooks

COVERAGE_TARGET = 0.80
E2E_CASEBOOK = "gdps-pprc-100km-2006-e2e"
PREDICTED_ENVIRONMENTS = ("gdps-env1", "gdps-env2")  # their lock parameters come from Environment 3
# each scenario quantity a band is given for: its value in the answer's records, and that value in SI
BANDED = {"response_time": ("response_time[ms]", 1e-3), "share_within_goal": ("share_within_goal[%]", 1e-2),
          "throughput": ("throughput[1/s]", 1.0), "transactions": ("throughput[1/s]", 1.0),
          "cpu_of_one_cp": ("cpu_of_one_cp[%]", 1e-2)}


class Covered(NamedTuple):
    """One prediction row: the printed value (low, high: equal unless a range), the model's answer and
    its band, all in the case's unit."""

    case: Case
    value: float
    low: float
    high: float

    @property
    def inside(self) -> bool:
        """The printed value (or some of a printed range) lies within the band, ends included (an end open
        toward a band point with no answer, NaN, holds any value on its side)."""
        printed_low, printed_high = self.case.printed_range
        return not self.low > printed_high and not printed_low > self.high


def prediction_rows(casebook: str = E2E_CASEBOOK, scenarios: tuple[str, ...] = PREDICTED_ENVIRONMENTS
                    ) -> list[Case]:
    """The casebook's prediction rows of ``scenarios``: scenario quantities with a band (:data:`BANDED`)
    of those shipped scenarios with a printed value, computed from their own inputs (none taken from
    another case), fitted on none (not ``calibrated``)."""
    return [case for case in load_casebook(shipped_casebooks()[casebook])
            if case.quantity.partition(".")[::2] in [("scenario", name) for name in BANDED]
            and case.inputs.get("scenario") in scenarios
            and not case.calibrated and not math.isnan(case.printed_range[0])
            and not case.uses_values and not any(isinstance(v, dict) for v in case.inputs.values())]


def band_coverage(casebook: str = E2E_CASEBOOK, scenarios: tuple[str, ...] = PREDICTED_ENVIRONMENTS
                  ) -> list[Covered]:
    """Each prediction row (:func:`prediction_rows`) with the model's answer and the band the answer
    carries, in the case's unit (an end open toward a band point with no answer: NaN)."""
    rows = []
    for case in prediction_rows(casebook, scenarios):
        inputs = si_inputs(model_function("scenario"), case.inputs, f"{case.casebook}: case {case.id!r}")
        shipped = shipped_banded(inputs["scenario"])
        overrides = (int(inputs["subchannels"]), inputs["metro_mirror"], inputs["castout_owner"])
        banded = Banded(with_overrides(shipped.scenario, *overrides),
                        tuple(with_overrides(point, *overrides) for point in shipped.points))
        result = solve_banded(banded, np.array([inputs["distance"]]))
        member = inputs["member"]
        row = len(result.members) if member == "all" else result.members.index(member)
        name, to_si = BANDED[case.quantity.partition(".")[2]]
        scale = to_si * (inputs["interval"] if case.quantity.endswith("transactions") else 1.0)
        scale /= UNITS[case.unit].to_si
        value = result.record_values()[name][row, 0] * scale
        low, high = (end[row, 0] * scale for end in result.band_values()[name])
        rows.append(Covered(case, float(value), float(low), float(high)))
    return rows


def coverage(rows: list[Covered]) -> float:
    """The share of ``rows`` whose printed value lies in the band (NaN for no rows)."""
    return sum(row.inside for row in rows) / len(rows) if rows else math.nan


def coverage_table(rows: list[Covered]) -> str:
    """Markdown: the model's own error each shipped band carries, and per environment and quantity the
    prediction rows whose printed value lies in the band, with the rows outside it."""
    errors = {name: shipped_banded(name).error for name in PREDICTED_ENVIRONMENTS}
    lines = ["| scenario | response time error | throughput error |", "|---|---|---|"]
    lines += [f"| {name} | ±{error['response_time']:.1%} | ±{error['throughput']:.1%} |"
              for name, error in errors.items()]
    lines += ["", "| scenario | quantity | rows | inside the band | outside |", "|---|---|---|---|---|"]
    groups = Counter((row.case.inputs["scenario"], row.case.quantity.partition(".")[2]) for row in rows)
    for (name, quantity), count in groups.items():
        picked = [row for row in rows if (row.case.inputs["scenario"], row.case.quantity) ==
                  (name, f"scenario.{quantity}")]
        outside = ", ".join(row.case.id for row in picked if not row.inside) or "none"
        lines.append(f"| {name} | {quantity.replace('_', ' ')} | {count} | "
                     f"{sum(row.inside for row in picked)} | {outside} |")
    inside = sum(row.inside for row in rows)
    lines += ["", f"Band coverage: {coverage(rows):.1%} ({inside} of {len(rows)} prediction rows;"
              f" target {COVERAGE_TARGET:.0%})."]
    return "\n".join(lines) + "\n"


def main() -> None:
    """Each prediction row with its band, and the coverage (python -m qmodel.validation.band_coverage);
    with --write, the coverage table into docs/background/calibration.md (between its band-coverage
    markers)."""
    rows = band_coverage()
    for row in rows:
        low, high = row.case.printed_range
        printed = f"{low:g}" if low == high else f"{low:g}-{high:g}"
        print(f"{row.case.id:<40} {printed:>9} {row.case.unit:<2} model {row.value:9.4g}"
              f" band {row.low:9.4g} to {row.high:9.4g}  {'in' if row.inside else 'OUT'}")
    inside = sum(row.inside for row in rows)
    print(f"band coverage: {coverage(rows):.1%} ({inside} of {len(rows)} prediction rows;"
          f" target {COVERAGE_TARGET:.0%})")
    if "--write" in sys.argv[1:]:
        write_block(DOCS, "band-coverage", coverage_table(rows))


if __name__ == "__main__":
    main()
