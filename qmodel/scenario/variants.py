"""What-if variants of a scenario from a CSV file: one row per variant, columns overriding scenario keys.

A column named ``distance`` or written as a dotted key overrides that key of the scenario file:

    member.G1P2.terminals   member.*.think_time[s]   path.*.subchannels   path.G1P2.CF1.background_rate
    locks.lockable_items    conversion.threshold[us] goal.response_time    disk.pprc_overhead[ms]

(``*`` for every member or path; a unit in [] applies to the column's bare numbers). Other columns
pass through. Each row is checked like a scenario file, its errors reported with the row number;
rows that differ only in distance are solved together. The output is each input row with, per
member and for all, response time, share within the goal, throughput and CPU busy appended, in
the input's CSV dialect (separator, decimal mark, BOM, line ends).
"""

from __future__ import annotations

import copy
import re
from typing import TextIO

import numpy as np

from qmodel.batch import Dialect, read_table
from qmodel.errors import InputError
from qmodel.scenario.compose import solve_scenario
from qmodel.scenario.spec import scenario_from_dict

_KEY = re.compile(r"^\s*([A-Za-z_*][\w.*]*?)\s*(?:\[\s*([^\]]+?)\s*\])?\s*$")
SECTIONS = ("goal", "locks", "conversion", "disk", "distribution")
RESULT_COLUMNS = ("R[ms]", "within goal[%]", "X[1/s]", "CPU busy[%]")


def _override(data: dict, key: str, value: object, row_label: str) -> None:
    parts = key.split(".")
    if parts == ["distance"]:
        data["distance"] = value
        return
    if parts[0] in SECTIONS and len(parts) == 2:
        data.setdefault(parts[0], {})[parts[1]] = value
        return
    if parts[0] == "member" and len(parts) == 3:
        tables = [t for t in data.get("member", []) if parts[1] in ("*", t.get("name"))]
    elif parts[0] == "path" and len(parts) == 4:
        tables = [
            t
            for t in data.get("path", [])
            if parts[1] in ("*", t.get("member")) and parts[2] in ("*", t.get("cf"))
        ]
    elif parts[0] == "path" and len(parts) == 3 and parts[1] == "*":
        tables = list(data.get("path", []))
    else:
        raise InputError(
            f"column {key!r}",
            row_label,
            "distance, member.NAME.KEY, path.MEMBER.CF.KEY, "
            "path.*.KEY or " + ", ".join(f"{s}.KEY" for s in SECTIONS),
        )
    if not tables:
        raise InputError(
            f"column {key!r}",
            parts[1],
            "a member (or path) of the scenario, or *",
            reason="no such member or path",
        )
    for table in tables:
        table[parts[-1]] = value


def _cell_value(text: str, unit: str | None, dialect: Dialect, name: str) -> object:
    """A cell as the scenario file would hold it: a whole number, a number, or text with its unit."""
    from qmodel.batch import locale_number

    text = locale_number(name, text, dialect) if dialect.decimal == "," else text.strip()
    if unit is not None and re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", text):
        return f"{text}{unit}"
    if re.fullmatch(r"[+-]?\d+", text):
        return int(text)
    try:
        return float(text)
    except ValueError:
        return text


