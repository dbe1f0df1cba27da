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
import re
import sys
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from qmodel.errors import HeaderError, InputError
from qmodel.scenario.modelerror import model_error
from qmodel.scenario.protocols import reach_limit
from qmodel.scenario.result import ScenarioResult
from qmodel.scenario.spec import Scenario, share_advice, spelled
from qmodel.tables.header import split_header
from qmodel.tomlread import read_toml
from qmodel.units import UNITS, bare_number, parse_value, readable

# The quantities a measured row may give, each with the unit it is read and shown in, and where a planner
# reads it.
QUANTITIES = {
    "response_time": "ms",  # mean transaction response time (RMF workload activity, or the driver's)
    "transactions": "1",  # transactions completed over the row's interval (RMF workload activity ENDED)
    "throughput": "1/s",  # transactions per second (RMF workload activity END/S)
    "share_within_goal": "ratio",  # share within the goal time (RMF workload activity: response distribution)
    "cpu_of_one_cp": "ratio",  # CPU busy in CPs (RMF workload activity APPL%: % of one CP)
    # lock/latch and global contention suspension per transaction (DB2 accounting class 3: LOCK/LATCH
    # and GLOBAL CONTENTION, per commit)
    "lock_contention": "ms",
}
# A row's σ by quantity where the model's own error gives none (:func:`row_sigma`), the weight 1/σ² of its
# residual (model − measured) / measured: the GDPS study's casebook tolerances (10% on a response, which
# covers the 1 ms printing resolution of .056 s; 3% on a count, the run-to-run spread of the 0 km counts,
# 3388 to 3427); a share within the goal is fitted on its absolute difference, σ 1 point; a lock wait 20%
# (a class 3 suspension time averaged over commits). The study's own calibration and its cross-validation
# weigh the printed rows by these tolerances (:mod:`qmodel.scenario.calibrate`'s SIGMA): the model's
# error is sized by that cross-validation, so taking its σ from the model's error would make the error
# depend on itself.
SIGMA = {
    "response_time": 0.10,
    "transactions": 0.03,
    "throughput": 0.03,
    "share_within_goal": 0.01,
    "cpu_of_one_cp": 0.10,
    "lock_contention": 0.20,
}
# The quantities that are a share of 1: at most 100% (a CPU busy in CPs is not), and fitted on their
# absolute difference (σ in points, SIGMA): a relative residual would grow without bound as the share nears
# 0, where a share's reading (RMF's response distribution) is no less exact. One property, one name.
SHARES = ("share_within_goal",)
# The kind of the model's own error (qmodel.scenario.modelerror) each measured quantity is evidence about: a
# member's response time, and its transaction count or throughput (which CPU follows)
ERROR_KINDS = {"response_time": "response_time", "transactions": "throughput", "throughput": "throughput"}


def row_sigma(quantity: str) -> float:
    """A measured row's σ (relative; absolute for :data:`SHARES`) where the row states none: the model's
    run-to-run spread of the row's kind (:data:`ERROR_KINDS`), as cross-validation across the study's
    environments sized it (:func:`qmodel.scenario.modelerror.model_error`, the band's σ of the same
    measurement: one figure for one scatter), and :data:`SIGMA` for a quantity whose kind it does not size
    (a share within the goal, a CPU, a lock wait) or where it has not been sized."""
    spread = model_error()[0].spread.get(ERROR_KINDS.get(quantity, ""), 0.0)
    return spread if spread > 0 else SIGMA[quantity]


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
    weight: float = 1.0  # times the weight 1/σ² (sigma); 0: shown, not fitted
    decimal_mark: str = "."  # the file's: a message about the row writes its numbers with it
    typed: str = ""  # the value cell as the file writes it, for a message to echo ("": a casebook row)
    stated_sigma: float | None = None  # the row's σ where its source states one (the study's tolerance)

    @property
    def sigma(self) -> float:
        """The row's σ: :attr:`stated_sigma`, else its quantity's default (:func:`row_sigma`)."""
        return row_sigma(self.quantity) if self.stated_sigma is None else self.stated_sigma

    @property
    def km(self) -> float:
        """The distance in km."""
        return self.distance / 1e3

    @property
    def run(self) -> tuple[int, str, str]:
        """The facts of the run it was measured in: (subchannels, metro_mirror, castout_owner)."""
        return self.subchannels, self.metro_mirror, self.castout_owner

    @property
    def label(self) -> str:
        """The row as people name it: ``G1P2 response_time 40 km, 2 subchannels``."""
        facts = [
            f"{self.subchannels} subchannels" if self.subchannels else "",
            f"Metro Mirror {self.metro_mirror}" if self.metro_mirror else "",
            f"{self.castout_owner} owns castout" if self.castout_owner else "",
        ]
        where = "".join(f", {fact}" for fact in facts if fact)
        return f"{self.member} {self.quantity} {self.km:g} km{where}"


