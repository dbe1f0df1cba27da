"""The response-time distribution's shape, judged on every percentile row of Environments 1 and 2.

Issue 25 §3: the 0 km tail is heavier than exponential, and the growth with distance is paid by nearly
every transaction. Three laws of the share within the WLM goal (125 ms), each the catalogue's
``share_within_goal`` (a fixed part plus a gamma variable part with the rest of the mean):

- "Erlang-1 (old) + propagation": the scenario-wide shape the files had before, 1 (exponential), for
  every member;
- "gamma per member + propagation" (shipped): each member's own shape, fitted on its share within the
  goal at pprc 0 km (the scenario files' ``shape``, python -m qmodel.scenario.calibrate: a declared
  calibration, one row each);
- "gamma per member + all growth" (not shipped): the same shapes, the whole growth of the mean above the
  member's pprc 0 km mean taken as the shift (the variable part keeps its 0 km mean).

In the first two the fixed part is the propagation a transaction pays at the distance (round trips of
its CF requests, reads and log writes, and the Metro Mirror round trip: deterministic, the same for
every transaction, a sum over about 160 requests); everything else, the 0 km service times and every
queue (CPU, subchannels, IOSQ, lock contention), is the random part. Each law is judged twice on
every percentile row the e2e casebook encodes (gdps-pprc-100km-2006-e2e.toml: Environment 1's TPNO,
G1P1 and G1P2 tables, Environment 2's TPNO and P1 tables): with the model's means (the solver's answer,
the verdict) and with the printed means (a diagnostic of the law alone, never a verdict; Environment
2's G1P2 mean is the both-members table's rest). Deviations in points (law − printed); the 0 km column
is the shape's calibration row (exactly 0 with printed means for the fitted laws). Prints Markdown;
with ``--docs`` writes it into docs/background/calibration.md between its percentile-shapes markers:

    python bench/percentile_shapes.py [--docs]
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import tomllib

from qmodel.catalogue.evaluate import calc
from qmodel.scenario.calibrate import write_block
from qmodel.scenario.cases import shipped_banded
from qmodel.scenario.compose import solve_scenario
from qmodel.scenario.spec import Scenario
from qmodel.validation.casebook import shipped_casebooks

DOCS = Path(__file__).resolve().parent.parent / "docs" / "background" / "calibration.md"
TOLERANCE = 3.0  # points: the casebook's and the issue's
# (series, scenario, member or "all", the casebook table with its rows)
SERIES = (
    ("Env 1 TPNO", "gdps-env1", "all", "e2e-env1-tpno"),
    ("Env 1 G1P1", "gdps-env1", "G1P1", "e2e-env1-g1p1"),
    ("Env 1 G1P2", "gdps-env1", "G1P2", "e2e-env1-g1p2"),
    ("Env 2 TPNO", "gdps-env2", "all", "e2e-env2-tpno"),
    ("Env 2 P1", "gdps-env2", "G1P1", "e2e-env2-g1p1"),
)


def printed_tables() -> dict[str, dict]:
    """The e2e casebook's tables by id, as printed (the one home of the study's numbers)."""
    text = shipped_casebooks()["gdps-pprc-100km-2006-e2e"].read_text(encoding="utf-8")
    return {table["id"]: table for table in tomllib.loads(text)["table"]}


def solved(scenario: Scenario, table: dict) -> list:
    """The scenario solved at each column of a casebook table (distance, Metro Mirror on or off)."""
    results = []
    for km, mirror in zip(table["rows"]["distance"], table["rows"]["mirror"], strict=True):
        run = replace(
            scenario,
            metro_mirror=mirror == "on",
            pprc_overhead=scenario.pprc_overhead if mirror == "on" else 0.0,
        )
        results.append(solve_scenario(run, np.array([km * 1e3])))
    return results


def share(mean: np.ndarray, shift: np.ndarray, shape: np.ndarray, goal: float) -> np.ndarray:
    """share_within_goal at means and shifts in s."""
    return calc(
        "share_within_goal", units="si", goal=goal, mean_response=mean, fixed_part=shift, shape=shape
    ).share


def printed_member_means(tables: dict[str, dict], scenario: str) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Each member's printed (mean ms, transactions) per column; Environment 2's G1P2 the both-members
    table's rest: (mean × N − P1's mean × P1's N) / (N − P1's N)."""
    if scenario == "gdps-env1":
        return {
            member: (
                np.array(tables[f"e2e-env1-{member.lower()}"]["rows"]["resp"], float),
                np.array(tables[f"e2e-env1-{member.lower()}"]["rows"]["Transactions"], float),
            )
            for member in ("G1P1", "G1P2")
        }
    both, p1 = tables["e2e-env2-tpno"]["rows"], tables["e2e-env2-g1p1"]["rows"]
    n, n1 = np.array(both["Number"], float), np.array(p1["Number"], float)
    rest = (np.array(both["resp"]) * n - np.array(p1["resp"]) * n1) / (n - n1)
    return {"G1P1": (np.array(p1["resp"], float), n1), "G1P2": (rest, n - n1)}


