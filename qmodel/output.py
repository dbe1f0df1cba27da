"""Render a result as a rich table, JSON or CSV (the ``--format`` option of every command).

Tables fit the terminal without ever breaking a number across lines. When the
columns do not fit side by side, the layout gives way in this order:

1. fold: the columns are split over several tables, each repeating the key
   columns (those that identify a row: the first, and the text columns after
   it that are needed to tell the rows apart) so every table can be read on its own;
2. records: one block per row, a "column | value" table each, when the key
   columns and any one other column do not fit side by side;
3. truncate: text labels are cut short with "…"; numbers never are.

The width is the terminal's, also when the output is piped (from ``COLUMNS``,
or from the terminal stderr or stdin is attached to), 80 when there is none.

A table is drawn here character for character as rich draws it, on a terminal
(with rich's styles) and piped, so a quick answer does not load rich's console;
rich draws where it might draw otherwise (see :func:`_box_text`).
"""

from __future__ import annotations

import math
import os
import re
import sys
from collections.abc import Sequence
from typing import Any, NamedTuple

from qmodel.safetext import inert_cell, shown

FORMATS = ("table", "json", "csv")
_FALLBACK_WIDTH = 80
# a rich table with the default box: one rule and two spaces of padding per column, one rule at the end
_PER_COLUMN, _PER_TABLE = 3, 1


SIGNIFICANT = 12  # digits of a float in CSV and JSON: more than any input has, none of the binary noise


def exact_enough(value: float) -> float:
    """A float rounded to :data:`SIGNIFICANT` digits (6.0, not 5.999999999999999), -0.0 as 0."""
    return float(f"{value:.{SIGNIFICANT}g}") + 0.0


def format_number(value: Any) -> str:
    """Six significant digits for floats, whole numbers in full; other values as they are. A float is
    rounded from the number CSV and JSON write (:func:`exact_enough`), so the table agrees with them
    (28531.250000000004 is 28531.25 there, so 28531.2 here, never 28531.3)."""
    if isinstance(value, float):
        value = exact_enough(value) if math.isfinite(value) else value
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return f"{value:.6g}"
    return "" if value is None else str(value)


def csv_number(value: Any) -> Any:
    """A CSV cell: a float to :data:`SIGNIFICANT` digits written as Python writes it (6.0), a boolean
    as JSON writes it (true, false), text a spreadsheet will not evaluate
    (:func:`qmodel.safetext.inert_cell`), no value as an empty cell."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if 1e-300 < abs(value) < 1e11 or value == 0:  # the common case, as repr writes it (6.0, 1e-05)
            text = f"{value + 0.0:.{SIGNIFICANT}g}"
            return text if "." in text or "e" in text else text + ".0"
        return repr(exact_enough(value))
    if isinstance(value, str):
        return inert_cell(value)
    return "" if value is None else value


def csv_floats(values: Any) -> list[str]:
    """:func:`csv_number` of each float of an array, formatted in one step (a property test holds them
    equal): the cells whose 12-digit text could read as a whole number (6 → 6.0) or that lie outside
    the common range are written by csv_number itself."""
    import numpy as np

    array = np.asarray(values, float) + 0.0  # -0.0 as 0
    texts = (f"%.{SIGNIFICANT}g\0" * array.size % tuple(array.tolist())).split("\0")[:-1]
    with np.errstate(all="ignore"):
        magnitude = np.abs(array)
        common = (magnitude > 1e-300) & (magnitude < 1e11)
        # within ten of the 12-digit resolution of a whole number: the text may have no point
        resolution = 10.0 ** (np.floor(np.log10(np.where(common, magnitude, 1.0))) - (SIGNIFICANT - 2))
        special = ~common | (np.abs(array - np.round(array)) <= resolution)
    for index in np.flatnonzero(special).tolist():
        texts[index] = csv_number(float(array[index]))
    return texts


def write_csv_columns(columns: Sequence[str], blocks: Any) -> None:
    """CSV with this header to standard output, written a block of rows at a time (memory holds one):
    each block a list of columns, a numpy array (floats as :func:`csv_floats`, integers in full) or a
    sequence of other values (as :func:`render` writes them, quoted where CSV needs it)."""
    import csv
    import io

    import numpy as np

    csv.writer(sys.stdout, lineterminator="\n").writerow(map(inert_cell, columns))
    quoted: dict[Any, str] = {}

    def quote(value: Any) -> str:
        if value not in quoted:
            buffer = io.StringIO()
            csv.writer(buffer, lineterminator="").writerow([csv_number(value), ""])  # a second cell:
            quoted[value] = buffer.getvalue()[:-1]  # an empty one is not written ""
        return quoted[value]

    for block in blocks:
        cells = []
        for column in block:
            kind = column.dtype.kind if isinstance(column, np.ndarray) else ""
            if kind == "f":
                cells.append(csv_floats(column))
            elif kind in ("i", "u"):
                cells.append(list(map(str, column.tolist())))
            else:
                cells.append(list(map(quote, column.tolist() if kind else column)))
        if cells and cells[0]:
            sys.stdout.write("\n".join(map(",".join, zip(*cells, strict=True))) + "\n")


def json_value(value: Any) -> Any:
    """A value JSON can hold: a float to :data:`SIGNIFICANT` digits, -0.0 as 0, a float that is not
    finite as null (JSON has no NaN)."""
    if isinstance(value, float):
        return exact_enough(value) if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: json_value(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_value(item) for item in value]
    return value


def terminal_width() -> int:
    """Columns to fit: ``COLUMNS``, else the terminal of stdout, stderr or stdin, else 80. A terminal
    of no size (0 columns: a pseudo-terminal nobody sized, as some containers and CI runners give) is
    none: at width 0 rich printed nothing at all."""
    columns = os.environ.get("COLUMNS", "")
    if columns.strip().isdigit() and int(columns) > 0:
        return int(columns)
    for stream in (sys.stdout, sys.stderr, sys.stdin):
        try:
            size = os.get_terminal_size(stream.fileno()).columns
        except (AttributeError, OSError, ValueError):
            continue
        if size > 0:
            return size
    return _FALLBACK_WIDTH


def console(markup: bool = False, width: int | None = None):
    """A rich Console as wide as :func:`terminal_width`, also when piped.

    Markup, emoji codes and highlighting are off unless asked for: values are
    printed as they are, and the quick path does not pay for parsing them.
    """
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            """Output closed by its reader: raised again (rich would exit 1, the status of a found
            failure), for the command line's entry point to end quietly (:func:`qmodel.cli.main`)."""
            raise BrokenPipeError

    return _Console(width=width or terminal_width(), markup=markup, emoji=False, highlight=False)


