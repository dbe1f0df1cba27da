"""The response-time distribution's shape, judged on the study's printed means and percentiles alone.

Issue 25: the 0 km tail is heavier than exponential, and the growth with distance is paid by nearly
every transaction. This takes each printed series of mean response and share within the WLM goal
(gdps-pprc-100km-2006.txt: Environment 1 TPNO, Environment 2 TPNO and TPNO P1; 125 ms) and predicts
the share at every column from the printed mean of that column under each law:

- "0 km shape + shift": a gamma variable part whose shape k is fitted to the 0 km percentile (its mean
  the 0 km mean), the growth of the mean from 0 km added as a deterministic shift;
- Erlang-k, k = 1, 2, 3, no fixed part (the whole mean variable);
- the 0 km gamma shape with no shift.

The printed means are used, not the model's, so the table judges the distribution law apart from the
error in the mean. Deviations in points (law − printed); the 0 km column is the shape's calibration
row. Prints a Markdown table; with ``--docs`` writes it into docs/background/calibration.md between its
percentile-shapes markers:

    python bench/percentile_shapes.py [--docs]
"""

from __future__ import annotations

import sys
from pathlib import Path

from scipy.optimize import brentq
from scipy.stats import gamma

from qmodel.scenario.calibrate import write_block

DOCS = Path(__file__).resolve().parent.parent / "docs" / "background" / "calibration.md"
GOAL = 125.0  # ms
COLUMNS = ("non-pprc", "0 km", "20 km", "40 km", "70 km", "100 km")
SERIES = {  # printed mean (ms) and share within 125 ms (%) per column
    "Env 1 TPNO": ((33, 38, 43, 43, 50, 50), (98, 97.2, 95.7, 96, 94.4, 93.7)),
    "Env 2 TPNO": ((32, 34, 43, 52, 69, 87), (97, 96.6, 95.9, 94.3, 90.7, 85)),
    "Env 2 TPNO P1": ((29, 30, 38, 50, 69, 85.5), (97.7, 97.7, 97.2, 95.3, 91.4, 81.9)),
}
BASE = COLUMNS.index("0 km")


def share(shape: float, mean: float, shift: float = 0.0) -> float:
    """% within GOAL of shift + a gamma variable of ``shape`` and mean ``mean - shift`` (ms)."""
    return 100 * gamma.cdf(GOAL - shift, shape, scale=(mean - shift) / shape)


def rows() -> list[list[str]]:
    table = []
    for name, (means, printed) in SERIES.items():
        base_mean, base_share = means[BASE], printed[BASE]
        shape = brentq(lambda k, m=base_mean, p=base_share: share(k, m) - p, 0.05, 50)
        laws = {
            f"0 km shape (k {shape:.2f}) + shift": lambda mean, k=shape, m0=base_mean: share(k, mean,
                                                                                             mean - m0),
            "Erlang-1 (exponential)": lambda mean: share(1, mean),
            "Erlang-2": lambda mean: share(2, mean),
            "Erlang-3": lambda mean: share(3, mean),
            f"0 km shape (k {shape:.2f}), no shift": lambda mean, k=shape: share(k, mean),
        }
        for law, predict in laws.items():
            deviations = [predict(mean) - p for mean, p in zip(means, printed, strict=True)]
            worst = max(abs(d) for i, d in enumerate(deviations) if i != BASE)
            table.append([name, law, *(f"{d:+.1f}" for d in deviations), f"{worst:.1f}"])
    return table


def markdown(table: list[list[str]]) -> str:
    header = ("series", "law", *COLUMNS, "largest off 0 km")
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(cells) + " |" for cells in table]) + "\n"


if __name__ == "__main__":
    text = markdown(rows())
    print(text)
    if "--docs" in sys.argv[1:]:
        write_block(DOCS, "percentile-shapes", text)
