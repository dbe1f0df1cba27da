"""What every command shares: one-line errors with their exit status, --format, NAME=VALUE, ranges.

Only click is imported here: the quick path pays for nothing else.
"""

from __future__ import annotations

import contextlib
import re
import warnings
from collections.abc import Collection, Iterator

import click

from qmodel.errors import InputError, QmodelError
from qmodel.output import FORMATS, terminal_width, wrap_at_spaces
from qmodel.safetext import clipped
from qmodel.units import bare_number, parse_list, parse_value, refuse_decimal_comma

FORMAT_OPTION = click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="table",
    show_default=True,
    help="Output as a rich table, JSON or CSV.",
)


def _use_catalogues(ctx: click.Context, param: click.Parameter, paths: tuple[str, ...]) -> tuple[str, ...]:
    """Put the user catalogue files to use before the command runs (qmodel.catalogue.user)."""
    if paths:
        from qmodel.catalogue.user import use_catalogues  # sympy and codegen: only when a file is given

        try:
            use_catalogues(paths)
        except QmodelError as error:
            raise Failure(str(error), error.exit_status) from None
    return paths


CATALOGUE_OPTION = click.option(
    "--catalogue",
    "catalogues",
    multiple=True,
    metavar="FILE",
    type=click.Path(),
    envvar="QMODEL_CATALOGUE",
    expose_value=False,
    callback=_use_catalogues,
    help="A catalogue file of your own formulas (TOML, as formulas/*.toml); repeatable. "
    "Also QMODEL_CATALOGUE, paths separated by ':'.",
)


LONGEST_LINE = 1000  # characters of an error line


class Failure(click.ClickException):
    """A qmodel error: one line on stderr, the error's exit status (2 for bad input)."""

    def __init__(self, message: str, exit_code: int = 2) -> None:
        super().__init__(message)
        # click 8.2+ declares exit_code a ClassVar; each Failure carries its own (2, 3, ...)
        self.exit_code = exit_code  # type: ignore[misc, unused-ignore]

    def show(self, file=None) -> None:
        """One line on standard error: control characters escaped, cut to :data:`LONGEST_LINE` characters
        (a message quoting a 100,000-character expression stays readable)."""
        click.echo(f"error: {clipped(self.message, LONGEST_LINE)}", err=True)


class OutputClosedError(Exception):
    """Standard output was closed by its reader (``qmodel ... | head -1``); see :func:`qmodel.cli.main`."""


class QmodelGroup(click.Group):
    """Turns qmodel's own errors and click's usage errors into one-line messages without a traceback."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta.setdefault(_WORDS, list(args))  # the words as typed after ``qmodel``, for the hints
        with _one_line_errors(ctx):
            return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context):
        with _one_line_errors(ctx):
            return super().invoke(ctx)


@contextlib.contextmanager
def _one_line_errors(ctx: click.Context) -> Iterator[None]:
    """qmodel's errors and click's usage errors as a :class:`Failure` (one line, its exit status); output
    closed by its reader as :class:`OutputClosedError` (click would exit 1 silently, the status of a found
    failure); a numpy RuntimeWarning (overflow, invalid value) as a one-line error, never on the terminal.
    ``qmodel`` alone still shows the help."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)  # numpy's over- and underflows: never printed
            yield
    except QmodelError as error:
        raise Failure(str(error), error.exit_status) from None
    except RuntimeWarning as warning:  # a step met a value outside what it holds (each is refused by name
        # where found; this is the net for the rest)
        raise Failure(
            f"the arithmetic failed ({warning}): an input is outside the range the model holds; "
            "allowed: values of a plausible size (please report the command)",
            2,
        ) from None
    except click.exceptions.NoArgsIsHelpError:
        raise
    except click.UsageError as error:
        raise Failure(usage_line(error, ctx), error.exit_code) from None
    except BrokenPipeError:
        raise OutputClosedError from None


_WORDS = "qmodel.words"