def render(
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    fmt: str,
    *,
    title: str = "",
    caption: str = "",
    json_payload: Any = None,
    keys: int | None = None,
) -> None:
    """Print ``rows`` under ``columns`` in the chosen format to standard output.

    ``json_payload`` replaces the default JSON (a list of row objects) where a
    command has a richer structure to give. ``keys`` is how many leading
    columns identify a row (a folded table repeats them in every part); by
    default :func:`key_columns` infers it.
    """
    if fmt == "json":
        import json

        payload = json_payload
        if payload is None:
            payload = [dict(zip(columns, row, strict=True)) for row in rows]
        json.dump(json_value(payload), sys.stdout, indent=2, ensure_ascii=False, allow_nan=False)
        sys.stdout.write("\n")
    elif fmt == "csv":
        import csv

        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(map(inert_cell, columns))
        writer.writerows([[csv_number(v) for v in row] for row in rows])
    else:
        print_table(columns, rows, title=title, caption=caption, keys=keys)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _longest_word(text: str) -> int:
    return max((len(word) for word in text.split()), default=0)


# The spaces text is never wrapped at (besides no-break spaces): after a number standing as a word, before
# the unit or word it counts ("100 km", "500 1/s", "7 subchannels", "(1 of"); before a number that ends a
# clause, after the word it belongs to ("site 2", "Environment 1:", "of 2)").
# A number inside a word (G1P2) is neither.
_NUMBER = r"[+-]?\d+(?:[.,]\d+)*"  # 70, 0.95, 35,000: no mark after its last digit
_NUMBER_AND_UNIT = re.compile(rf"(?<![^\s(\[])({_NUMBER}) +(?=[^\d\s]|1/)")  # a unit: km, ms, 1/s
_NAME_AND_NUMBER = re.compile(rf"(?<=[^\W\d_]) +(?={_NUMBER}(?:$|[)\]:;,.]+(?:\s|$)))")
_NO_BREAK = "\N{NO-BREAK SPACE}"
# Nor between a key as a file names it (dotted, or with an underscore) and the value said for it, with a
# count of what takes it ("locks.lock_span 50%", "member.*.xi_share 0% (2 members)", "member
# G1P1.gbp_writes 23.19", "crossing_latency (138 µs)"); nor between a name and the hyphened type of its
# hardware ("celr CE-LR", "ica ICA-SR"; a name with an underscore is a key: "g1p1_cf1 IC").
_KEY = r"(?:(?:member|path|cf) )?[A-Za-z][\w→-]*(?:\.(?:\*|[\w-]+))+|[a-z][a-z0-9]*_\w+"
# a value: 50%, 0 (6 paths), (138 µs); never a unit in brackets (a table's "arrival_rate [1/s]")
_VALUE = r"[^\s(\[]+(?: +\(\d+ [^\s)]+\))?|\(\d[^\s)]*(?:[ \xa0][^\s)]+)?\)"
_KEY_AND_VALUE = re.compile(rf"(?<![^\s(\[])(?:{_KEY}) +(?:{_VALUE})")
_NAME_AND_TYPE = re.compile(r"(?<![^\s(\[])([a-z][a-z0-9_]*) +(?=[A-Z][A-Z0-9]*-[\w.]*\w)")