def deviations(law: str, means: str, name: str, member: str, table: dict, tables: dict) -> np.ndarray:
    """Points off the printed percentile row at each column, for the law with the model's or the printed
    means (and the model's throughput or the printed transactions to weigh the members)."""
    scenario = shipped_banded(name).scenario
    results = solved(scenario, table)
    if means == "model":
        mean = np.array([r.response_time[:, 0] for r in results]).T  # (M, columns) s
        count = np.array([r.throughput[:, 0] for r in results]).T
    else:
        members = printed_member_means(tables, name)
        mean = np.array([members[m.name][0] for m in scenario.members]) / 1e3
        count = np.array([members[m.name][1] for m in scenario.members])
    if law == "growth":  # everything above the member's pprc 0 km mean paid by every transaction
        base = mean[:, table["keys"].index("0km")][:, None]
        pprc = np.array([mirror == "on" for mirror in table["rows"]["mirror"]])
        shift = np.where(pprc, np.maximum(mean - base, 0.0), 0.0)
    else:  # the propagation, as the solver takes it
        shift = np.minimum(np.array([r.fixed_part[:, 0] for r in results]).T, mean * (1 - 1e-9))
    shapes = np.array([1.0 if law == "old" else m.shape for m in scenario.members])
    shares = share(mean, shift, shapes[:, None], scenario.goal_time)
    value = (
        (shares * count).sum(axis=0) / count.sum(axis=0)
        if member == "all"
        else shares[[m.name for m in scenario.members].index(member)]
    )
    return value * 100 - np.array(table["rows"]["percentile"], float)


LAWS = (
    ("old", "Erlang-1 (old: one shape, 1) + propagation"),
    ("gamma", "gamma per member (0 km shape) + propagation"),
    ("growth", "gamma per member + all growth from 0 km"),
)


def rows() -> tuple[list[list[str]], dict[tuple[str, str], tuple[int, int]]]:
    """The table's rows and, per (law, means), (rows within TOLERANCE, rows judged) off 0 km."""
    tables = printed_tables()
    table_rows, counts = [], {}
    for means in ("model", "printed"):
        for series, name, member, table_id in SERIES:
            table = tables[table_id]
            for law, title in LAWS:
                off = deviations(law, means, name, member, table, tables)
                judged = [d for key, d in zip(table["keys"], off, strict=True) if key != "0km"]
                within, total = counts.get((law, means), (0, 0))
                counts[law, means] = (within + sum(abs(d) <= TOLERANCE for d in judged), total + len(judged))
                worst = f"{max(abs(d) for d in judged):.1f}"
                table_rows.append([f"{means} means", series, title, *(f"{d:+.1f}" for d in off), worst])
    return table_rows, counts


def markdown(table_rows: list[list[str]], counts: dict[tuple[str, str], tuple[int, int]]) -> str:
    columns = printed_tables()["e2e-env1-tpno"]["columns"]
    header = ("means", "series", "law", *columns, "largest off 0 km")
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cells) + " |" for cells in table_rows]
    lines.append("")
    for (law, means), (within, total) in counts.items():
        title = dict(LAWS)[law]
        judged = "the verdict" if means == "model" else "a diagnostic, never a verdict"
        lines.append(
            f"- {title}, {means} means: {within} of {total} rows off 0 km within {TOLERANCE:g} "
            f"points ({judged})"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    text = markdown(*rows())
    print(text)
    if "--docs" in sys.argv[1:]:
        write_block(DOCS, "percentile-shapes", text)
