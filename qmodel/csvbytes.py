"""CSV as bytes in numpy arrays, whole columns at a time: where each row and cell lies, plain decimal
cells read, numbers written as ``%.12g``, result cells spliced into the rows (batch's fast path,
:mod:`qmodel.batch`).

Every function here either gives exactly what the per-cell Python route gives (``float(cell)``,
``"%.12g" % value``, :mod:`csv`'s reading of a row) or says which rows it cannot read, for that
route to read: a plain decimal of up to 15 digits is the integer of its digits divided by a power
of ten, both exact in binary64, so IEEE division rounds it as ``float`` does; a value is written
from its 12 significant digits found by scaling where the scaled product is clearly not half-way
between two integers. Text is UTF-8, whose multi-byte characters never contain an ASCII byte, so
separators, quotes and line ends are found by byte.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

NEWLINE, QUOTE, POINT, MINUS, PLUS, ZERO = (ord(c) for c in '\n".-+0')
_BLANK = (ord(" "), ord("\t"))
_DIGITS = 15  # at most 15 digits: the integer of the digits is exact in binary64 (< 2**53)
_WIDEST = _DIGITS + 2  # and a sign and a point
_POW10 = 10 ** np.arange(_WIDEST + 1, dtype=np.int64)
_POW10F = 10.0 ** np.arange(23)  # exact in binary64 up to 1e22
_FOUR_DIGITS = np.array([list(f"{i:04d}".encode()) for i in range(10_000)], dtype=np.uint8)
G12_WIDTH = 20  # "%.12g" is never longer: -1.23456789012e+308


class Layout(NamedTuple):
    """Rows and cells of CSV text: each row's start and its line end's offset, the blank rows (only
    separators, spaces and tabs: no cell filled in) and, for the other rows, the offsets of their
    ``width - 1`` separators (one row of the matrix per row that is not blank)."""

    starts: np.ndarray
    ends: np.ndarray
    blank: np.ndarray
    separators: np.ndarray

    def cell_bounds(self, column: int) -> tuple[np.ndarray, np.ndarray]:
        """(start, end) offsets of every row's cell in ``column`` (0-based); a blank row's cell is empty."""
        width = self.separators.shape[1] + 1
        filled = ~self.blank
        starts, ends = self.starts.copy(), self.starts.copy()
        starts[filled] = self.starts[filled] if column == 0 else self.separators[:, column - 1] + 1
        ends[filled] = self.ends[filled] if column == width - 1 else self.separators[:, column]
        return starts, ends


def layout(text: np.ndarray, delimiter: str, width: int) -> Layout | None:
    """The :class:`Layout` of ``text`` (UTF-8 bytes of whole rows, each ending in a line feed), or
    None where the csv module might read it otherwise than as rows of ``width`` cells split at the
    separators outside quotes: a quote not at a cell's edge or not doubled inside a quoted cell, a line
    end inside quotes (a cell over several lines), a row that is neither blank nor ``width`` cells."""
    separator = ord(delimiter)
    ends = np.flatnonzero(text == NEWLINE)
    is_separator = text == separator
    quotes = np.flatnonzero(text == QUOTE)
    if quotes.size:
        quoted = np.cumsum(text == QUOTE, dtype=np.uint8) & 1  # odd quotes so far: inside a quoted cell
        if np.any(quoted[ends]) or not _quotes_at_edges(text, quotes, separator):
            return None
        outside = is_separator & (quoted == 0)
    else:
        outside = is_separator
    starts = np.empty_like(ends)
    starts[:1], starts[1:] = 0, ends[:-1] + 1
    other = ~(is_separator | (text == _BLANK[0]) | (text == _BLANK[1]) | (text == NEWLINE))
    filled = np.logical_or.reduceat(other, starts) & (ends > starts)
    counts = np.add.reduceat(outside, starts, dtype=np.int64)
    if np.any(counts[filled] != width - 1):
        return None
    separators = np.flatnonzero(outside)
    if not filled.all():
        separators = separators[np.repeat(filled, counts)]
    return Layout(starts, ends, ~filled, separators.reshape(np.count_nonzero(filled), width - 1))


def _quotes_at_edges(text: np.ndarray, quotes: np.ndarray, separator: int) -> bool:
    """Whether every quote opens a cell (after a separator or line end), closes one (before them) or
    is one of a doubled pair: the quoting the csv module and the quote count agree on."""
    edge = (separator, NEWLINE, QUOTE)
    before = np.where(quotes > 0, text[np.maximum(quotes - 1, 0)], NEWLINE)
    after = text[quotes + 1]  # text ends in a line feed: a quote is never last
    opening = np.arange(quotes.size) % 2 == 0
    return bool(np.all(np.where(opening, np.isin(before, edge), np.isin(after, edge))))


def plain_decimals(text: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(values, unread) of the cells ``text[starts:ends]``: a cell written ``[+-]digits[.digits]`` with
    at most 15 digits is read exactly as ``float`` reads it; ``unread`` marks every other cell (its
    value 0 here), for the per-cell reader."""
    lengths = ends - starts
    unread = (lengths < 1) | (lengths > _WIDEST)
    width = int(lengths[~unread].max(initial=0))
    if width == 0 or unread.all():
        return np.zeros(lengths.size), np.ones(lengths.size, dtype=bool)
    columns = np.arange(width, dtype=np.int32)
    # right-aligned in a window ending at the cell's end: the leading zeros padding it change no value
    window = ends - width
    chars = np.lib.stride_tricks.sliding_window_view(text, width)[np.maximum(window, 0)]
    near = np.flatnonzero(window < 0)  # a window that would begin before the text: padding there
    chars[near] = text[np.maximum(window[near, None] + columns, 0)]
    leading = (width - lengths)[:, None]
    chars[columns < leading] = ZERO
    digits = chars - ZERO  # uint8: anything but a digit wraps to 10 or more
    is_digit = digits < 10
    is_point = chars == POINT
    signed = (columns == leading) & ((chars == MINUS) | (chars == PLUS))
    counted = np.count_nonzero(is_digit, axis=1) - np.maximum(width - lengths, 0)
    points = np.count_nonzero(is_point, axis=1)
    unread |= ((np.count_nonzero(is_digit | is_point | signed, axis=1) < width) | (points > 1)
               | (counted < 1) | (counted > _DIGITS))
    digits[~is_digit] = 0
    if width <= _DIGITS:  # exact in binary64 below 2**53: the BLAS product
        whole = (digits @ _POW10F[width - 1::-1]).astype(np.int64)
    else:
        whole = digits.astype(np.int64) @ _POW10[width - 1::-1]
    fraction = np.where(points > 0, width - 1 - is_point.argmax(axis=1), 0)
    right = whole % _POW10[fraction]  # the point's place held a 0: the digits left of it are 10x
    mantissa = np.where(points > 0, right + (whole - right) // 10, whole)
    values = mantissa / _POW10F[fraction]
    negative = np.any(signed & (chars == MINUS), axis=1)
    values[negative] *= -1
    values[unread] = 0.0
    return values, unread


def g12(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(characters, lengths): each value as ``"%.12g" % (value + 0.0)`` writes it (``-0`` as 0), one
    row of a byte matrix (as wide as the longest) per value. Fixed-point values are built from their
    12 digits by column; a value in exponent form, not finite, or whose scaled digits are nearly
    half-way, by Python."""
    count = values.size
    out = np.zeros((count, G12_WIDTH), dtype=np.uint8)
    lengths = np.zeros(count, dtype=np.int64)
    magnitude = np.abs(values)
    with np.errstate(all="ignore"):
        exponent = np.floor(np.log10(magnitude))
        fast = (exponent >= -4) & (exponent <= 11)
        exponent = np.where(fast, exponent, 0).astype(np.int64)
        scaled = magnitude * _POW10F[11 - exponent]
        rounded = np.rint(scaled)
        # the product is within 2**-9 of the exact one (< 2**44): clear of .5, its rounding is %.12g's
        fast &= (np.abs(scaled - rounded) < 0.49) & (rounded >= 1e11) & (rounded < 1e12)
    mantissa = np.where(fast, rounded, 1e11).astype(np.int64)
    digits = np.hstack([_FOUR_DIGITS[mantissa // 10**8], _FOUR_DIGITS[mantissa // 10**4 % 10**4],
                        _FOUR_DIGITS[mantissa % 10**4]])
    kept = 12 - np.argmax(digits[:, ::-1] != ZERO, axis=1)  # up to the last digit not 0 (m >= 1e11)
    negative = values < 0
    zero = values == 0
    out[zero, 0], lengths[zero] = ZERO, 1
    group = np.where(fast, exponent + 4, -1) + 16 * negative
    present = np.flatnonzero(np.bincount(group[fast], minlength=32))
    for key in present:
        rows = np.flatnonzero(group == key) if present.size > 1 or not fast.all() else slice(None)
        sign, power = int(key >= 16), int(key % 16) - 4
        block = out[rows] if isinstance(rows, np.ndarray) else out
        block[:, 0] = MINUS
        if power >= 0:  # 123.456: the whole digits, a point, the rest
            block[:, sign:sign + power + 1] = digits[rows, :power + 1]
            block[:, sign + power + 1] = POINT
            block[:, sign + power + 2:sign + 13] = digits[rows, power + 1:]
            fraction = np.maximum(kept[rows] - power - 1, 0)
            lengths[rows] = sign + power + 1 + np.where(fraction > 0, fraction + 1, 0)
        else:  # 0.00123
            zeros = -power - 1
            block[:, sign:sign + 2 + zeros] = ZERO
            block[:, sign + 1] = POINT
            block[:, sign + 2 + zeros:sign + 14 + zeros] = digits[rows]
            lengths[rows] = sign + 2 + zeros + kept[rows]
        if isinstance(rows, np.ndarray):
            out[rows] = block
    for row in np.flatnonzero(~fast & ~zero):
        written = f"{values[row]:.12g}".encode()
        out[row, :len(written)] = np.frombuffer(written, dtype=np.uint8)
        lengths[row] = len(written)
    return out[:, :lengths.max(initial=0)], lengths


def insert(data: np.ndarray, at: np.ndarray, added: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``data`` with ``lengths[i]`` bytes of ``added`` (the pieces end to end) put before ``data[at[i]]``,
    for ``at`` in increasing order (a row's results before its line feed)."""
    nonempty = lengths > 0
    at, lengths = at[nonempty], lengths[nonempty]
    first = at + np.cumsum(lengths) - lengths  # where each piece begins in the result
    marks = np.zeros(data.size + added.size + 1, dtype=np.int8)
    marks[first] += 1
    marks[first + lengths] -= 1  # distinct from each other, as each piece is at least a byte
    inside = np.cumsum(marks[:-1], dtype=np.int8).view(bool)
    out = np.empty(data.size + added.size, dtype=np.uint8)
    out[inside] = added
    out[~inside] = data
    return out