def _unbreakable(text: str) -> str:
    """``text`` with the spaces wrapping never breaks at made no-break spaces (:data:`_NUMBER_AND_UNIT`,
    :data:`_NAME_AND_NUMBER`, :data:`_KEY_AND_VALUE`, :data:`_NAME_AND_TYPE`)."""
    text = _KEY_AND_VALUE.sub(lambda pair: pair[0].replace(" ", _NO_BREAK), text)
    text = _NAME_AND_TYPE.sub(f"\\1{_NO_BREAK}", text)
    return _NAME_AND_NUMBER.sub(_NO_BREAK, _NUMBER_AND_UNIT.sub(f"\\1{_NO_BREAK}", text))


def wrap_at_spaces(
    text: str, width: int, *, indent: str = "", subsequent_indent: str = "", fold_long_words: bool = False
) -> list[str]:
    """``text`` as lines of at most ``width`` characters, broken at its spaces only: never at a no-break
    space, between a number and its unit ("100 km") or a name and its number ("site 2"), nor at a hyphen.
    A word longer than the width stays whole on a line of its own, or is folded with ``fold_long_words``.
    ``indent`` opens the first line, ``subsequent_indent`` the others; no-break spaces come out as spaces.
    (rich wraps at any space; textwrap breaks at ASCII whitespace only, so a no-break space holds.)"""
    import textwrap

    lines = textwrap.wrap(
        _unbreakable(text),
        max(width, 1),
        initial_indent=indent,
        subsequent_indent=subsequent_indent,
        break_long_words=fold_long_words,
        break_on_hyphens=False,
    )
    return [line.replace(_NO_BREAK, " ") for line in lines]


def _header(title: str, width: int) -> str:
    """A header (or a table's title) wrapped to ``width`` here (:func:`wrap_at_spaces`; rich would break
    at any space); a word longer than the width is folded."""
    return "\n".join(wrap_at_spaces(title, width, fold_long_words=True))


def count_in_all(names: Sequence[str], counts: Sequence[int], words: str = "in all", space: str = " ") -> str:
    """A count in all, then each part's: "92 in all (G1P1 46, G1P2 46)", "92 terminals in all (...)" with
    ``words``. ``space`` joins each number to its words: a no-break space in text to be wrapped
    (:func:`wrap_at_spaces`), a plain one in a CSV cell."""
    each = ", ".join(f"{name}{space}{count}" for name, count in zip(names, counts, strict=True))
    return space.join([f"{sum(counts)}", *words.split(" ")]) + f" ({each})"


def _least_widths(columns: Sequence[str], cells: list[list[str]], numbers: list[list[bool]]) -> list[int]:
    """Each column's least width: its longest number (never broken) or longest word, a header's number
    and unit counted as one word (:func:`wrap_at_spaces`)."""
    widths = []
    for index, title in enumerate(columns):
        least = max(len(word) for word in _unbreakable(title).split(" "))
        for row, kinds in zip(cells, numbers, strict=True):
            least = max(least, len(row[index]) if kinds[index] else _longest_word(row[index]))
        widths.append(least)
    return widths


def _fits(widths: Sequence[int], width: int) -> bool:
    return sum(widths) + _PER_COLUMN * len(widths) + _PER_TABLE <= width


def key_columns(rows: Sequence[Sequence[Any]]) -> int:
    """How many leading columns identify a row: the first, then each text column after it
    while rows still share the values of the key columns so far (distance, member)."""
    width = min((len(row) for row in rows), default=0)
    keys = 1
    while (
        keys < width
        and len({tuple(row[:keys]) for row in rows}) < len(rows)
        and not any(_is_number(row[keys]) for row in rows)
    ):
        keys += 1
    return keys