def weighted_residual(row: Measurement, model: float) -> float:
    """(model − measured) / (σ × measured), or / σ for a share (:data:`SHARES`), times √weight; where the
    model has no answer (thrashing: NaN) 100% off in the direction of no transactions (a response or a
    wait above, a count below)."""
    sigma = row.sigma
    if np.isnan(model):
        off = 1.0 if row.quantity in ("response_time", "lock_contention") else -1.0
        return off / sigma * np.sqrt(row.weight)
    difference = model - row.value
    relative = difference if row.quantity in SHARES else difference / row.value
    return float(relative / sigma * np.sqrt(row.weight))


def throughput_weighted(throughput: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The members' ``values`` (M, ...) together, each weighed by its ``throughput`` (M, ...): how a row of
    "all" reads a per-transaction time (the lock wait DB2 accounting gives for the sysplex); NaN where a
    throughput is NaN (no answer)."""
    return np.sum(throughput * values, axis=0) / np.sum(throughput, axis=0)


def result_value(result: ScenarioResult, place: int, member: str, quantity: str, interval: float) -> float:
    """The model's ``quantity`` (SI, :data:`QUANTITIES`) of ``member`` (or "all": the members together,
    throughput-weighted) at column ``place`` of ``result``; NaN where it has none (thrashing)."""
    if member == "all":
        weights = result.throughput[:, place]
        values = {
            "response_time": result.total_response_time[place],
            "throughput": result.total_throughput[place],
            "share_within_goal": result.total_share_within_goal[place],
            "cpu_of_one_cp": float(np.sum(weights * result.cpu_per_transaction[:, place])),
            "lock_contention": float(
                throughput_weighted(weights, result.breakdown["lock_contention"][:, place])
            ),
        }
    else:
        if member not in result.members:
            raise InputError("member", member, "all, or one of " + ", ".join(result.members))
        m = result.members.index(member)
        values = {
            "response_time": result.response_time[m, place],
            "throughput": result.throughput[m, place],
            "share_within_goal": result.share_within_goal[m, place],
            "cpu_of_one_cp": result.throughput[m, place] * result.cpu_per_transaction[m, place],
            "lock_contention": result.breakdown["lock_contention"][m, place],
        }
    values["transactions"] = values["throughput"] * interval
    return float(values[quantity])


# A measured row this many times the model's value at the file's own values, or less than 1/this, is refused
# before a fit: a slip of unit (s for ms, ms for us: 1000x) and not a miss a fit should absorb; the file's
# values are the planner's own readings of the same system, a few times off at most where a free
# parameter starts far from its value (a per-minute rate read per second, 60x, is not caught by it).
# A response row above the model is reached, whatever the ratio, where its member's other is free (other
# adds to the response one for one: 0ms for a light member whose 310 ms the model puts at 1.4 ms); such a
# row is judged by RESPONSE_CEILING instead.
UNREACHABLE = 100.0
# A measured mean response above this many times the file's goal time is refused as a slip of unit: with
# the default gamma shape 1 (exponential) it leaves 1 - exp(-1/10) = 9.5% of the transactions within a
# goal time the file plans for most of them to meet (its goal share); a 71,4s row for a goal of 250 ms
# is 286 times it, the 310 ms of a light member under that goal 1.24 times.
RESPONSE_CEILING = 10.0
# A response row below the model is reached only down to what its member answers with its free other at
# 0 (the floor: the rest of the model); a row below this share of the floor is refused (trial 6, W1: 278
# us typed for 27.8 ms, 67 times below the model, dragged the other members' fits 35% off). A half leaves
# the model's own error (σ 6.8% a run) and what the other free keys move far inside it.
BELOW_FLOOR = 0.5
# A row no free parameter moves (a check of the model: qmodel.scenario.fit.Fit.checks) is nothing a fit
# can bridge: one more than this many times off the fitted model is refused as a slip (trial 6, W2: a
# throughput typed 41960 for 419.6 was 99.9 times the model, under UNREACHABLE, and its miss became a CPU
# band of -2,983% to +2,972%). Ten times is beyond any run's scatter (σ 1% a count, 6.8% a response) or
# a file's plausible error in what sets the row (a think time, an arrival rate).
CHECK_FACTOR = 10.0
# A fitted row that asks its member's free other for more than this many times the rest of the model (the
# model with the free others at 0, the floor BELOW_FLOOR judges) is named in a note as a likely slip, with
# the guess the low side gives (trial 8, P4: 1620ms typed for 16,2ms gave an other of 1.6 s, 144x the
# rest, fitted without a word). A note and not a refusal: other is the time the model does not see (a
# caller, MQ, a program's own work), and a light member measured at 310 ms where the model gives 1.4 ms
# (trial 5, N8: 220x) is a file the planner means; ten times is beyond what a response's scatter or a
# file's plausible error in what the model does see (the requests, the CPU) makes.
ABOVE_REST = 10.0
_TIME_SLIPS = (1e-3, 1e3, 1e-6, 1e6)  # the factors a slip of a time's unit makes (ms/s, us/s)
_RATE_SLIPS = (1 / 60, 60.0)  # and of a rate's or a count's (per minute, per second)
# and where the file writes decimal commas, of a comma lost or misplaced (41,00 typed 4100; 55,9 typed 5,59)
_COMMA_SLIPS = (1e-2, 1e-1, 10.0, 100.0)


def refuse_unreachable(
    rows: tuple[Measurement, ...],
    model: np.ndarray,
    reached_above: Collection[str] = (),
    goal_time: float = np.inf,
    floor: np.ndarray | None = None,
    capped: Collection[str] = (),
) -> None:
    """Refuse the first fitted row (weight above 0) that no fit should bridge, before the fit: an
    InputError naming the row, the value, what is allowed and the value as the nearest slip of unit would
    have it, its numbers written with the file's decimal mark. The rule, in order:

    - a response time above :data:`RESPONSE_CEILING` × ``goal_time`` (s, the file's goal) is refused;
    - a response time of a member in ``reached_above`` (those whose other is free; "all" where any
      member's is) above its ``model`` value is not judged further: the free other reaches it;
    - such a response time below :data:`BELOW_FLOOR` × its ``floor`` (SI: the model with the free others
      at 0, where given) is refused: no value of other reaches it;
    - a throughput or transaction count of a closed member in ``capped`` (its other free, its think time
      and terminals not) above its ``floor`` value / :data:`BELOW_FLOOR` is refused: its floor is the most
      its terminals give, N / (think time + the response with other at 0), and no value of other reaches
      more (trial 7, N2: 14,890/s typed for 148.9 where 900 terminals at 6 s think give at most 150/s);
    - any other row more than :data:`UNREACHABLE` times ``model`` (its value at the file's own values,
      SI), or less than 1/that, is refused (a row below the model by 100x stays refused: other cannot
      go below 0).

    A share (absolute, at most 1) and a row without a model answer (NaN, 0) are not judged."""
    floors = np.full(len(rows), np.nan) if floor is None else floor
    for row, value, least in zip(rows, model, floors, strict=True):
        if row.weight == 0 or row.quantity in SHARES or not (np.isfinite(value) and value > 0):
            continue
        ratio = row.value / value
        response = row.quantity == "response_time"
        if response and row.value > RESPONSE_CEILING * goal_time:
            _refuse_slip(
                row,
                value,
                f"at most {RESPONSE_CEILING:g} × the file's goal time {_written(row, goal_time)}: "
                f"{_written(row, RESPONSE_CEILING * goal_time)}",
                f"{row.value / goal_time:.0f}x the goal time: a mean that leaves under 10% within the goal",
            )
        freed = response and row.member in reached_above
        if freed and row.value < BELOW_FLOOR * least:
            _refuse_slip(
                row,
                least,
                f"at least {BELOW_FLOOR:.0%} of {_written(row, least)}, what the model gives with "
                f"{'its' if row.member != 'all' else 'every free'} other at 0",
                f"{least / row.value:.0f}x less than the rest of the model: no value of other reaches it",
            )
        if (
            row.quantity in ("throughput", "transactions")
            and row.member in capped
            and row.value * BELOW_FLOOR > least
        ):
            _refuse_slip(
                row,
                least,
                f"at most {_written(row, least / BELOW_FLOOR)}, twice the most {row.member}'s terminals "
                f"give at their think time ({_written(row, least)}, with its other at 0)",
                f"{row.value / least:.0f}x more than its terminals give: no value of other reaches it",
            )
        if (freed and ratio > 1) or 1 / UNREACHABLE <= ratio <= UNREACHABLE:
            continue
        _refuse_slip(
            row,
            value,
            f"within {UNREACHABLE:g}x of the model's {_written(row, value)} with the file's values",
            f"{max(ratio, 1 / ratio):.0f}x {'more' if ratio > 1 else 'less'} than the model gives: "
            "no fit of the free parameters should bridge it",
        )


def far_above_rest(
    rows: tuple[Measurement, ...],
    model: np.ndarray,
    floor: np.ndarray,
    reached_above: Collection[str],
    capped: Mapping[str, tuple[int, float]],
) -> list[str]:
    """A note for each fitted row (weight above 0) whose free other would be more than
    :data:`ABOVE_REST` times the rest of the model (``floor``: the model with the free others at 0, SI),
    with the slip nearest the ``model`` value (at the file's own values, SI) as its guess. The rows judged
    are those whose floor :func:`refuse_unreachable` judges, alike:

    - a response time of a member in ``reached_above``: the other it asks is value − floor, the rest floor;
    - a throughput or transaction count of a closed member in ``capped`` (name: its terminals N and think
      time Z, s): the response it asks is N / X − Z (X its throughput, 1/s), so the other it asks is
      N / X − N / X₀ and the rest N / X₀ − Z, X₀ the floor (the throughput with other at 0)."""
    notes = []
    for row, value, least in zip(rows, model, floor, strict=True):
        if row.weight == 0 or not (np.isfinite(least) and least > 0 and row.value > 0):
            continue
        if row.quantity == "response_time" and row.member in reached_above:
            asked, rest = row.value - least, least
        elif row.quantity in ("throughput", "transactions") and row.member in capped:
            terminals, think = capped[row.member]
            per = row.interval if row.quantity == "transactions" else 1.0
            asked = terminals * per / row.value - terminals * per / least
            rest = terminals * per / least - think
        else:
            continue
        if rest > 0 and asked > ABOVE_REST * rest:
            whose = "every free other" if row.member == "all" else f"{row.member}'s other"
            text = (
                f"{row.source or 'measured row'}: {row.label} = "
                f"{row.typed or in_decimal_mark(_written(row, row.value), row.decimal_mark)} asks "
                f"{whose} for {readable(asked, 'ms', written=True)}, {asked / rest:.0f}x the rest of the "
                f"model ({readable(rest, 'ms', written=True)}): fitted, as time the model does not see "
                f"can be large, but more than {ABOVE_REST:g}x is likely a slip ({_slip_guess(row, value)})"
            )
            notes.append(in_decimal_mark(text, row.decimal_mark))
    return notes


def refuse_far_checks(checks: Sequence[tuple[Measurement, float]]) -> None:
    """Refuse, after the fit and before it is written, the first check row (a fitted row no free parameter
    moves, with the fitted model's value, SI) more than :data:`CHECK_FACTOR` times off the model, either
    way: an InputError naming the row, as :func:`refuse_unreachable` does. A share and a row without a
    model answer are not judged."""
    for row, value in checks:
        if row.quantity in SHARES or not (np.isfinite(value) and value > 0):
            continue
        ratio = row.value / value
        if 1 / CHECK_FACTOR <= ratio <= CHECK_FACTOR:
            continue
        _refuse_slip(
            row,
            value,
            f"within {CHECK_FACTOR:g}x of the model's {_written(row, value)}: no free parameter moves the "
            "row, so no fit bridges it",
            f"{max(ratio, 1 / ratio):.0f}x {'more' if ratio > 1 else 'less'} than the fitted model gives",
        )


# What makes two rows the same reading: its place, its quantity and value, the run's facts and the
# interval a count is over (not the weight: a copy given another weight is still the same reading twice)
_ALIKE: tuple[str, ...] = ("scenario", "member", "distance", "quantity", "value", "subchannels")
_ALIKE += ("metro_mirror", "castout_owner", "interval")


def refuse_repeated_rows(rows: Sequence[Measurement]) -> None:
    """Refuse the first two rows alike in every column of :data:`_ALIKE` (distance, member, quantity,
    value, the run's facts, interval): an InputError naming the file and both rows. Each row is fitted as
    an interval of its own, so a row copied by a slip counts twice and narrows every interval it moves
    (trial 8, P7: a copied response row turned its member's other from "weakly identified" to "pinned").
    Two intervals that truly read the same are one row with weight 2, the same fit said once; rows that
    differ in distance, configuration or interval are different readings."""
    seen: dict[tuple[object, ...], Measurement] = {}
    for row in rows:
        key = tuple(getattr(row, name) for name in _ALIKE)
        first = seen.setdefault(key, row)
        if first is row:
            continue
        raise InputError(
            f"{_rows_named((first, row))}: {row.label}",
            f"{row.typed or _written(row, row.value)} twice",
            "each interval once; two intervals that read the same as one row with weight 2, or an "
            "interval column that tells them apart",
            reason="a copied row would be fitted as a second interval",
        )


def _rows_named(rows: Sequence[Measurement]) -> str:
    """The rows' sources together: "ROWS.csv: rows 2 and 6" where one file holds them all."""
    files = {row.source.rpartition(": row ")[0] for row in rows}
    if len(files) == 1 and all(": row " in row.source for row in rows):
        return f"{files.pop()}: rows " + " and ".join(row.source.rpartition(": row ")[2] for row in rows)
    return " and ".join(row.source for row in rows)


def refuse_beyond_reach(rows: Sequence[Measurement], scenario: Scenario) -> None:
    """Refuse the first row measured farther than the scenario's links or zHyperLink reach
    (:func:`qmodel.scenario.protocols.reach_limit`), naming the row and the file, before any solve
    refuses the distance without saying which row asked for it (trial 7, N12)."""
    longest, words = reach_limit(scenario)
    for row in rows:
        if row.distance > longest:
            raise InputError(
                f"{row.source or 'measured row'}: {row.label}: distance",
                f"{row.km:g} km",
                f"at most {longest / 1e3:g} km, the reach of {scenario.where}'s hardware ({words})",
            )


def _refuse_slip(row: Measurement, model: float, allowed: str, reason: str) -> None:
    """The InputError of :func:`refuse_unreachable` for ``row``: its value as the file writes it, and at
    the end the value as the slip nearest the model's value would have it, a slip of unit (1000x; 60x
    for a rate or a count) or, where the file writes decimal commas, a lost or misplaced comma (10x,
    100x); numbers in the file's decimal mark."""
    raise InputError(
        f"{row.source or 'measured row'}: {row.label}",
        row.typed or in_decimal_mark(_written(row, row.value), row.decimal_mark),
        in_decimal_mark(f"{allowed} ({_slip_guess(row, model)})", row.decimal_mark),
        reason=in_decimal_mark(reason, row.decimal_mark),
    )


def _slip_guess(row: Measurement, model: float) -> str:
    """``row``'s value as the slip nearest ``model`` (SI) would have it: "a slip of unit? 16.2ms" (1000x;
    60x for a rate or a count) or, where the file writes decimal commas, "a lost or misplaced decimal
    comma? 16.2ms" (10x, 100x)."""
    slips = _TIME_SLIPS if UNITS[QUANTITIES[row.quantity]].dimension == "time" else _RATE_SLIPS + _TIME_SLIPS
    comma = _COMMA_SLIPS if row.decimal_mark == "," else ()
    slip = min((*slips, *comma), key=lambda factor: abs(np.log(row.value * factor / model)))
    guess = "a lost or misplaced decimal comma" if slip in comma else "a slip of unit"
    return f"{guess}? {_written(row, row.value * slip)}"


def _written(row: Measurement, value: float) -> str:
    """A value (SI) of ``row``'s quantity as a measurements table's cell writes it
    (:func:`qmodel.units.readable`)."""
    return readable(value, QUANTITIES[row.quantity], written=True)


def in_decimal_mark(text: str, mark: str) -> str:
    """``text`` with the decimal point of each number in it (a point between digits) written ``mark``:
    a message about a file with decimal commas speaks its numbers as the file does, its words ("e.g.")
    left as they are."""
    return text if mark == "." else re.sub(r"(?<=\d)\.(?=\d)", mark, text)


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
            return {
                key: float(f"{value * scale:.{_DIGITS}g}")
                for key, value in zip(keys, found["rows"][row], strict=True)
            }
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
            if (
                quantity not in QUANTITIES
                or not str(rule["quantity"]).startswith("scenario.")
                or not (isinstance(paper, dict) and "row" in paper)
            ):
                continue
            for place, key in enumerate(keys):
                if key not in rule.get("columns", keys):
                    continue
                inputs = {name: _cell(table, value, place) for name, value in rule.get("inputs", {}).items()}
                printed = _cell(table, paper, place)
                if printed == "" or "" in inputs.values():
                    continue
                unit = units.get(paper["row"], table.get("unit", "1"))
                distance_unit = (
                    units.get(rule["inputs"]["distance"]["row"], "km")
                    if isinstance(rule["inputs"].get("distance"), dict)
                    else "km"
                )
                rows.append(
                    Measurement(
                        scenario=str(inputs["scenario"]),
                        member=str(inputs["member"]),
                        distance=_si(float(inputs["distance"]), distance_unit),
                        quantity=quantity,
                        value=_si(float(printed), unit),
                        subchannels=int(inputs.get("subchannels", 0)),
                        metro_mirror=str(inputs.get("metro_mirror", "")),
                        castout_owner=str(inputs.get("castout_owner", "")),
                        interval=parse_value("interval", inputs["interval"], "s")
                        if "interval" in inputs
                        else STUDY_INTERVAL,
                        source=f"{table['id']}-{rule['id']}-{key}",
                    )
                )
    return tuple(rows)


# The columns of a measurements table: required, then optional (the run's facts, an interval, a weight).
REQUIRED_COLUMNS = ("distance", "member", "quantity", "value")
OPTIONAL_COLUMNS = ("weight", "subchannels", "metro_mirror", "castout_owner", "interval", "configuration")
CONFIGURATION_FORM = "run facts as key=value separated by ;, e.g. subchannels=2; metro_mirror=off"
# the units a bare number in a column means, where one is needed and the header gives none
_COLUMN_UNITS = {"distance": "km", "interval": "s"}


def read_measurements(path: str, scenario: str, sheet: str | None = None) -> tuple[Measurement, ...]:
    """The rows of a measurements table (CSV in any of the dialects qmodel reads, or a workbook's sheet):
    one measured number a row, columns ``distance`` (with its unit: ``40km``, or a unit in the header),
    ``member`` (a member's name or "all"), ``quantity`` (one of :data:`QUANTITIES`), ``value`` (with its
    unit where it is a time: ``43ms``, ``97.9%``, ``3388``) and optionally ``weight`` (times the
    quantity's own, :func:`row_sigma`; 0: shown, not fitted), ``subchannels``, ``metro_mirror`` (on, off),
    ``castout_owner``, ``interval`` (the count's, default 300s), ``configuration`` (those facts as
    ``subchannels=2; metro_mirror=off``). Any row that cannot be read is an InputError naming the file,
    row and column: a fit on the rows that could be read would rest on other rows than given.

    :param path: the file (a workbook by its suffix: .xlsx, .xlsm, .ods, .xls).
    :param scenario: the name the rows are measured on (the scenario file's).
    :param sheet: a workbook's sheet (default: the first).
    :returns: the rows, values in SI.
    """
    # the table readers load only when a measurements file is read: a scenario's answer (the band's
    # fit imports this module) does not pay their start-up (about 20 ms)
    from qmodel.tables import workbook
    from qmodel.tables.csvsource import read_csv_file, read_table
    from qmodel.tables.files import offering_other_sheets, read_sheet_table

    if workbook.is_workbook(path):
        table, _ = read_sheet_table(path, sheet, texts=False)
        table = table._replace(
            columns=[[workbook.cell_text(cell) for cell in column] for column in table.columns]
        )
        decimal = "."
    else:
        if sheet is not None:
            raise InputError(
                "--sheet",
                sheet,
                "--sheet with a workbook (.xlsx, .xlsm, .ods, .xls)",
                reason=f"{path} is CSV",
            )
        text, _ = read_csv_file(path, sys.stderr, "measurements")
        try:
            table, dialect = read_table(text)
        except InputError as error:  # the table's own errors say "file": here it is the measurements'
            if error.parameter != "file":
                raise
            raise InputError(path, error.value, error.allowed, reason=error.reason) from None
        decimal = dialect.decimal
    named: dict[str, tuple[int, str | None]] = {}
    for index, title in enumerate(table.header):
        split = split_header(title.strip())
        name = split[0].lower() if split else title.strip().lower()
        if name in REQUIRED_COLUMNS + OPTIONAL_COLUMNS:
            named[name] = (index, split[1] if split else None)
    missing = [name for name in REQUIRED_COLUMNS if name not in named]
    if missing:
        header_error = HeaderError(
            f"{path}: columns",
            ", ".join(table.header),
            ", ".join(REQUIRED_COLUMNS) + " (and optionally " + ", ".join(OPTIONAL_COLUMNS) + ")",
            reason=f"no {missing[0]} column",
        )
        raise offering_other_sheets(header_error, path, sheet)
    rows = []
    for row in range(table.size):
        if row in table.blank:
            continue
        cells = {name: str(table.columns[index][row]).strip() for name, (index, _) in named.items()}
        if decimal == ",":
            cells = {
                name: cell.replace(",", ".") if name in ("distance", "value", "weight", "interval") else cell
                for name, cell in cells.items()
            }
        where = f"{path}: row {row + table.first_row}"
        try:
            measured = _measurement(cells, {name: unit for name, (_, unit) in named.items()}, scenario, where)
        except InputError as refused:  # a cell's message speaks its numbers as the file writes them
            raise InputError(
                refused.parameter,
                in_decimal_mark(str(refused.value), decimal),
                in_decimal_mark(refused.allowed, decimal),
                reason=in_decimal_mark(refused.reason, decimal),
            ) from None
        typed = str(table.columns[named["value"][0]][row]).strip()
        if measured.quantity in SHARES and measured.value > 1:  # 97,1 for 97,1%: refused as the file's
            allowed, reason = share_advice(cells["value"])
            raise InputError(
                f"{where}, column value", typed, in_decimal_mark(allowed, decimal), reason=reason
            )
        rows.append(replace(measured, decimal_mark=decimal, typed=typed))
    if not rows:
        raise InputError(path, "no rows", "at least one measured row under the header")
    refuse_repeated_rows(rows)
    return tuple(rows)


def _quantity_value(column: str, text: str, unit: str, header_unit: str | None, where: str) -> float:
    """A cell read in ``unit`` (SI returned); a bare number takes the header's unit, and is refused where
    the value needs one written (a time: 43 could be ms or s)."""
    if not text:
        raise InputError(f"{where}, column {column}", "empty cell", "a value")
    bare = bare_number(text) is not None
    if bare and header_unit:
        text = f"{text}{header_unit}"
    elif bare and UNITS[unit].dimension in ("time", "length"):
        example = f"{text}{unit}"
        seconds = float(text)
        if UNITS[unit].dimension == "time" and unit != "s" and 0 < seconds < 1:
            # a spreadsheet holds a time in seconds (trial 9, Q10: 0.0124 for 12.4 ms): both readings
            example = (
                f"{text}s ({seconds / UNITS[unit].to_si:.4g} {unit}, a spreadsheet's seconds) or {example}"
            )
        raise InputError(
            f"{where}, column {column}",
            text,
            f"a value with its unit, e.g. {example}, or the unit in the header: {column} [{unit}]",
            reason="a bare number is ambiguous here",
        )
    try:
        return parse_value(f"{where}, column {column}", text, unit) * UNITS[unit].to_si
    except InputError as error:
        raise InputError(f"{where}, column {column}", text, error.allowed, reason=error.reason) from None


def _measurement(
    cells: dict[str, str], units: dict[str, str | None], scenario: str, where: str
) -> Measurement:
    quantity = cells["quantity"]
    if quantity not in QUANTITIES:
        raise InputError(f"{where}, column quantity", quantity or "empty cell", ", ".join(QUANTITIES))
    if not cells["member"]:
        raise InputError(f"{where}, column member", "empty cell", "a member's name, or all")
    facts: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in cells.get("configuration", "").split(";"))):
        key, equals, fact = part.partition("=")
        if not equals or key.strip() not in ("subchannels", "metro_mirror", "castout_owner"):
            raise InputError(f"{where}, column configuration", part, CONFIGURATION_FORM)
        facts[key.strip()] = fact.strip()
    facts.update(
        {name: cells[name] for name in ("subchannels", "metro_mirror", "castout_owner") if cells.get(name)}
    )
    subchannels = facts.get("subchannels", "0")
    if not subchannels.isdigit():
        raise InputError(f"{where}, subchannels", subchannels, "a whole number of subchannels on every path")
    mirror = str(spelled(facts.get("metro_mirror", ""), ("on", "off")))
    if mirror not in ("", "on", "off"):
        raise InputError(f"{where}, metro_mirror", mirror, "on or off (or empty: as the file says)")
    weight = 1.0
    if cells.get("weight"):
        weight = _quantity_value("weight", cells["weight"], "1", None, where)
        if not weight >= 0:
            raise InputError(f"{where}, column weight", cells["weight"], "a weight >= 0")
    interval = STUDY_INTERVAL
    if cells.get("interval"):
        interval = _quantity_value("interval", cells["interval"], "s", units.get("interval"), where)
    value = _quantity_value("value", cells["value"], QUANTITIES[quantity], units.get("value"), where)
    distance = _quantity_value("distance", cells["distance"], "km", units.get("distance"), where)
    if distance < 0 or value < 0 or not interval > 0:
        raise InputError(
            where,
            f"distance {cells['distance']}, value {cells['value']}",
            "a distance and a value >= 0, an interval > 0",
        )
    return Measurement(
        scenario,
        cells["member"],
        distance,
        quantity,
        value,
        int(subchannels),
        mirror,
        facts.get("castout_owner", ""),
        interval,
        where,
        weight,
    )
