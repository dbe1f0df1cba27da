"""What every command shares: one-line errors with their exit status, --format, NAME=VALUE, ranges.

Only click is imported here: the quick path pays for nothing else.
"""

from __future__ import annotations

import re

import click

from qmodel.errors import InputError, QmodelError
from qmodel.output import FORMATS

FORMAT_OPTION = click.option(
    "--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
    help="Output as a rich table, JSON or CSV.",
)


def _use_catalogues(ctx: click.Context, param: click.Parameter, paths: tuple[str, ...]) -> tuple[str, ...]:
    """Put the user catalogue files to use before the command runs (qmodel.catalogue.user)."""
    if paths:
        from qmodel.catalogue.user import use_catalogues

        try:
            use_catalogues(paths)
        except QmodelError as error:
            raise Failure(str(error), error.exit_status) from None
    return paths


CATALOGUE_OPTION = click.option(
    "--catalogue", "catalogues", multiple=True, metavar="FILE", type=click.Path(), envvar="QMODEL_CATALOGUE",
    expose_value=False, callback=_use_catalogues,
    help="A catalogue file of your own formulas (TOML, as formulas/*.toml); repeatable. "
         "Also QMODEL_CATALOGUE, paths separated by ':'.",
)


class Failure(click.ClickException):
    """A qmodel error: one line on stderr, the error's exit status (2 for bad input)."""

    def __init__(self, message: str, exit_code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = exit_code

    def show(self, file=None) -> None:
        click.echo(f"error: {self.message}", err=True)


class QmodelGroup(click.Group):
    """Turns qmodel's own errors into one-line messages without a traceback."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except QmodelError as error:
            raise Failure(str(error), error.exit_status) from None


def _pairs(assignments: tuple[str, ...], units: dict[str, str], what: str) -> list[tuple[str, str]]:
    """NAME=VALUE pairs as (name, text), each name known and given once."""
    pairs: dict[str, str] = {}
    for assignment in assignments:
        name, sep, text = assignment.partition("=")
        name = name.strip()
        if not sep or not name:
            raise InputError(assignment, "", "NAME=VALUE, e.g. service_time=1ms",
                             reason="not a NAME=VALUE pair")
        if name not in units:
            raise InputError(name, text, ", ".join(units), reason=f"not {what}")
        if name in pairs:
            raise InputError(name, text, "one value per name", reason="given twice")
        pairs[name] = text
    return list(pairs.items())


def parse_assignments(assignments: tuple[str, ...], units: dict[str, str], what: str) -> dict[str, float]:
    """NAME=VALUE pairs, each value parsed in the unit of its name (``service_time=1ms``)."""
    from qmodel.units import parse_value

    return {name: parse_value(name, text, units[name]) for name, text in _pairs(assignments, units, what)}


def split_range(option: str, text: str) -> tuple[str, str] | None:
    """``START..STOP`` as its two texts, or None when ``text`` is a single value."""
    start, dots, stop = text.partition("..")
    if not dots:
        return None
    if not start.strip() or not stop.strip():
        raise InputError(option, text, "START..STOP, e.g. 1..100 or 20km..100km", reason="half a range")
    return start, stop


def parse_list(name: str, text: str, unit: str) -> list[float]:
    """``20,40,70km`` as three values: a unit written on the last item applies to the bare ones.

    Each item is read by :func:`qmodel.units.parse_value` (``1ms,400us``, ``80%,0.9``).
    An item like ``000`` (from ``35,000``) is refused: a thousands separator is
    not a list, and a decimal comma is not either (write 35000 or 1.5).
    """
    from qmodel.units import parse_value, split_number

    items = [item.strip() for item in text.split(",")]
    if len(items) == 1:
        return [parse_value(name, text, unit)]
    for item in items[1:]:
        if re.fullmatch(r"0\d+", item) or not item:
            raise InputError(name, text, "a list such as 20,40,70km, or one number such as 35000",
                             reason="a comma inside a number: write 35000 (or 35K) and 1.5, not 35,000 or 1,5"
                             if item else "an empty list item")
    last = split_number(items[-1])
    suffix = last[1] if last else ""
    return [parse_value(name, item + suffix if suffix and split_number(item) and not split_number(item)[1]
                        else item, unit) for item in items]


def parse_list_assignments(assignments: tuple[str, ...], units: dict[str, str],
                           what: str) -> dict[str, list[float]]:
    """NAME=VALUE pairs where a value may be a list (``distance=20,40,70km``), each item in its unit."""
    return {name: parse_list(name, text, units[name]) for name, text in _pairs(assignments, units, what)}