def _fold(least: list[int], width: int, keys: int) -> list[list[int]] | None:
    """Column indices per table, each led by the ``keys`` key columns; None if the keys and some
    other column do not fit side by side."""
    leading = list(range(keys))
    groups: list[list[int]] = []
    for index in range(keys, len(least)):
        if not _fits([least[i] for i in leading] + [least[index]], width):
            return None
        if groups and _fits([least[i] for i in groups[-1]] + [least[index]], width):
            groups[-1].append(index)
        else:
            groups.append([*leading, index])
    return groups or None


def print_table(
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    title: str = "",
    caption: str = "",
    width: int | None = None,
    keys: int | None = None,
) -> None:
    """A table in rich's box that fits ``width`` (default: the terminal's) and never breaks a number;
    a folded part repeats the ``keys`` leading columns (default: :func:`key_columns`). Text is shown with
    its control characters escaped (:func:`qmodel.safetext.shown`): a name never moves the cursor,
    clears the screen or turns the line right to left."""
    width = width or terminal_width()
    columns, title, caption = [shown(column) for column in columns], shown(title), shown(caption)
    cells = [[shown(format_number(value)) for value in row] for row in rows]
    numbers = [[_is_number(value) for value in row] for row in rows]
    least = _least_widths(columns, cells, numbers)
    if _fits(least, width) or len(columns) < 2:
        _print_layout(_layout(columns, cells, numbers, range(len(columns)), title, caption, width), width)
        return
    keys = min(key_columns(rows) if keys is None else max(keys, 1), len(columns))
    groups = _fold(least, width, keys)
    if groups is not None:
        for place, group in enumerate(groups, start=1):
            part = f"{title} ({place} of {len(groups)})" if title else f"({place} of {len(groups)})"
            _print_layout(
                _layout(columns, cells, numbers, group, part, caption if place == len(groups) else "", width),
                width,
            )
        return
    # one record per block: "column | value"
    out = console(width=width)
    names = list(columns)
    value_least = max(
        [
            len(c) if n else _longest_word(c)
            for row, kinds in zip(cells, numbers, strict=True)
            for c, n in zip(row, kinds, strict=True)
        ],
        default=0,
    )
    name_least = max(_longest_word(name) for name in names)
    room = width - 2 * _PER_COLUMN - _PER_TABLE
    if name_least + value_least > room:  # truncate labels: the names first, then text values
        names = [_truncate(name, max(room - value_least, 4)) for name in names]
    if title:
        out.print(title)
    for index, (row, kinds) in enumerate(zip(cells, numbers, strict=True), start=1):
        label = (
            ", ".join(f"{name} {value}" for name, value in zip(names[:keys], row[:keys], strict=True))
            if row
            else f"row {index}"
        )
        record_cells = [[name, value] for name, value in zip(names, row, strict=True)]
        record_numbers = [[False, kind] for kind in kinds]
        for pair, kind in zip(record_cells, record_numbers, strict=True):
            if not kind[1]:
                pair[1] = _truncate_words(pair[1], max(room - len(pair[0]), 4))
        out.print(
            _rich_table(
                _layout(
                    ["column", "value"],
                    record_cells,
                    record_numbers,
                    range(2),
                    f"record {index}: {label}",
                    "",
                    width,
                )
            )
        )
    if caption:
        out.print(caption)


def _truncate(text: str, size: int) -> str:
    return text if len(text) <= size else text[: size - 1] + "…"


def _truncate_words(text: str, size: int) -> str:
    """Every word of a label no longer than ``size`` (so it wraps, never folds mid-word)."""
    return " ".join(_truncate(word, size) for word in text.split(" "))


def _allot(natural: list[int], least: list[int], width: int) -> list[int]:
    """Column widths within ``width``: the natural ones, the widest cut back first, none below its least."""
    widths = list(natural)
    budget = width - _PER_COLUMN * len(widths) - _PER_TABLE
    while sum(widths) > budget:
        slack = [w - low for w, low in zip(widths, least, strict=True)]
        widest = max(range(len(widths)), key=lambda i: (slack[i] > 0, widths[i]))
        if slack[widest] <= 0:
            break
        widths[widest] -= 1
    return widths


