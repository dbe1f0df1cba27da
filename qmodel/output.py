"""Render a result as a rich table, JSON or CSV (the ``--format`` option of every command)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

FORMATS = ("table", "json", "csv")


def format_number(value: Any) -> str:
    """Six significant digits for floats, whole numbers in full; other values as they are."""
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return f"{value:.6g}"
    return "" if value is None else str(value)


def console(markup: bool = False):
    """A rich Console; 140 columns wide when the output is not a terminal (files, pipes).

    Markup, emoji codes and highlighting are off unless asked for: values are
    printed as they are, and the quick path does not pay for parsing them.
    """
    import os

    from rich.console import Console

    wide = not sys.stdout.isatty() and "COLUMNS" not in os.environ
    return Console(width=140 if wide else None, markup=markup, emoji=False, highlight=False)


def render(
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    fmt: str,
    *,
    title: str = "",
    caption: str = "",
    json_payload: Any = None,
) -> None:
    """Print ``rows`` under ``columns`` in the chosen format to standard output.

    ``json_payload`` replaces the default JSON (a list of row objects) where a
    command has a richer structure to give.
    """
    if fmt == "json":
        import json

        payload = json_payload
        if payload is None:
            payload = [dict(zip(columns, row, strict=True)) for row in rows]
        json.dump(payload, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    elif fmt == "csv":
        import csv

        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows([["" if v is None else v for v in row] for row in rows])
    else:
        from rich.table import Table

        table = Table(title=title or None, caption=caption or None)
        for column in columns:
            table.add_column(column, overflow="fold")
        for row in rows:
            table.add_row(*(format_number(value) for value in row))
        console().print(table)
