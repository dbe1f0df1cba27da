"""Results as tables for pandas and notebooks: the one record-key convention and the one rendering
behind every result's ``records()``, ``to_frame()``, ``to_json()`` and ``_repr_html_()``.

A result gives its rows as records: flat dicts, one per row, whose keys are the column names in JSON,
CSV, a DataFrame and the notebook table alike. A key says its unit by one rule (:func:`key`):

- a number with a unit is ``name[unit]``, no space: the name is the result's field (or the catalogue
  symbol), the unit as :mod:`qmodel.units` spells it (``response_time[ms]``, ``throughput[1/s]``,
  ``distance[km]``, ``share_within_goal[%]``, ``utilization[ratio]`` for a fraction from 0 to 1);
- a count (unit ``1``), a text, a boolean or an identifier is the bare name (``member``,
  ``population``, ``queue_length``, ``thrashing``);
- a band's ends are ``name_low[unit]`` and ``name_high[unit]`` (:func:`end_key`);
- a table whose rows are different quantities (``qmodel validate``'s cases, ``qmodel calc``'s one
  answer) gives each row's unit as a value, in a ``unit`` field beside it.

The form is the one qmodel reads back (a batch or --variants header ``name[unit]``), so a record's
unit is one :data:`qmodel.units.UNITS` look-up away (:func:`split_key`). A terminal table may show
shorter labels fit for 80 columns (``R [ms]``); that is a display, not a record.

:func:`to_frame` makes records a pandas DataFrame and :func:`html` a compact HTML table with a title,
lines under it (a scenario's goal) and the warnings, numbers to six significant digits as the terminal
table shows them. pandas is optional: it is imported only by :func:`to_frame`, :func:`table_columns` of
a DataFrame and :func:`batch_frame`, never by the CLI or the quick path; the HTML needs nothing but the
standard library.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from qmodel.errors import InputError
from qmodel.output import format_number

MOST_ROWS = 60  # rows a notebook shows before "... N more rows" (to_frame() has them all)
COUNT = "1"  # the unit of a count: its key is the bare name
_KEY = re.compile(r"^(?P<name>[^\[\]]+)\[(?P<unit>[^\[\]]+)\]$")


def key(name: str, unit: str) -> str:
    """The record key of quantity ``name`` in ``unit``: ``name[unit]`` (``response_time[ms]``), the bare
    name for a count (unit ``1``).

    :param name: the quantity's name (a field or symbol, snake_case).
    :param unit: its unit as :mod:`qmodel.units` spells it (``1`` for a count).
    :returns: the key.
    """
    return name if unit == COUNT else f"{name}[{unit}]"


def split_key(record_key: str) -> tuple[str, str | None]:
    """(name, unit) of a record key: ``response_time[ms]`` → ("response_time", "ms"); a bare key
    (a count, a text, a flag) → (the key, None).

    :param record_key: a key of a result's records.
    :returns: (name, unit), the unit None for a bare key.
    """
    found = _KEY.match(record_key)
    return (found["name"], found["unit"]) if found else (record_key, None)


def end_key(record_key: str, end: str) -> str:
    """The key of a band's ``end`` ("low", "high") of ``record_key``: ``response_time[ms]`` →
    ``response_time_low[ms]``."""
    name, unit = split_key(record_key)
    return key(f"{name}_{end}", COUNT if unit is None else unit)


def level_text(level: float) -> str:
    """A band's level (a share) as its label says it: 80%, 95%, 99.9% (never rounded up to 100%)."""
    return f"{level * 100:.4g}%"


def label(record_key: str) -> str:
    """A record key as a terminal table's column label: a space before the unit, where the table may
    wrap it (``response_time[ms]`` → ``response_time [ms]``)."""
    name, unit = split_key(record_key)
    return name if unit is None else f"{name} [{unit}]"


def to_frame(records: Sequence[Mapping[str, Any]], columns: Sequence[str] | None = None):
    """A pandas DataFrame of ``records``, one row each, columns in the records' order (or ``columns``)."""
    import pandas as pd  # optional: only a caller who asks for a DataFrame needs it

    return pd.DataFrame.from_records(list(records), columns=list(columns) if columns is not None else None)


def html(
    title: str,
    records: Sequence[Mapping[str, Any]],
    *,
    columns: Sequence[str] | None = None,
    lines: Sequence[str] = (),
    warnings: Sequence[str] = (),
) -> str:
    """A compact HTML table of ``records`` (``columns``: the keys to show, default all of the first
    record's), the title above it, ``lines`` and each warning below it; at most :data:`MOST_ROWS` rows."""
    from html import escape  # here, not at the top: the quick path imports this module, never the HTML

    keys = list(columns if columns is not None else (records[0] if records else {}))
    shown = records[:MOST_ROWS]
    head = "".join(f"<th>{escape(str(key))}</th>" for key in keys)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(_cell(record.get(key)))}</td>" for key in keys) + "</tr>"
        for record in shown
    )
    notes = list(lines)
    if len(records) > len(shown):
        notes.append(f"… {len(records) - len(shown):,} more rows (to_frame() has them all)")
    notes += [f"warning: {warning}" for warning in warnings]
    return (
        f"<div><strong>{escape(title)}</strong><table><thead><tr>{head}</tr></thead>"
        f"<tbody>{body}</tbody></table>" + "".join(f"<p>{escape(note)}</p>" for note in notes) + "</div>"
    )