class _Layout(NamedTuple):
    """One table as it is drawn: the title, caption, each header and each text cell already wrapped to
    their widths (lines joined by newlines), each column's width (padding and rules not counted) and
    whether it is right-justified (a column of numbers)."""

    title: str
    headers: list[str]
    cells: list[list[str]]
    widths: list[int]
    right: list[bool]
    caption: str

    @property
    def width(self) -> int:
        """The columns the table takes: its columns, and the padding and rule of each."""
        return sum(self.widths) + _PER_COLUMN * len(self.widths) + _PER_TABLE


def _layout(
    columns: Sequence[str],
    cells: list[list[str]],
    numbers: list[list[bool]],
    chosen,
    title: str,
    caption: str,
    width: int,
) -> _Layout:
    """The table of the ``chosen`` columns within ``width``, column widths fixed here so that a number is
    never folded (:func:`_allot`)."""
    chosen = list(chosen)
    picked_cells = [[row[i] for i in chosen] for row in cells]
    picked_numbers = [[kinds[i] for i in chosen] for kinds in numbers]
    names = [columns[i] for i in chosen]
    least = _least_widths(names, picked_cells, picked_numbers)
    natural = [
        max([len(name)] + [len(row[place]) for row in picked_cells]) for place, name in enumerate(names)
    ]
    widths = _allot(natural, least, width)
    right = [
        any(kinds[place] for kinds in picked_numbers)
        and all(
            kinds[place] or not row[place] for row, kinds in zip(picked_cells, picked_numbers, strict=True)
        )
        for place in range(len(names))
    ]
    wrapped = [
        [
            cell if len(cell) <= widths[place] else _header(cell, widths[place])
            for place, cell in enumerate(row)
        ]
        for row in picked_cells
    ]  # text only: numbers fit
    layout = _Layout(
        title="",
        headers=[_header(name, widths[place]) for place, name in enumerate(names)],
        cells=wrapped,
        widths=widths,
        right=right,
        caption=caption,
    )
    return layout._replace(
        title=_header(title, layout.width) if title else "",
        caption=_header(caption, layout.width) if caption else "",
    )


def _rich_table(layout: _Layout):
    """The layout as a rich Table (rich wraps a cell wider than its column, at its spaces)."""
    from rich.table import Table

    table = Table(title=layout.title or None, caption=layout.caption or None)
    for header, width, right in zip(layout.headers, layout.widths, layout.right, strict=True):
        table.add_column(header, overflow="fold", width=width, justify="right" if right else "left")
    for row in layout.cells:
        table.add_row(*row)
    return table


def _print_layout(layout: _Layout, width: int) -> None:
    """Print the table: drawn here where it is drawn as rich would draw it (:func:`_box_text`), else by
    rich. Drawing it here keeps rich's console and table modules (a third of a quick answer's start-up)
    off the path of a quick answer."""
    styles = _stdout_styles()
    text = _box_text(layout, width, styles) if styles is not None else None
    if text is None:
        console(width=width).print(_rich_table(layout))
    else:  # flushed as rich flushes each print: a later line on stderr still comes after the table
        sys.stdout.write(text)
        sys.stdout.flush()


# the styles rich gives a table on a terminal, as its escape codes: italic title, bold header, dim italic
# caption (rich's default theme: table.title, table.header, table.caption); none where it is not a terminal
TERMINAL_STYLES = {"title": "3", "header": "1", "caption": "2;3"}


def _stdout_styles() -> dict[str, str] | None:
    """The styles rich would give a table on standard output: :data:`TERMINAL_STYLES` on a terminal,
    none ({}) piped or captured, where rich prints plain text; None where rich decides otherwise than
    by the terminal alone and is left to draw: FORCE_COLOR or TTY_COMPATIBLE set, a terminal that
    takes no styles (TERM dumb or unknown), a non-UTF encoding (rich draws an ASCII box), a Windows
    console or a notebook (IPython loaded)."""
    if (
        "FORCE_COLOR" in os.environ
        or "TTY_COMPATIBLE" in os.environ
        or "IPython" in sys.modules
        or sys.platform == "win32"
    ):
        return None
    try:
        terminal = sys.stdout.isatty()
    except (AttributeError, ValueError):  # no isatty, or a closed stream: left to rich
        return None
    if not (getattr(sys.stdout, "encoding", None) or "utf-8").lower().startswith("utf") or (
        terminal and os.environ.get("TERM", "").strip().lower() in ("dumb", "unknown")
    ):
        return None
    return TERMINAL_STYLES if terminal else {}