def run_variants(raw: dict, text: str, out: TextIO, err: TextIO, where: str = "variants") -> int:
    """Solve every row of CSV ``text`` as a variant of the scenario ``raw`` (its parsed TOML);
    write the rows with results to ``out``, each bad row's error to ``err``. Exit status: 0, or 1
    if some row failed (2 is raised as InputError: the file as a whole cannot be used)."""
    table, dialect = read_table(text)
    header = [title.strip() for title in table.header]
    columns = {}
    for index, title in enumerate(header):
        match = _KEY.match(title)
        if match and ("." in match.group(1) or match.group(1) == "distance"):
            columns[index] = (match.group(1), match.group(2))
    if not columns:
        raise InputError(
            "columns",
            ", ".join(header),
            "at least one override column: distance, member.NAME.KEY, path.*.KEY, locks.KEY, ...",
        )
    base = scenario_from_dict(raw, where)
    members = [m.name for m in base.members] + (["all"] if len(base.members) > 1 else [])
    groups: dict[str, list[tuple[int, object, float]]] = {}
    errors: dict[int, InputError] = dict(table.errors)
    for row in range(len(table.row_texts)):
        if row in errors or row in table.blank:
            continue
        data = copy.deepcopy(raw)
        try:
            for index, (key, unit) in columns.items():
                cell = table.columns[index][row]
                if cell.strip():
                    _override(data, key, _cell_value(cell, unit, dialect, key), f"row {row + 1}")
            variant = scenario_from_dict(data, where)
            values = variant.distances
        except InputError as error:
            errors[row] = error
            continue
        if values.size != 1:
            errors[row] = InputError("distance", repr(data.get("distance")), "one distance per row")
            continue
        signature = repr(sorted((k, v) for k, v in data.items() if k != "distance"))
        groups.setdefault(signature, []).append((row, variant, float(values[0])))
    results: dict[int, list[float]] = {}
    for rows in groups.values():
        solved = solve_scenario(rows[0][1], np.array([distance for _, _, distance in rows]))
        for place, (row, _, _) in enumerate(rows):
            values: list[float] = []
            for m in range(len(base.members)):
                values += [
                    solved.response_time[m, place] * 1e3,
                    solved.share_within_goal[m, place] * 100,
                    solved.throughput[m, place],
                    solved.cpu_busy[m, place] * 100,
                ]
            if len(base.members) > 1:
                values += [
                    solved.total_response_time[place] * 1e3,
                    solved.total_share_within_goal[place] * 100,
                    solved.total_throughput[place],
                    np.nan,
                ]
            results[row] = values
            if solved.thrashing[place]:
                begins = f"thrashing from {solved.thrashing_terminals[place]:.0f} terminals"
                errors[row] = InputError(
                    "lock contention", "thrashing", "a load with a fixed point", reason=begins
                )
    titles = [f"{m} {quantity}" for m in members for quantity in RESULT_COLUMNS]
    _write(table, dialect, titles, results, errors, out)
    for row in sorted(errors):
        err.write(f"scenario: {errors[row].at_row(row + 1)}\n")
    return 1 if errors else 0


def _write(
    table,
    dialect: Dialect,
    titles: list[str],
    results: dict[int, list[float]],
    errors: dict[int, InputError],
    out: TextIO,
) -> None:
    from qmodel.batch import _quote

    separator = dialect.delimiter
    if dialect.bom:
        out.write("\ufeff")
    lines = [separator.join([table.header_text, *titles, "error"])]
    for row, text in enumerate(table.row_texts):
        values = results.get(row, [np.nan] * len(titles))
        cells = ["" if value != value else (f"{value:.6g}".replace(".", dialect.decimal)) for value in values]
        error = _quote(errors[row].message(), separator) if row in errors else ""
        lines.append(separator.join([text, *cells, error]))
    out.write(dialect.line_end.join(lines) + dialect.line_end)


def run_variant_files(scenario_path, input_path: str, output_path: str) -> int:
    """``qmodel scenario FILE --variants IN.csv -o OUT.csv``: paths in (``-``: stdin/stdout), status out."""
    import io
    import sys

    from qmodel.batch import _read_bytes, decode
    from qmodel.output import check_output_path
    from qmodel.tomlread import read_toml

    if output_path != "-":
        check_output_path("-o", output_path)
    raw = read_toml(scenario_path)
    data = sys.stdin.buffer.read() if input_path == "-" else _read_bytes(input_path)
    text, encoding = decode(data, input_path)
    buffer = io.StringIO()
    status = run_variants(raw, text, buffer, sys.stderr, scenario_path.name)
    if output_path == "-":
        sys.stdout.write(buffer.getvalue())
    else:
        with open(output_path, "w", encoding=encoding, newline="") as handle:
            handle.write(buffer.getvalue())
    return status