def _cell(value: Any) -> str:
    if isinstance(value, float | np.floating) and not math.isfinite(value):
        return "" if math.isnan(value) else str(value)
    return format_number(float(value) if isinstance(value, np.floating) else value)


def broadcast_records(columns: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Records of columns that broadcast together (scalars and arrays of inputs and outputs), one per
    element: ``{"arrival_rate[1/s]": [700, 800], "service_time[ms]": 1}`` is two records."""
    arrays = np.broadcast_arrays(*(np.asarray(value) for value in columns.values()))
    flat = [array.ravel().tolist() for array in arrays]
    return [dict(zip(columns, row, strict=True)) for row in zip(*flat, strict=True)]


def table_columns(table) -> tuple[list[str], list[list]]:
    """(column names, cells by column) of a pandas DataFrame or a mapping of column name to values, a
    missing value (None, NaN, pandas' NA) an empty cell."""
    frame = hasattr(table, "columns") and hasattr(table, "to_dict")  # a DataFrame
    if not frame and not isinstance(table, Mapping):
        raise InputError(
            "table",
            type(table).__name__,
            "a pandas DataFrame or a mapping of column name to values",
            reason="not a table",
        )
    names = [str(name) for name in (table.columns if frame else table)]
    twice = next((name for place, name in enumerate(names) if name in names[:place]), None)
    if twice is not None:
        raise InputError("table", f"column {twice!r}", "each column name once", reason="given twice")
    if frame:
        values = [column.tolist() for _, column in table.items()]
    else:
        scalar = next(
            (
                name
                for name, column in table.items()
                if isinstance(column, str | bytes) or not hasattr(column, "__len__")
            ),
            None,
        )
        if scalar is not None:
            raise InputError(
                "table",
                f"column {str(scalar)!r}",
                "a sequence of values, one per row (a list, "
                "an array): a value for every row is a setting, run(..., name=value)",
                reason="one value, not a column",
            )
        values = [
            np.asarray(column).tolist() if isinstance(column, np.ndarray) else list(column)
            for column in table.values()
        ]
    if len({len(column) for column in values}) > 1:
        raise InputError(
            "table",
            ", ".join(f"{name}: {len(column)}" for name, column in zip(names, values, strict=True)),
            "columns of one length",
            reason="columns of different lengths",
        )
    return names, [[_missing_as_empty(cell) for cell in column] for column in values]


def _missing_as_empty(cell: Any) -> Any:
    if cell is None or (isinstance(cell, float) and math.isnan(cell)):
        return ""
    if type(cell).__name__ in ("NAType", "NaTType"):  # pandas' missing markers
        return ""
    return cell


def batch_frame(
    table, results: Mapping[str, np.ndarray], error_title: str, messages: list[str], warned: list[str]
):
    """The input ``table`` (a DataFrame or a mapping of columns) with the result columns and the error
    column appended, as a new DataFrame; the rows' warnings in ``attrs["warnings"]`` and, if any, one
    Python warning naming the first and how many there are."""
    import pandas as pd  # optional: a caller who passes a table for a DataFrame back has it

    frame = (
        table.copy()
        if isinstance(table, pd.DataFrame)
        else pd.DataFrame({name: list(column) for name, column in table.items()})
    )
    for title, values in results.items():
        frame[title] = values
    frame[error_title] = messages
    frame.attrs["warnings"] = warned
    if warned:
        more = f" (and {len(warned) - 1} more: frame.attrs['warnings'])" if len(warned) > 1 else ""
        warnings.warn(f"{warned[0]}{more}", UserWarning, stacklevel=3)
    return frame


# the columns a scenario's notebook table shows (to_frame() has every field)
SCENARIO_COLUMNS = (
    "distance[km]",
    "member",
    "response_time[ms]",
    "share_within_goal[%]",
    "throughput[1/s]",
    "cpu_busy_of_lpar[%]",
)


def scenario_html(
    title: str, records: Sequence[Mapping[str, Any]], goal_time: float, goal_share: float
) -> str:
    """A scenario's compact table: distance, member, response time, share within the goal, throughput
    and CPU, each value with its band (``low–high``) where the records carry one; the goal line under
    it, and a warning for each distance with no response time."""
    shown = []
    for record in records:
        row = {key: record.get(key) for key in SCENARIO_COLUMNS}
        for key in SCENARIO_COLUMNS[2:]:
            low, high = record.get(end_key(key, "low")), record.get(end_key(key, "high"))
            if low is not None and high is not None:
                row[key] = f"{_cell(record.get(key))} ({_cell(low)}–{_cell(high)})"
        shown.append(row)
    goal = (
        f"goal: {format_number(goal_share * 100)}% of transactions within {format_number(goal_time * 1e3)} ms"
    )
    if any(end_key(SCENARIO_COLUMNS[2], "low") in record for record in records):
        goal += (
            "; band (in ()): where the band's level of the outcomes under the model fall (the parameters"
            " and the model's own error on what it predicts, sampled jointly)"
        )
    warnings = [
        f"at {format_number(record['distance[km]'])} km: "
        + (
            "the volumes cannot carry their other work"
            if record.get("volumes_saturated")
            else "lock contention thrashes"
        )
        + ": no response time"
        for record in records
        if record.get("thrashing") or record.get("volumes_saturated")
    ]
    return html(title, shown, lines=[goal], warnings=list(dict.fromkeys(warnings)))  # once per distance
