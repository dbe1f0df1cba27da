"""Measured rows a scenario is calibrated on: one member's (or all members') value at one distance.

A :class:`Measurement` is what a planner reads off RMF or a study's table: a response time, a count of
transactions over an interval, a share within the goal, a CPU busy, with the facts of its run
(subchannels, Metro Mirror, the castout owner). The study's rows are read here from its casebooks, the
one place its printed numbers live (:func:`casebook_measurements` for the end-to-end rows,
:func:`casebook_row` for a row of a formula casebook's table), never copied into code.

Values are SI (s, m, a share as a fraction); ``printed`` keeps the number as the table prints it.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qmodel.tomlread import read_toml
from qmodel.units import UNITS, parse_value

# The quantities a measured row may give, each with the unit it is shown in.
QUANTITIES = {
    "response_time": "ms",  # mean transaction response time
    "transactions": "1",  # transactions completed over the row's interval
    "throughput": "1/s",  # transactions per second
    "share_within_goal": "ratio",  # share of transactions within the WLM goal time
    "cpu_of_one_cp": "ratio",  # CPU busy in CPs (RMF APPL%: % of one CP)
}
STUDY_INTERVAL = 300.0  # s: every run's RMF interval in the GDPS study (the casebooks' default)
_DIGITS = 12  # a printed number converted to SI keeps this many significant digits (0.056 s is 56 ms)


@dataclass(frozen=True)
class Measurement:
    """One measured number: ``member``'s (or "all" members') ``quantity`` at ``distance`` (m) in the
    run of ``scenario`` with ``subchannels`` on every path (0: as the file says), Metro Mirror
    ``metro_mirror`` ("on", "off"; "": as the file says) and ``castout_owner`` ("": as the file says).
    ``value`` in SI (:data:`QUANTITIES`); a count of ``transactions`` is over ``interval`` (s).
    ``source`` says where it is printed (a casebook case id)."""

    scenario: str
    member: str
    distance: float
    quantity: str
    value: float
    subchannels: int = 0
    metro_mirror: str = ""
    castout_owner: str = ""
    interval: float = STUDY_INTERVAL
    source: str = ""

    @property
    def km(self) -> float:
        """The distance in km."""
        return self.distance / 1e3


def casebook_path(name: str) -> Path:
    """A shipped casebook's file by name (``"gdps-pprc-100km-2006-e2e"``): casebooks/NAME.toml."""
    casebooks = importlib.import_module("qmodel.casebooks")  # casebooks/, installed as a package (setup.cfg)
    return Path(str(casebooks.__file__)).parent / f"{name}.toml"


def _si(value: float, unit: str) -> float:
    """A printed number in ``unit`` converted to SI, to :data:`_DIGITS` significant digits."""
    return float(f"{value * UNITS[unit].to_si:.{_DIGITS}g}")


def _tables(path: Path) -> list[dict[str, Any]]:
    return list(read_toml(path, what="casebook").get("table", []))


def casebook_row(path: Path, table: str, row: str, unit: str) -> dict[str, float]:
    """The printed row ``row`` of table ``table`` of the casebook at ``path``, by column key, in
    ``unit`` (converted from the row's own unit); KeyError naming what is missing."""
    for found in _tables(path):
        if found.get("id") == table:
            keys = found.get("keys", found["columns"])
            own = found.get("units", {}).get(row, found.get("unit", "1"))
            scale = UNITS[own].to_si / UNITS[unit].to_si
            return {key: float(f"{value * scale:.{_DIGITS}g}")
                    for key, value in zip(keys, found["rows"][row], strict=True)}
    raise KeyError(f"{path.name}: no table {table!r}")


def _cell(table: dict[str, Any], value: Any, place: int) -> Any:
    """A rule's input or paper in column ``place``: a ``{ row = R }`` reference read from the table."""
    return table["rows"][value["row"]][place] if isinstance(value, dict) else value


def casebook_measurements(path: Path) -> tuple[Measurement, ...]:
    """Every printed cell of the casebook at ``path`` that a rule compares with a scenario quantity
    (``quantity = "scenario.response_time"`` and the others of :data:`QUANTITIES`), as a
    :class:`Measurement`: the rule's inputs (scenario, member, distance, subchannels, metro_mirror,
    castout_owner, interval) with their row references resolved for the cell's column, the cell in SI.
    A column whose input or cell is empty ("") is no row, as in the casebook's own reading
    (:func:`qmodel.validation.casebook.load_casebook`: a test holds the two readings the same)."""
    rows = []
    for table in _tables(path):
        keys = table.get("keys", table.get("columns", []))
        units = table.get("units", {})
        for rule in table.get("rule", []):
            quantity = str(rule.get("quantity", "")).removeprefix("scenario.")
            paper = rule.get("paper")
            if quantity not in QUANTITIES or not str(rule["quantity"]).startswith("scenario.") or not (
                    isinstance(paper, dict) and "row" in paper):
                continue
            for place, key in enumerate(keys):
                if key not in rule.get("columns", keys):
                    continue
                inputs = {name: _cell(table, value, place) for name, value in rule.get("inputs", {}).items()}
                printed = _cell(table, paper, place)
                if printed == "" or "" in inputs.values():
                    continue
                unit = units.get(paper["row"], table.get("unit", "1"))
                distance_unit = units.get(rule["inputs"]["distance"]["row"], "km") if isinstance(
                    rule["inputs"].get("distance"), dict) else "km"
                rows.append(Measurement(
                    scenario=str(inputs["scenario"]),
                    member=str(inputs["member"]),
                    distance=_si(float(inputs["distance"]), distance_unit),
                    quantity=quantity,
                    value=_si(float(printed), unit),
                    subchannels=int(inputs.get("subchannels", 0)),
                    metro_mirror=str(inputs.get("metro_mirror", "")),
                    castout_owner=str(inputs.get("castout_owner", "")),
                    interval=parse_value("interval", inputs["interval"], "s") if "interval" in inputs
                    else STUDY_INTERVAL,
                    source=f"{table['id']}-{rule['id']}-{key}",
                ))
    return tuple(rows)