def complete_formula_id(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    """Shell completion of a catalogue entry's id (``qmodel calc m<TAB>``: mg1, mm1, mmc, ...): the shipped
    ids from the generated catalogue, which loads no TOML and no sympy."""
    from qmodel.catalogue._compiled import ENTRIES  # the generated catalogue (numpy): only when completing

    return sorted(name for name in ENTRIES if name.startswith(incomplete))


def complete_scenario(ctx: click.Context, param: click.Parameter, incomplete: str) -> list:
    """Shell completion of a scenario: the shipped scenarios' names, and the files of the directory
    typed (a scenario of your own)."""
    from click.shell_completion import CompletionItem

    from qmodel.scenario.files import shipped_scenarios  # the scenario package: only when completing

    names = [CompletionItem(name) for name in sorted(shipped_scenarios()) if name.startswith(incomplete)]
    return [*names, CompletionItem(incomplete, type="file")]


def complete_domain(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    """Shell completion of a catalogue domain, one per formulas/*.toml file (``--domain q<TAB>``)."""
    from qmodel.catalogue._compiled import ENTRIES  # the generated catalogue (numpy): only when completing

    return sorted({file.removesuffix(".toml") for file, _ in ENTRIES.values() if file.startswith(incomplete)})


def say(text: str, err: bool = False) -> None:
    """A sentence under a table, left-aligned and wrapped to the terminal's width (80 columns when
    piped) at spaces only: a number and its unit stay on one line (:func:`qmodel.output.wrap_at_spaces`)."""
    if text:
        click.echo("\n".join(wrap_at_spaces(text, terminal_width())), err=err)


def usage_line(error: click.UsageError, ctx: click.Context) -> str:
    """Click's usage error as qmodel's one line: the message, and the help to read.

    A unit typed apart from its number (``--distance 70 km``) reaches click as an extra
    argument; the line then says how to write the value as one word (:func:`unit_apart`)."""
    message = error.format_message().removesuffix(".")
    if error.ctx is not None:
        command = error.ctx.command_path
    else:  # an option's missing value is reported without the subcommand's context
        command = " ".join(filter(None, (ctx.command_path, ctx.invoked_subcommand)))
    words = ctx.meta[_WORDS]
    extra = re.fullmatch(r"Got unexpected extra arguments? \((\S+).*\)", error.message)
    if extra and extra[1] in words:
        place = words.index(extra[1])
        value = words[place - 1] if place >= 1 else ""
        option = words[place - 2] if place >= 2 and words[place - 2].startswith("-") else ""
        if value.startswith("-") and "=" in value:
            option, _, value = value.partition("=")
        if option and unit_apart(value, extra[1]):
            message += (
                f"; a number and its unit are one value: {option} {value}{extra[1]}"
                f' or, quoted, {option} "{value} {extra[1]}"'
            )
        elif option and value.endswith(","):  # a list typed with a space after a comma: 20km, 40km
            message += (
                f"; a list is one value: {option} {value}{extra[1]} (no space after the comma)"
                f' or, quoted, {option} "{value} {extra[1]}"'
            )
    return f"{message} (see '{command} --help')"


# what may be a unit: letters, / and % (km, us/km, /s, %, K); not a name (service_time) or a number
_UNIT_LIKE = re.compile(r"(?:[^\W\d_]|[/%])+")


def unit_apart(number: str, word: str) -> bool:
    """Whether ``word`` is a unit typed apart from the ``number`` before it (``70 km``, ``5 /s``, ``190 K``,
    ``1. ms``): the number alone (:func:`qmodel.units.bare_number`), the word made of letters, / and % only.
    The one rule for an option's value (:func:`usage_line`) and a NAME=VALUE pair
    (:func:`name_value_pairs`)."""
    return bare_number(number) is not None and _UNIT_LIKE.fullmatch(word) is not None


def name_value_pairs(
    assignments: tuple[str, ...], names: Collection[str] | None = None, what: str = ""
) -> dict[str, str]:
    """NAME=VALUE pairs as {name: text as typed}, each name given once and, with ``names``, one of those
    (else refused as not ``what``)."""
    pairs: dict[str, str] = {}
    for place, assignment in enumerate(assignments):
        name, sep, text = assignment.partition("=")
        name = name.strip()
        if not sep or not name:
            before = assignments[place - 1] if place else ""
            if "=" in before and unit_apart(before.partition("=")[2], assignment):
                raise InputError(
                    assignment,
                    "",
                    f"{before}{assignment} (a number and its unit are one word)",
                    reason=f"a unit apart from its number, after {before}",
                )
            raise InputError(
                assignment, "", "NAME=VALUE, e.g. service_time=1ms", reason="not a NAME=VALUE pair"
            )
        if names is not None and name not in names:
            raise InputError(name, text, ", ".join(names), reason=f"not {what}")
        if name in pairs:
            raise InputError(name, text, "one value per name", reason="given twice")
        pairs[name] = text
    return pairs


def parse_assignments(assignments: tuple[str, ...], units: dict[str, str], what: str) -> dict[str, float]:
    """NAME=VALUE pairs, each value parsed in the unit of its name (``service_time=1ms``)."""
    return {
        name: parse_value(name, text, units[name])
        for name, text in name_value_pairs(assignments, units, what).items()
    }


def parse_list_assignments(
    assignments: tuple[str, ...], units: dict[str, str], what: str, whole: frozenset[str] = frozenset()
) -> dict[str, list[float]]:
    """NAME=VALUE pairs where a value may be a list (``distance=20,40,70km``), each item in its unit.

    Two whole numbers joined by a comma (``distance=0,5km``) are refused as ambiguous (0.5 km, or 0 and
    5 km?) unless the name is in ``whole``, counts that cannot have a decimal part (``servers=6,8``)."""
    lists = {}
    for name, text in name_value_pairs(assignments, units, what).items():
        lists[name] = parse_list(name, text, units[name])  # first: 35,000 is refused as a thousands mark
        if name not in whole:
            refuse_decimal_comma(name, text, units[name])
    return lists