def _box_text(layout: _Layout, width: int, styles: dict[str, str]) -> str | None:
    """The table as rich draws it (its default box, HEAVY_HEAD; a header at the bottom of its row, a
    cell at the top; title and caption centred over the table; each part in its style of ``styles``,
    from :func:`_stdout_styles`), or None where that could differ: no columns, a column of no width, a
    table wider than ``width``, a line of title, header, cell (wrapped by :func:`_layout`) or caption
    longer than its room, with a character wider or narrower than one column, with spaces
    at its ends, or empty (rich's wrapping and padding decide those). tests/test_box_table.py holds
    the two to the same output, piped and on a terminal."""
    widths = layout.widths
    headers = [header.split("\n") for header in layout.headers]
    title = layout.title.split("\n") if layout.title else []
    caption = layout.caption.split("\n") if layout.caption else []

    def drawn_alike(text: str, room: int, empty: bool = False) -> bool:
        return len(text) <= room and (bool(text) or empty) and text == text.strip() and _one_column_each(text)

    if (
        not widths
        or min(widths) < 1
        or layout.width > width
        or not (
            all(drawn_alike(text, layout.width) for text in title + caption)
            and all(
                drawn_alike(text, room, empty=True)
                for texts, room in zip(headers, widths, strict=True)
                for text in texts
            )
            and all(
                drawn_alike(text, room, empty=True)
                for row in layout.cells
                for cell, room in zip(row, widths, strict=True)
                for text in cell.split("\n")
            )
        )
    ):
        return None

    def styled(text: str, part: str) -> str:
        """``text`` in the style of ``part``, as rich writes a styled piece: the codes, the text, a reset."""
        return f"\x1b[{styles[part]}m{text}\x1b[0m" if part in styles and text else text

    def line(cells: Sequence[str | None], rule: str, part: str = "") -> str:
        """One line of a row. rich writes a cell's padding on each side and its justified text as three
        pieces, and a blank line above a shorter cell (None here) as one."""
        return (
            rule
            + rule.join(
                styled(" " * (room + 2), part)
                if text is None
                else "".join(
                    styled(piece, part)
                    for piece in (" ", text.rjust(room) if right else text.ljust(room), " ")
                )
                for text, room, right in zip(cells, widths, layout.right, strict=True)
            )
            + rule
        )

    def border(left: str, rule: str, cross: str, right: str) -> str:
        return left + cross.join(rule * (room + 2) for room in widths) + right

    height = max(len(texts) for texts in headers)
    # each header at the bottom of the header row, as rich aligns it
    header_lines = [[None] * (height - len(texts)) + texts for texts in headers]
    lines = [styled(_centred(text, layout.width), "title") for text in title]
    lines.append(border("┏", "━", "┳", "┓"))
    lines += [line(cells, "┃", "header") for cells in zip(*header_lines, strict=True)]
    lines.append(border("┡", "━", "╇", "┩"))
    for row in layout.cells:  # a cell wrapped to lines at the top of its row, as rich aligns it
        texts = [cell.split("\n") for cell in row]
        height = max(len(parts) for parts in texts)
        lines += [
            line(cells, "│")
            for cells in zip(*(part + [None] * (height - len(part)) for part in texts), strict=True)
        ]
    lines.append(border("└", "─", "┴", "┘"))
    lines += [styled(_centred(text, layout.width), "caption") for text in caption]
    return "".join(text + "\n" for text in lines)


def _one_column_each(text: str) -> bool:
    """Whether every character of ``text`` takes one column: printable Latin (below U+0300, where the
    combining marks begin), so that its length is its width on the terminal, as rich measures it."""
    return text.isprintable() and max(text, default=" ") < "\u0300"


def _centred(text: str, width: int) -> str:
    """``text`` centred in ``width`` as rich centres it: the odd space on the right."""
    left = (width - len(text)) // 2
    return " " * left + text + " " * (width - len(text) - left)


def regenerate(text: str, generated: dict[tuple[str, str], str], name: str) -> str:
    """``text`` with everything between each pair of marker lines (``<!-- x:begin -->``, ``<!-- x:end -->``)
    replaced by its generated block: the one rewriter of generated parts of a page (the scorecard, the
    calibration tables)."""
    for (begin, end), block in generated.items():
        out, rest = [], text
        while begin in rest:
            head, _, rest = rest.partition(begin)
            if end not in rest:
                raise SystemExit(f"error: {name}: {begin} without {end}")
            rest = rest.partition(end)[2]
            out += [head, begin, "\n", block, "\n", end]
        text = "".join(out) + rest
    return text
